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
text, the cache bounded in bytes), and a claim looks up only its own content keys, in a
bounded number of the passage's sentences.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from threading import Lock

from schemas import VerdictLabel
from sidecar.judge._screen_align import Clause, ClauseResult, judge_clause, split_clauses
from sidecar.judge._screen_binding import claim_names, claim_pronoun, unnamed_referent
from sidecar.judge._screen_links import pro_verb
from sidecar.judge._screen_roles import states_something
from sidecar.judge._screen_text import Prepared, prepare

__all__ = [
    "DEFAULT_CACHE_BYTES",
    "PreparedPassage",
    "ScreenVerdict",
    "clear_passage_cache",
    "find_support",
    "passage_cache_bytes",
    "prepare_passage",
    "screen_claim",
    "set_passage_cache_bytes",
]

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


DEFAULT_CACHE_BYTES = 160 * 2**20
"""The passage cache's default bound: one record of the largest accepted size
(``limits.max_record_bytes``, 1 MiB of text) prepared takes 90-140 MB (encyclopedic to
number-dense text), so every trace's passages are prepared once, inside a 512Mi pod with
room for the rest."""


class _PassageCache:
    """Prepared passages by text, least recently used first out, bounded in bytes (each
    entry's estimated size, ``Prepared.nbytes``)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self._entries: OrderedDict[str, PreparedPassage] = OrderedDict()
        self._lock = Lock()

    def get(self, text: str) -> PreparedPassage:
        with self._lock:
            found = self._entries.get(text)
            if found is not None:
                self._entries.move_to_end(text)
                return found
        prepared = prepare(text)
        size = prepared.nbytes()
        if size > self.max_bytes:
            return prepared
        with self._lock:
            if text not in self._entries:
                self._entries[text] = prepared
                self.bytes += size
            self._trim()
        return prepared

    def bound(self, max_bytes: int) -> None:
        with self._lock:
            self.max_bytes = max_bytes
            self._trim()

    def _trim(self) -> None:
        while self.bytes > self.max_bytes and self._entries:
            _, old = self._entries.popitem(last=False)
            self.bytes -= old.nbytes()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._entries)


_CACHE = _PassageCache(DEFAULT_CACHE_BYTES)


def prepare_passage(text: str) -> PreparedPassage:
    """``text`` prepared for the screen; recent passages are cached (bounded in bytes), so a
    trace's passages are prepared once however many claims cite them."""
    return _CACHE.get(text)


def set_passage_cache_bytes(max_bytes: int) -> None:
    """Bound the passage cache to ``max_bytes`` (estimated); 0 turns it off."""
    _CACHE.bound(max(0, max_bytes))


def passage_cache_bytes() -> tuple[int, int]:
    """The passage cache's estimated size in bytes and its bound."""
    return _CACHE.bytes, _CACHE.max_bytes


def clear_passage_cache() -> None:
    """Forget the prepared passages (benchmarks measure preparation with it)."""
    _CACHE.clear()


def _as_prepared(passage: str | PreparedPassage) -> PreparedPassage:
    return passage if isinstance(passage, Prepared) else prepare_passage(passage)


def screen_claim(claim_text: str, passages: Sequence[str | PreparedPassage]) -> ScreenVerdict:
    """The screen's verdict on ``claim_text`` against its cited ``passages``; never raises
    on any text."""
    prepared = [_as_prepared(p) for p in passages if isinstance(p, Prepared) or p.strip()]
    if not prepared:
        return ScreenVerdict(None, "abstained: no cited passage text")
    clauses = _clauses_of(claim_text)
    if isinstance(clauses, ScreenVerdict):
        return clauses
    found = _combine(clauses, [judge_clause(c, prepared) for c in clauses])
    if found.verdict in ("partial", "unsupported") and _sentence_count(claim_text) > 1:
        # Across the sentences of a claim the clauses align with the wrong sentences of
        # the passage: on the public sets' dev splits none of these partials and few of
        # these conflicts were right. Only "every part found" stands for such a claim.
        return ScreenVerdict(
            None,
            "abstained: a claim of several sentences is found "
            "supported or not judged, never partial or in conflict",
        )
    return found


def _clauses_of(claim_text: str) -> list[Clause] | ScreenVerdict:
    """The claim's clauses, prepared once whatever it is screened against, or why the
    screen abstains on it whatever the passages say."""
    if len(claim_text) > _MAX_CLAIM_CHARS:
        return ScreenVerdict(None, "abstained: claim too long to align")
    unstated = _unstated(claim_text)
    if unstated:
        return ScreenVerdict(None, unstated)
    claim = prepare(claim_text)
    if claim.tokens and not states_something(claim.tokens, claim.text):
        return ScreenVerdict(
            None, "abstained: the claim names something and states nothing about it"
        )
    clauses = split_clauses(claim)
    if sum(len(c.units) + len(c.quantities) for c in clauses) > _MAX_CLAIM_UNITS:
        return ScreenVerdict(None, "abstained: claim too long to align")
    if not clauses or all(len(c.units) + len(c.quantities) < 2 for c in clauses):
        return ScreenVerdict(None, "abstained: claim has too little content to match")
    if any(c.hedged for c in clauses):
        # a hedge ("usually", "may") qualifies the whole claim, not only its own clause
        clauses = [replace(c, hedged=True) for c in clauses]
    names = claim_names(claim_text)
    if names:
        clauses = [replace(c, names=names) for c in clauses]
    if unnamed_referent(claim_text):
        pronoun = claim_pronoun(claim_text)
        clauses = [replace(c, unnamed=True, pronoun=pronoun) for c in clauses]
    return clauses


_ANSWER = re.compile(r"\W*(?:(?:yes|yeah|yep)\b|(?:no|nope)\s*[,.!;:])", re.IGNORECASE)
# "I" as a pronoun, not a numeral ("Charles I", "World War I"): lower-case "i", "I'm",
# "I" opening a sentence or clause, or "I" before a verb people say of themselves
_FIRST_PERSON = re.compile(
    r"\bi\b|\bI'(?:m|ve|d|ll)\b|(?:^|[.!?,;:]\s*)I\b|\b(?i:me|my|myself)\b"
    r"|\bI (?:am|don't|think|love|like|know|really|believe|feel|agree|want|hope|enjoy"
    r"|prefer|guess)\b"
)


# A sentence end inside a claim: ".", "!" or "?" before more text, except after an
# abbreviation ("U.S.", "e.g.", "Dr.") or an initial.
_CLAIM_SENTENCE_END = re.compile(r"[.!?]+\s+(?=\S)")
_ABBREVIATION = re.compile(
    r"(?:\b[A-Za-z]\.){1,3}$|\b(?:mr|mrs|ms|dr|prof|st|jr|sr|vs|etc|no|inc|ltd|co|corp|"
    r"approx|fig|ref|vol|pp|art|sec|ch)\.$",
    re.IGNORECASE,
)


def _sentence_count(text: str) -> int:
    """How many sentences ``text`` holds (one when it has no inner sentence end)."""
    text = text.strip()
    return 1 + sum(
        1
        for m in _CLAIM_SENTENCE_END.finditer(text)
        if not _ABBREVIATION.search(text[: m.start() + 1])
    )


def _unstated(text: str) -> str:
    """Why the claim's meaning depends on what it does not state, or "" when it does not: a
    "yes" or "no" answers a question the screen does not see (so "No, ..." is no
    negation), a question states nothing, what the speaker says of themselves is not in
    any passage, and "they can do that" names no action to look for."""
    if _ANSWER.match(text):
        return "abstained: the claim answers a question it does not state"
    if "?" in text:
        return "abstained: the claim asks a question"
    if _FIRST_PERSON.search(text):
        return "abstained: the claim speaks of its speaker"
    if pro_verb(text):
        return "abstained: the claim stands in 'do that' for an action it does not state"
    return ""


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
            "partial",
            f"partial: {len(found)} of {len(results)} clauses found, the rest absent",
            found[0].quote,
        )
    held = next((r for r in results if r.outcome not in ("found", "absent")), results[0])
    return ScreenVerdict(None, held.reason)


def find_support(
    claim_text: str, sources: Sequence[tuple[str, str | PreparedPassage]]
) -> str | None:
    """The ID of the first of ``sources`` (id, text) that the screen says supports the claim
    (the claim is prepared once, not once per source)."""
    clauses = _clauses_of(claim_text)
    if isinstance(clauses, ScreenVerdict):
        return None
    for source_id, text in sources:
        if not isinstance(text, Prepared) and not text.strip():
            continue
        found = _combine(clauses, [judge_clause(c, [_as_prepared(text)]) for c in clauses])
        if found.verdict == "supported":
            return source_id
    return None
