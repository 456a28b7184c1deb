"""Resolving the IDs a citation marker names: ranges written out (``[1-3]`` is 1, 2, 3) and
each ID matched to the trace's declared source IDs, case-only matches and unknown IDs noted
for the checks."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sidecar.checks._citation_ids import IdResolver

if TYPE_CHECKING:
    from sidecar.checks.markers import Marker

__all__ = ["MAX_RANGE", "expanded", "resolve_ids", "resolved"]

MAX_RANGE = 50
"""The most numbers a range marker (``[1-3]``) stands for; a wider one is one ID."""
_RANGE = re.compile("([0-9]{1,6})[-\u2013]([0-9]{1,6})")


def expanded(ids: tuple[str, ...]) -> tuple[str, ...]:
    """``ids`` with each range of numbers (``1-3``, ``1–3``) written out: 1, 2, 3. A range
    wider than :data:`MAX_RANGE` numbers, or one that does not go up, stays one ID."""
    if not any("-" in i or "\u2013" in i for i in ids):
        return ids
    out: list[str] = []
    for written in ids:
        found = _RANGE.fullmatch(written)
        if found is not None:
            low, high = int(found[1]), int(found[2])
            if low < high and high - low < MAX_RANGE:
                out.extend(str(number) for number in range(low, high + 1))
                continue
        out.append(written)
    return tuple(out)


def resolve_ids(
    ids: tuple[str, ...], resolver: IdResolver, cased: dict[str, None], unknown: dict[str, None]
) -> tuple[str, ...]:
    """``ids`` resolved against the trace's sources; a case-only match is added to ``cased``,
    an ID that matches no source to ``unknown``."""
    out = []
    declared = resolver.declared
    for written in ids:
        if written.isdigit() and written.isascii() and written not in declared:
            # ASCII digits have no other case or normal form: unknown, without the tables.
            unknown.setdefault(written, None)
            out.append(written)
            continue
        source_id, how = resolver.resolve(written)
        if how == "case":
            cased.setdefault(source_id, None)
        elif how is None:
            unknown.setdefault(source_id, None)
        out.append(source_id)
    return tuple(out)


def resolved(
    found: list[Marker], resolver: IdResolver, cased: dict[str, None], unknown: dict[str, None]
) -> list[Marker]:
    """``found`` with every marker's IDs resolved (most name declared IDs already)."""
    declared = resolver.declared
    return [
        marker
        if declared.issuperset(marker.ids)  # the common case, one C call
        else marker._replace(ids=resolve_ids(marker.ids, resolver, cased, unknown))
        for marker in found
    ]
