"""The offline screen: a verdict only when it is sure, otherwise none.

It judges one claim against the text of the passages the claim cites, looking for the
claim's content in a window of up to three neighbouring sentences of one passage (so a
claim may draw on several sentences). Texts are normalised first (case, punctuation,
number words and digits, common unit conversions, lemmas, curated equivalences; see
``_lexicon.py``). The claim is split into clauses at conjunctions and conditions, and each
clause is aligned on its own.

- ``supported``: every clause's content words and quantities are found, with the same
  polarity, no hedge or superseded-policy wording in the matched text that the claim lacks,
  no comparator on a matched number that the claim lacks, and the roles around a relation
  word ("A acquired B") in the same order.
- ``unsupported``: a clause is aligned (most of its content found) and the matched text
  conflicts with it: another number, date or quantity of the same kind; the claimed word
  negated there (or the reverse); an antonym or opposite direction in its place; the two
  roles of a relation swapped.
- ``partial``: one clause is supported and another is absent (little of it found, no
  conflict), as in "within 30 days" cited for "within 30 days when usage is below 100
  requests".
- Otherwise it abstains (``verdict`` None): the claim is reported as not judged, never
  scored 0 and never critical.

Cost is linear in the claim and the cited text: each passage is prepared once (cached by
text), and a claim looks up only its own content keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from schemas import VerdictLabel
from sidecar.judge._screen_align import Clause, ClauseResult, judge_clause, split_clauses
from sidecar.judge._screen_text import Prepared, prepare

__all__ = ["PreparedPassage", "ScreenVerdict", "clear_passage_cache", "find_support",
           "prepare_passage", "screen_claim"]

PreparedPassage = Prepared
"""A passage normalised once; pass it instead of its text to skip preparing it again."""

_MAX_CLAIM_CHARS = 2000
_MAX_CLAIM_UNITS = 48


@dataclass(frozen=True, slots=True)
class ScreenVerdict:
    """The screen's conclusion on one claim.

    ``verdict`` None means it abstained. ``reason`` is a short code and explanation (no trace
    text). ``evidence_quote`` is a verbatim span of one cited passage for supported and
    partial, empty otherwise.
    """

    verdict: VerdictLabel | None
    reason: str
    evidence_quote: str = ""


_CACHED_CHARS = 50_000   # longer passages are prepared each time rather than held


@lru_cache(maxsize=256)
def _prepare_cached(text: str) -> PreparedPassage:
    return prepare(text)


def prepare_passage(text: str) -> PreparedPassage:
    """``text`` prepared for the screen; recent passages are cached, so a trace's passages
    are prepared once however many claims cite them."""
    return _prepare_cached(text) if len(text) <= _CACHED_CHARS else prepare(text)


def clear_passage_cache() -> None:
    """Forget the prepared passages (benchmarks measure preparation with it)."""
    _prepare_cached.cache_clear()


def _as_prepared(passage: str | PreparedPassage) -> PreparedPassage:
    return passage if isinstance(passage, Prepared) else prepare_passage(passage)


def screen_claim(claim_text: str, passages: Sequence[str | PreparedPassage]) -> ScreenVerdict:
    """The screen's verdict on ``claim_text`` against its cited ``passages``; never raises
    on any text."""
    prepared = [_as_prepared(p) for p in passages if isinstance(p, Prepared) or p.strip()]
    if not prepared:
        return ScreenVerdict(None, "abstained: no cited passage text")
    if len(claim_text) > _MAX_CLAIM_CHARS:
        return ScreenVerdict(None, "abstained: claim too long to align")
    claim = prepare(claim_text)
    clauses = split_clauses(claim)
    if sum(len(c.units) + len(c.quantities) for c in clauses) > _MAX_CLAIM_UNITS:
        return ScreenVerdict(None, "abstained: claim too long to align")
    if not clauses or all(len(c.units) + len(c.quantities) < 2 for c in clauses):
        return ScreenVerdict(None, "abstained: claim has too little content to match")
    if any(c.hedged for c in clauses):
        # a hedge ("usually", "may") qualifies the whole claim, not only its own clause
        clauses = [replace(c, hedged=True) for c in clauses]
    results = [judge_clause(c, prepared) for c in clauses]
    return _combine(clauses, results)


def _combine(clauses: Sequence[Clause], results: Sequence[ClauseResult]) -> ScreenVerdict:
    for result in results:
        if result.outcome == "conflict":
            return ScreenVerdict("unsupported", result.reason)
    found = [r for r in results if r.outcome == "found"]
    if len(found) == len(results):
        return ScreenVerdict("supported", found[0].reason, found[0].quote)
    absent = [r for r in results if r.outcome == "absent"]
    if found and len(found) + len(absent) == len(results):
        return ScreenVerdict(
            "partial", f"partial: {len(found)} of {len(results)} clauses found, the rest absent",
            found[0].quote)
    held = next((r for r in results if r.outcome not in ("found", "absent")), results[0])
    return ScreenVerdict(None, held.reason)


def find_support(
    claim_text: str, sources: Sequence[tuple[str, str | PreparedPassage]]
) -> str | None:
    """The ID of the first of ``sources`` (id, text) that the screen says supports the claim."""
    for source_id, text in sources:
        if screen_claim(claim_text, [text]).verdict == "supported":
            return source_id
    return None
