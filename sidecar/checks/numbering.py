"""How markers name sources: by declared ID, or by position when the trace numbers its
passages (``citations.numbering``).

LangChain and LlamaIndex citation chains, Perplexity-style APIs and most home-grown prompts
number the retrieved passages in the prompt, and the model writes ``[1]``, ``[2]``: the Nth
passage in retrieval order, whatever ID the source has (a UUID, ``kb-warranty-2``, a path).
This step runs once per trace, before claims are derived and checked: it parses the answer's
markers (the one parse the derivation and the analysis then share), decides how the trace
numbers its citations, and resolves numbers by position where it must:

- ``by_id``: nothing is resolved by position.
- ``by_position``: every number ``N`` (in a marker or a claim's citation IDs) is the Nth
  source, 1-based, when there is one; other IDs resolve by ID.
- ``auto``: when no declared ID looks like a number and every marker and citation ID that
  names no declared ID is a number, while none names a declared ID, the numbers are
  positions (finding ``citation_numbering``, info, ``detail: by_position``). When declared
  IDs and unresolved numbers are mixed in one trace, nothing is guessed: the numbers stay
  unknown and the finding is a warning (``detail: mixed``); so is a number that names no
  declared ID where declared IDs are numbers (``detail: ambiguous``).

The claims' citation IDs resolved by position are rewritten to the source IDs, so the
evaluation record shows what each claim cites.
"""

from __future__ import annotations

import re
from itertools import chain
from operator import attrgetter
from typing import NamedTuple

from schemas import Trace
from sidecar.checks._citation_ids import IdResolver
from sidecar.checks.base import Finding
from sidecar.checks.markers import Marker, MarkerParser, Scan
from sidecar.config.citations import Numbering

__all__ = ["Numbered", "number"]

_NUMBER = re.compile(r"[0-9]{1,3}")
"""A number a marker can mean a position with (1 to 999 sources)."""
_NUMERIC_SETS: dict[frozenset[str], bool] = {}
_CITATION_IDS = attrgetter("citation_ids")
_ID = attrgetter("id")
_new_tuple = tuple.__new__


class Numbered(NamedTuple):
    """A trace with its citations resolved, and the parse of its answer."""

    trace: Trace
    """The trace, its claims' citation IDs resolved by position where they were."""
    resolver: IdResolver
    scan: Scan
    """The answer's markers, their IDs resolved (by position where they were)."""
    finding: Finding | None = None


def _numeric_declared(declared: frozenset[str]) -> bool:
    """Whether a declared ID looks like a number (then a number names it, not a position);
    remembered for the sets of IDs seen lately."""
    known = _NUMERIC_SETS.get(declared)
    if known is None:
        if len(_NUMERIC_SETS) >= 256:
            _NUMERIC_SETS.clear()
        known = _NUMERIC_SETS[declared] = any(_NUMBER.fullmatch(i) for i in declared)
    return known


def number(trace: Trace, parser: MarkerParser, numbering: Numbering) -> Numbered:
    """``trace`` with its markers parsed and its citations resolved as ``numbering`` says
    (see the module docstring). Never raises on a valid trace."""
    sources = trace.sources
    declared = frozenset(map(_ID, sources))
    resolver = IdResolver(declared)
    scan = parser.scan(trace.answer, resolver)
    if numbering == "by_id" or not sources:
        return _new_tuple(Numbered, (trace, resolver, scan, None))
    claims = trace.claims
    if declared.issuperset(chain.from_iterable(map(_CITATION_IDS, claims))):
        cited: list[str] = []  # the common case, one C-level pass over every citation
        if numbering == "auto" and not scan.unknown:
            # The common case: every ID is declared (no NamedTuple __new__ in Python).
            return _new_tuple(Numbered, (trace, resolver, scan, None))
    else:
        cited = [i for claim in claims for i in claim.citation_ids if i not in declared]
    if numbering == "auto":
        unknown = [*scan.unknown, *cited]
        if not any(_NUMBER.fullmatch(i) for i in unknown):
            return Numbered(trace, resolver, scan)
        if _numeric_declared(declared):
            # A number that names no declared ID where declared IDs are numbers: an
            # unknown ID or a position, nobody can tell.
            finding = Finding("citation_numbering", "warning", detail="ambiguous")
            return Numbered(trace, resolver, scan, finding)
        named = _names_declared(scan, trace, declared)
        if named or not all(_NUMBER.fullmatch(i) for i in unknown):
            finding = Finding("citation_numbering", "warning", detail="mixed")
            return Numbered(trace, resolver, scan, finding)
        finding = Finding("citation_numbering", "info", detail="by_position")
    else:
        finding = None
    positions = {str(index): source.id for index, source in enumerate(sources, start=1)}
    return Numbered(
        _claims_by_position(trace, positions),
        resolver,
        _scan_by_position(scan, positions),
        finding,
    )


def _names_declared(scan: Scan, trace: Trace, declared: frozenset[str]) -> bool:
    """Whether a marker or a claim names a declared ID (not a number left unresolved)."""
    unknown = set(scan.unknown)
    return any(not unknown.issuperset(marker.ids) for marker in scan.markers) or any(
        not declared.isdisjoint(claim.citation_ids) for claim in trace.claims
    )


def _position(written: str, positions: dict[str, str]) -> str:
    """The source ID a number names by position; ``written`` when it names none."""
    found = positions.get(written)
    if found is not None:
        return found
    if written[:1] == "0" and _NUMBER.fullmatch(written):
        return positions.get(str(int(written)), written)  # 01
    return written


def _scan_by_position(scan: Scan, positions: dict[str, str]) -> Scan:
    markers = []
    for marker in scan.markers:
        ids = marker.ids
        if len(ids) == 1:
            resolved: tuple[str, ...] = (_position(ids[0], positions),)
        else:
            resolved = tuple(dict.fromkeys([_position(i, positions) for i in ids]))
        markers.append(Marker(marker.start, marker.end, resolved))
    unknown = tuple(i for i in scan.unknown if _position(i, positions) == i)
    return Scan(markers, scan.case_only, unknown)


def _claims_by_position(trace: Trace, positions: dict[str, str]) -> Trace:
    claims = []
    changed = False
    for claim in trace.claims:
        cited = list(dict.fromkeys(_position(i, positions) for i in claim.citation_ids))
        if cited != claim.citation_ids:
            claim = claim.model_copy(update={"citation_ids": cited})
            changed = True
        claims.append(claim)
    return trace.model_copy(update={"claims": claims}) if changed else trace
