from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.checks import MarkerParser
from sidecar.checks.builtin import _GAP, _MAX_GAP, _MAX_RUN, _SPACE_ONLY, _markers_after
from sidecar.checks.markers import Marker


def _run_after(
    markers: tuple[Marker, ...], starts: list[int], answer: str, position: int
) -> list[str]:
    """The run of markers after ``position`` found by one loop over the markers, the gap
    read by the pattern: what the shortcuts of ``_markers_after`` must agree with."""
    first = next((i for i, start in enumerate(starts) if start >= position), len(starts))
    if first == len(starts) or starts[first] > position + _MAX_GAP:
        return []
    gap = _GAP.match(answer, position)
    cursor = gap.end() if gap else position
    ids: list[str] = []
    for index in range(first, min(len(markers), first + _MAX_RUN)):
        start, end, marker_ids = markers[index]
        if start != cursor and not (
            ids and _SPACE_ONLY.fullmatch(answer, cursor, start) is not None
        ):
            break
        if answer.startswith(":", end):
            break
        ids.extend(marker_ids)
        cursor = end
    return ids


_PIECES = ["a", " ", "  ", ".", ":", "\n", "\t", "[S1]", "[2]", "[]", "[S1, S2]", "\u3010S1\u3011"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_PIECES)), st.integers(min_value=0, max_value=40))
def test_the_run_of_markers_after_a_claim_is_the_one_loop_finds(
    pieces: list[str], position: int
) -> None:
    answer = "".join(pieces)
    position = min(position, len(answer))
    markers = tuple(MarkerParser().markers(answer))
    starts = [marker.start for marker in markers]
    assert _markers_after(markers, starts, answer, position) == _run_after(
        markers, starts, answer, position
    )
