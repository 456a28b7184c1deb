"""One pass over a trace that every check and the scorer read from."""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import chain
from operator import itemgetter
from typing import NamedTuple

from schemas import Claim, ClaimStatus, Trace
from sidecar.checks.markers import IdResolver, Marker, MarkerParser, Scan
from sidecar.checks.prescreen import PassageFacts, has_negation, prescreen_flags

__all__ = ["Analysis", "ClaimAnalysis", "ClaimStatus", "analyse"]

_IDS = itemgetter(2)
"""A marker's IDs (``Marker.ids``), read in C."""
_new_tuple = tuple.__new__
_NOT_DIGITS = bytes(b for b in range(256) if not (48 <= b <= 57 or b == 10))
"""Every byte but the ASCII digits and the line break."""


class ClaimAnalysis(NamedTuple):
    """The deterministic view of one claim."""

    claim: Claim
    status: ClaimStatus
    valid_ids: tuple[str, ...]
    invalid_ids: tuple[str, ...]
    prescreen: tuple[str, ...]
    unmarked: str | None = None
    """The claim's text without the citation markers it was sent with; None when it has
    none."""

    @property
    def text(self) -> str:
        """The claim's text as the screen and the quote checks read it: without citation
        markers (the record keeps the text as sent)."""
        return self.claim.text if self.unmarked is None else self.unmarked

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

    parser: MarkerParser | None = None
    """The parser the markers were read with (claims' own markers are read again in the
    redacted text)."""

    def with_trace(self, trace: Trace) -> Analysis:
        """The same analysis over another version of the trace (the redacted one, its
        claims and sources in the same order), so that stages after redaction never reach
        the raw claim texts through ``claims``, and every ID the redaction hashed is its
        hashed form everywhere (citations, markers, source IDs): a hashed source is one
        key, judged like any other."""
        ids = _renamed_ids(self.trace, trace)
        new_ids = frozenset(source.id for source in trace.sources)
        resolver = IdResolver(new_ids)
        claims = []
        for item, claim in zip(self.claims, trace.claims, strict=True):
            unmarked = item.unmarked
            if unmarked is not None and claim is not item.claim and self.parser is not None:
                unmarked = self.parser.unmarked(claim.text, resolver)
            if ids:
                item = item._replace(
                    valid_ids=_renamed(item.valid_ids, ids),
                    invalid_ids=_renamed(item.invalid_ids, ids),
                )
            claims.append(item._replace(claim=claim, unmarked=unmarked))
        if not ids:
            return replace(self, trace=trace, claims=tuple(claims))
        return replace(
            self,
            trace=trace,
            claims=tuple(claims),
            markers=tuple(m._replace(ids=_renamed(m.ids, ids)) for m in self.markers),
            marker_ids=_renamed(self.marker_ids, ids),
            source_ids=new_ids,
            invalid_marker_ids=_renamed(self.invalid_marker_ids, ids),
            case_only=tuple((c and ids.get(c, c), ids.get(s, s)) for c, s in self.case_only),
        )

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
    seen = dict.fromkeys(chain.from_iterable(map(_IDS, markers)))
    case_only: list[tuple[str | None, str]] = [(None, source_id) for source_id in scan.case_only]
    facts: dict[str, PassageFacts] = {}
    # Most traces have no negation word in any claim: one scan of all claims (a word never
    # spans the line break) spares one per claim.
    claim_texts = [claim.text for claim in trace.claims]
    joined = "\n".join(claim_texts)
    negated = None if has_negation(joined) else False
    # Most claims are sent without markers: then one search of all claims.
    unmarked_texts, read = parser.unmarked_joined(claim_texts, resolver, joined=joined)
    if negated is False:
        numbered = _numbered(joined, claim_texts, unmarked_texts, read)
    else:
        numbered = None
    claims = []
    for index, (claim, unmarked) in enumerate(zip(trace.claims, unmarked_texts, strict=True)):
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
        elif numbered is not None and not numbered[index]:
            # No number and no negation word: nothing for the pre-screen to flag.
            status = "cited"
        else:
            status = "cited"
            passages = []
            for source_id in valid:
                fact = facts.get(source_id)
                if fact is None:
                    # Computed at most once per source and trace, and only when cited.
                    fact = facts[source_id] = PassageFacts(texts[source_id])
                passages.append(fact)
            flags = prescreen_flags(
                claim.text if unmarked is None else unmarked, passages, negated=negated
            )
        claims.append(_new_tuple(ClaimAnalysis, (claim, status, valid, invalid, flags, unmarked)))
    unknown = scan.unknown
    invalid_markers = tuple([i for i in seen if i in unknown]) if unknown else ()
    return Analysis(
        trace,
        markers,
        tuple(seen),
        source_ids,
        tuple(claims),
        invalid_markers,
        tuple(case_only),
        parser,
    )


def _numbered(
    joined: str, texts: list[str], unmarked: list[str | None], read: str | None
) -> list[bytes] | None:
    """For each claim (its ``texts`` ``joined`` by line breaks, ``unmarked``: each one's
    text without markers, or None; ``read``: the texts the pre-screen reads joined, when
    known), the ASCII digits of the text the pre-screen reads (empty: it holds no number);
    None when that text is not ASCII or a claim holds a line break."""
    if read is not None:
        joined = read
    elif any(text is not None for text in unmarked):
        joined = "\n".join(
            [text if kept is None else kept for text, kept in zip(texts, unmarked, strict=True)]
        )
    if not joined.isascii():
        return None
    digits = joined.encode("ascii").translate(None, _NOT_DIGITS).split(b"\n")
    return digits if len(digits) == len(texts) else None


def _renamed_ids(raw: Trace, redacted: Trace) -> dict[str, str]:
    """Each source, claim and citation ID of ``raw`` that ``redacted`` writes otherwise
    (hashed by the redaction), mapped to its redacted form."""
    ids = {a.id: b.id for a, b in zip(raw.sources, redacted.sources, strict=True) if a.id != b.id}
    for old, new in zip(raw.claims, redacted.claims, strict=True):
        if old is new:
            continue
        if old.id != new.id:
            ids[old.id] = new.id
        for a, b in zip(old.citation_ids, new.citation_ids, strict=True):
            if a != b:
                ids[a] = b
    return ids


def _renamed(values: tuple[str, ...], ids: dict[str, str]) -> tuple[str, ...]:
    return tuple([ids.get(value, value) for value in values])


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
