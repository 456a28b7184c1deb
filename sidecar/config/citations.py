"""How citation markers name sources (``citations.*``)."""

from __future__ import annotations

from typing import Literal

from sidecar.config._section import Section

__all__ = ["CitationsSettings", "Numbering"]


Numbering = Literal["auto", "by_id", "by_position"]
"""How a marker names a source: by its declared ID, by its position in the trace's source
list, or by ID where it can and by position where the trace numbers its passages."""


class CitationsSettings(Section):
    """How the answer's markers and the claims' citation IDs name the trace's sources."""

    numbering: Numbering = "auto"
    """by_id: a marker names the source with that ID. by_position: a number ``[N]`` names
    the Nth source of the trace (1-based, in the order the trace or its adapter lists
    them, which is retrieval order); other markers name sources by ID. auto: a marker that
    matches a declared ID is that ID; when every marker and citation ID is a small
    integer and no declared ID looks like one, they are positions (the finding
    citation_numbering says so); a trace mixing declared IDs and numbers keeps the numbers
    unresolved and gets the finding as a warning."""
