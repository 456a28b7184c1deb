"""The built-in deterministic checks."""

from __future__ import annotations

import bisect
import re

from sidecar.checks.adapter import AdapterFindingsCheck
from sidecar.checks.analysis import Analysis, ClaimAnalysis
from sidecar.checks.base import Check, Finding, Severity
from sidecar.checks.injection import InjectionCheck
from sidecar.checks.markers import Marker, canonical
from sidecar.checks.quotes import CitedTextCheck
from sidecar.inputs import CITED_TEXTS

__all__ = [
    "CitationIdCaseCheck",
    "CitationMismatchCheck",
    "ClaimCitationCheck",
    "MarkerCheck",
    "NoClaimsCheck",
    "PrescreenCheck",
    "SourceUsageCheck",
    "default_checks",
]


class NoClaimsCheck:
    """A trace without claims cannot be scored for correctness or completeness. When its
    answer cites something (markers, or quotes the app gave for its citations) that is a
    warning, never silence: the cited text yielded no claim (``detail`` says what it had)."""

    name: str = "no_claims"
    codes: tuple[str, ...] = ("no_claims",)

    def run(self, analysis: Analysis) -> list[Finding]:
        if analysis.trace.claims:
            return []
        if analysis.marker_ids:
            return [Finding("no_claims", "warning", detail="answer_has_markers")]
        if analysis.trace.extra.get(CITED_TEXTS):
            return [Finding("no_claims", "warning", detail="answer_has_cited_text")]
        return [Finding("no_claims", "info")]


class MarkerCheck:
    """The answer's markers: none at all, or IDs that resolve to no source."""

    name: str = "markers"
    codes: tuple[str, ...] = ("no_markers", "unknown_citation_id")

    def run(self, analysis: Analysis) -> list[Finding]:
        if not analysis.marker_ids:
            return [Finding("no_markers", "warning")] if analysis.trace.answer.strip() else []
        return [
            Finding("unknown_citation_id", "warning", source_id=marker_id, detail="answer_marker")
            for marker_id in analysis.invalid_marker_ids
        ]


class ClaimCitationCheck:
    """Claims citing unknown IDs, uncited factual claims, and the critical ones among them."""

    name: str = "claim_citations"
    codes: tuple[str, ...] = ("unknown_citation_id", "uncited_claim", "invalid_citation_claim")

    def run(self, analysis: Analysis) -> list[Finding]:
        findings = []
        for item in analysis.claims:
            claim = item.claim
            for bad_id in item.invalid_ids:
                findings.append(
                    Finding(
                        "unknown_citation_id",
                        "warning",
                        claim_id=claim.id,
                        source_id=bad_id,
                        detail="claim_citation",
                    )
                )
            severity: Severity = "critical" if claim.importance == 3 else "warning"
            if item.status == "uncited":
                findings.append(
                    Finding(
                        "uncited_claim",
                        severity,
                        claim_id=claim.id,
                        detail=f"importance={claim.importance}",
                    )
                )
            elif item.status == "invalid_citation":
                findings.append(
                    Finding(
                        "invalid_citation_claim",
                        severity,
                        claim_id=claim.id,
                        detail=f"importance={claim.importance}",
                    )
                )
        return findings


_MAX_GAP = 3
_GAP = re.compile(rf"[\s.,;:]{{0,{_MAX_GAP}}}")
_GAP_CHARS = ".,;:"
"""The characters of a gap but whitespace."""
_SPACE_ONLY = re.compile(r"\s*")


_MAX_RUN = 256
"""Markers of one run considered after a claim; more than any claim cites, and a bound on
the work per claim however many markers an answer strings together."""


def _markers_after(
    markers: tuple[Marker, ...], starts: list[int], answer: str, position: int
) -> list[str]:
    """IDs of the run of markers right after ``position`` (a little punctuation allowed
    before the first, only whitespace between the next ones). ``starts`` holds the start of
    each marker, in order, so the run is found by bisection, not by a scan."""
    first = bisect.bisect_left(starts, position)
    if first == len(starts) or starts[first] > position + _MAX_GAP:
        return []  # no marker after the claim, or none within reach of the gap
    # The common gaps, none or one space before a marker that does not open with a gap
    # character, are known without the regex.
    cursor = starts[first]
    opener = answer[cursor : cursor + 1]
    if not (
        (cursor == position or (cursor == position + 1 and answer[position] == " "))
        and opener
        and not opener.isspace()
        and opener not in _GAP_CHARS
    ):
        gap = _GAP.match(answer, position)
        cursor = gap.end() if gap else position
    start, end, marker_ids = markers[first]
    if start != cursor or answer.startswith(":", end):
        return []  # no marker where the gap ends, or "[^1]: ..." defining a footnote
    ids = list(marker_ids)
    following = first + 1
    # The common end of a run: no marker after this one, or a gap to the next that does
    # not open with whitespace (as the loop below would find, without it).
    if following == len(starts) or (starts[following] != end and not answer[end].isspace()):
        return ids
    cursor = end
    for index in range(following, min(len(markers), first + _MAX_RUN)):
        start, end, marker_ids = markers[index]
        # After a marker, cursor < start: a gap that does not open with a space is no run
        # (the common end of a run), known without the regex.
        if start != cursor and not (
            ids
            and answer[cursor].isspace()
            and _SPACE_ONLY.fullmatch(answer, cursor, start) is not None
        ):
            break
        if answer.startswith(":", end):
            break  # "[^1]: ..." defines a footnote: it cites nothing after the claim
        ids.extend(marker_ids)
        cursor = end
    return ids


class CitationMismatchCheck:
    """A claim whose citation_ids disagree with the markers next to its text in the answer.

    Only claims whose text can be found in the answer (case and whitespace folded) are
    compared; the markers considered are the run of markers right after the claim text.
    A claim text is looked for after the previous claim's first, then before it: claims
    follow the answer's order, and so the answer is scanned about once per trace.
    """

    name: str = "citation_mismatch"
    codes: tuple[str, ...] = ("citation_mismatch",)

    def run(self, analysis: Analysis) -> list[Finding]:
        answer = analysis.trace.answer
        if not analysis.claims or not analysis.markers:
            return []
        folded, index_map = _fold_with_map(answer)
        starts = [marker.start for marker in analysis.markers]
        findings = []
        hint = 0
        for item in analysis.claims:
            needle = _needle(item.claim.text)
            if len(needle) < 8:
                continue
            # Claims mostly follow the answer's order: look after the previous match first,
            # so a trace whose claims are all in the answer is scanned about once.
            at = folded.find(needle, hint)
            if at < 0 and hint > 0:
                at = folded.find(needle, 0, hint + len(needle) - 1)
            if at < 0:
                continue
            hint = at + len(needle)
            last = at + len(needle) - 1
            claim_end = (index_map[last] if index_map is not None else last) + 1
            nearby = _markers_after(analysis.markers, starts, answer, claim_end)
            if not nearby:
                continue
            cited = item.claim.citation_ids
            if nearby != cited and set(nearby) != _resolved_cites(item):  # equal: common case
                findings.append(
                    Finding(
                        "citation_mismatch",
                        "warning",
                        claim_id=item.claim.id,
                        detail=f"markers={','.join(dict.fromkeys(nearby))}",
                    )
                )
        return findings


def _resolved_cites(item: ClaimAnalysis) -> set[str]:
    """The claim's citations as the markers' IDs are: resolved to the declared IDs, the
    unknown ones in canonical form."""
    return {*item.valid_ids, *[canonical(i) for i in item.invalid_ids]}


class CitationIdCaseCheck:
    """A citation (a marker in the answer or a claim's citation ID) that names a declared
    source only when case is ignored: resolved to that source, and reported, because the
    producer and the answer disagree on how the ID is written."""

    name: str = "citation_id_case"
    codes: tuple[str, ...] = ("citation_id_case",)

    def run(self, analysis: Analysis) -> list[Finding]:
        return [
            Finding(
                "citation_id_case",
                "info",
                claim_id=claim_id,
                source_id=source_id,
                detail="answer_marker" if claim_id is None else "claim_citation",
            )
            for claim_id, source_id in analysis.case_only
        ]


_OTHER_SPACE = bytes(
    ord("\t") if chr(byte).isspace() and byte != ord(" ") else byte for byte in range(128)
).ljust(256, b"\t")
"""Marks with a tab every ASCII character ``str.split`` splits on but the space (and every
non-ASCII byte, though only ASCII text is translated)."""


def _collapse_lower(text: str) -> str:
    """``" ".join(text.split()).lower()``; ASCII text already single-spaced (the common
    case) is only lower-cased, found by one translate instead of a split and a join (which
    pays on an answer, not on a claim's few words)."""
    if text.isascii():
        marked = text.encode("ascii").translate(_OTHER_SPACE)
        if (
            b"\t" not in marked
            and b"  " not in marked
            and not marked.startswith(b" ")
            and not marked.endswith(b" ")
        ):
            return text.lower()
    return " ".join(text.split()).lower()


def _needle(claim_text: str) -> str:
    """``" ".join(claim_text.rstrip(" .").split()).lower()``; printable ASCII without a
    double or leading space (the common case: its only whitespace is single spaces) is
    only lower-cased."""
    text = claim_text.rstrip(" .")
    if text.isascii() and text.isprintable() and "  " not in text and text[:1] != " ":
        return text.lower()
    return " ".join(text.split()).lower()


def _fold_with_map(text: str) -> tuple[str, list[int] | None]:
    """Lower-case, whitespace-collapsed text and a map from folded to original indices.

    The map is None when folding kept every index (the common case: single spaces).
    """
    folded = _collapse_lower(text)
    if len(folded) == len(text):
        return folded, None
    out: list[str] = []
    index: list[int] = []
    previous_space = False
    for i, ch in enumerate(text):
        if ch.isspace():
            if previous_space:
                continue
            out.append(" ")
            index.append(i)
            previous_space = True
        else:
            lowered = ch.lower()
            out.extend(lowered)
            index.extend([i] * len(lowered))
            previous_space = False
    return "".join(out), index


class PrescreenCheck:
    """Numbers or negations in a cited claim that none of its cited passages contain."""

    name: str = "prescreen"
    codes: tuple[str, ...] = ("prescreen_flag",)

    def run(self, analysis: Analysis) -> list[Finding]:
        return [
            Finding(
                "prescreen_flag", "info", claim_id=item.claim.id, detail=",".join(item.prescreen)
            )
            for item in analysis.claims
            if item.prescreen
        ]


class SourceUsageCheck:
    """Sources cited by nothing, and sources with empty text."""

    name: str = "sources"
    codes: tuple[str, ...] = ("uncited_source", "empty_source")

    def run(self, analysis: Analysis) -> list[Finding]:
        cited = set(analysis.marker_ids)
        for item in analysis.claims:
            cited.update(item.valid_ids)
        findings = []
        for source in analysis.trace.sources:
            if not source.text or source.text.isspace():  # blank, without a stripped copy
                findings.append(Finding("empty_source", "warning", source_id=source.id))
            if source.id not in cited:
                findings.append(Finding("uncited_source", "info", source_id=source.id))
        return findings


def default_checks() -> list[Check]:
    """The checks `citewatch check` and `citewatch run` apply to every trace."""
    return [
        NoClaimsCheck(),
        MarkerCheck(),
        ClaimCitationCheck(),
        CitationMismatchCheck(),
        CitationIdCaseCheck(),
        PrescreenCheck(),
        SourceUsageCheck(),
        InjectionCheck(),
        CitedTextCheck(),
        AdapterFindingsCheck(),
    ]
