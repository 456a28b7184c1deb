"""One pass over a trace that every check and the scorer read from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from schemas import Claim, ClaimStatus, Trace
from sidecar.checks.markers import IdResolver, Marker, MarkerParser, Scan
from sidecar.checks.prescreen import PassageFacts, has_negation, prescreen_flags

__all__ = ["Analysis", "ClaimAnalysis", "ClaimStatus", "analyse"]


class ClaimAnalysis(NamedTuple):
    """The deterministic view of one claim."""

    claim: Claim
    status: ClaimStatus
    valid_ids: tuple[str, ...]
    invalid_ids: tuple[str, ...]
    prescreen: tuple[str, ...]

    @property
    def needs_judge(self) -> bool:
        """A factual claim citing at least one known source: only a judge can score it."""
        return self.status == "cited"


@dataclass(frozen=True, slots=True)
class Analysis:
    """Markers, known sources and per-claim status of one trace."""

    trace: Trace
    markers: tuple[Marker, ...]
    marker_ids: tuple[str, ...]
    source_ids: frozenset[str]
    claims: tuple[ClaimAnalysis, ...]
    invalid_marker_ids: tuple[str, ...]
    """Marker IDs in the answer that resolve to no source, first-seen order (computed once
    here for the marker check and the scorer alike)."""
    case_only: tuple[tuple[str | None, str], ...] = ()
    """``(claim ID, source ID)`` for each citation that names a declared source only when
    case is ignored; the claim ID is None for a marker in the answer."""

    def with_trace(self, trace: Trace) -> Analysis:
        """The same analysis over another version of the trace (the redacted one), so that
        stages after redaction never reach the raw claim texts through ``claims``."""
        by_id = {claim.id: claim for claim in trace.claims}
        claims = tuple(
            item._replace(claim=by_id.get(item.claim.id, item.claim)) for item in self.claims
        )
        return replace(self, trace=trace, claims=claims)

    def claim(self, claim_id: str) -> ClaimAnalysis | None:
        """The analysis of one claim, or None for an unknown ID."""
        for item in self.claims:
            if item.claim.id == claim_id:
                return item
        return None


def analyse(
    trace: Trace,
    parser: MarkerParser,
    *,
    resolver: IdResolver | None = None,
    scan: Scan | None = None,
) -> Analysis:
    """Parse markers, resolve citations and pre-screen every claim of ``trace``; with
    ``resolver`` and ``scan`` (:func:`sidecar.checks.numbering.number`), the answer's
    markers as that step resolved them."""
    texts = {source.id: source.text for source in trace.sources}
    source_ids = frozenset(texts)
    if resolver is None or scan is None:
        resolver = IdResolver(source_ids)
        scan = parser.scan(trace.answer, resolver)
    markers = tuple(scan.markers)
    seen = dict.fromkeys([marker_id for marker in markers for marker_id in marker.ids])
    case_only: list[tuple[str | None, str]] = [(None, source_id) for source_id in scan.case_only]
    facts: dict[str, PassageFacts] = {}
    # Most traces have no negation word in any claim: one scan of all claims (a word never
    # spans the line break) spares one per claim.
    negated = None if has_negation("\n".join([claim.text for claim in trace.claims])) else False
    claims = []
    for claim in trace.claims:
        cited = claim.citation_ids
        if len(cited) > 1:
            cited = list(dict.fromkeys(cited))
        valid: tuple[str, ...]
        invalid: tuple[str, ...] = ()
        if source_ids.issuperset(cited):  # the common case, one C call
            valid = tuple(cited)
        else:
            valid, invalid = _resolve_cited(cited, resolver, claim.id, case_only)
        status: ClaimStatus
        flags: tuple[str, ...] = ()
        if claim.kind != "factual":
            status = "not_factual"
        elif not cited:
            status = "uncited"
        elif not valid:
            status = "invalid_citation"
        else:
            status = "cited"
            passages = []
            for source_id in valid:
                fact = facts.get(source_id)
                if fact is None:
                    # Computed at most once per source and trace, and only when cited.
                    fact = facts[source_id] = PassageFacts(texts[source_id])
                passages.append(fact)
            flags = prescreen_flags(claim.text, passages, negated=negated)
        claims.append(ClaimAnalysis(claim, status, valid, invalid, flags))
    unknown = scan.unknown
    invalid_markers = tuple([i for i in seen if i in unknown]) if unknown else ()
    return Analysis(
        trace, markers, tuple(seen), source_ids, tuple(claims), invalid_markers, tuple(case_only)
    )


def _resolve_cited(
    cited: list[str],
    resolver: IdResolver,
    claim_id: str,
    case_only: list[tuple[str | None, str]],
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A claim's citation IDs resolved to declared ones (written otherwise than declared:
    format characters, another normal form, another case), and those resolving to none,
    as written."""
    valid: dict[str, None] = {}
    invalid = []
    for written in cited:
        source_id, how = resolver.resolve(written)
        if how is None:
            invalid.append(written)
            continue
        if how == "case":
            case_only.append((claim_id, source_id))
        valid.setdefault(source_id, None)
    return tuple(valid), tuple(invalid)
