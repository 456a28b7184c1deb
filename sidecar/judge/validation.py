"""Checks a judge reply against its request before any verdict is scored.

- Exactly one verdict per requested claim_id (or, from the offline screen, one abstention):
  a missing, extra or duplicate ID makes the whole reply a judge error of kind
  ``id_mismatch`` (never silently scored).
- For supported and partial, the evidence quote must be evidence for that claim (the
  :class:`QuoteRule`: at least ``judge.quote_min_chars`` characters, or a whole cited
  passage, carrying at least ``judge.quote_min_content_words`` of the claim's content
  words, or all of them when it has fewer) and occur in one of the claim's cited passages
  after whitespace and Unicode normalisation, outside every span flagged as text addressed
  to a model (:mod:`sidecar.checks.injection`); otherwise the verdict becomes unsupported
  with ``quote_not_found`` (a refused quote too, its reason saying why) or
  ``quote_in_injection``.

Content words are read as the offline screen reads them (:mod:`sidecar.judge._screen_text`):
words that are not function words (``the``, ``of``, ``is``) as lemmas and concepts
(``refunds`` and ``refund``, ``long`` and ``length``), quantities by dimension and value
(``2 metres`` and ``200 cm``, ``twelve months`` and ``1 year``), and text without spaces
between words (Chinese, Japanese, Thai) by pairs of characters.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from schemas import JudgeResult, JudgeVerdict, ResolvedBy
from sidecar.checks.injection import outside_injections
from sidecar.checks.prescreen import normalise
from sidecar.config import JudgeSettings
from sidecar.errors import JudgeError
from sidecar.judge._screen_text import prepare
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage, unmark
from sidecar.scoring import ClaimVerdict

__all__ = [
    "DEFAULT_QUOTE_RULE",
    "PassageIndex",
    "QuoteRule",
    "QuoteStatus",
    "check_verdict",
    "content_words",
    "quote_found",
    "quote_refusal",
    "quote_status",
    "validate_reply",
]

_QUOTE_EDGES = " \t\n\"'`\u201c\u201d\u2018\u2019"

_SENTENCE_END = ".!?;:,\u3002\uff01\uff1f"

QuoteStatus = Literal["found", "not_found", "in_injection"]

# Scripts written without spaces between words: a word there is a phrase, read as
# overlapping pairs of characters.
_UNSPACED = frozenset().union(
    *(
        map(chr, range(lo, hi + 1))
        for lo, hi in (
            (0x0E00, 0x0E7F),
            (0x3040, 0x30FF),
            (0x3400, 0x4DBF),
            (0x4E00, 0x9FFF),
            (0xF900, 0xFAFF),
        )
    )
)


@dataclass(frozen=True, slots=True)
class QuoteRule:
    """What makes an evidence quote evidence for its claim, before it is looked up."""

    min_chars: int
    """Characters of the normalised quote (a wide character counting two), unless it is a
    whole cited passage."""
    min_content_words: int
    """Of the claim's content words the quote must carry (all of them if fewer)."""

    @classmethod
    def from_settings(cls, settings: JudgeSettings) -> QuoteRule:
        """The rule ``judge.quote_min_chars`` and ``judge.quote_min_content_words`` set."""
        return cls(
            min_chars=settings.quote_min_chars, min_content_words=settings.quote_min_content_words
        )


DEFAULT_QUOTE_RULE = QuoteRule.from_settings(JudgeSettings())
"""The rule of the default settings."""


def content_words(text: str) -> frozenset[str]:
    """The content words of ``text`` as compared keys: the screen's content keys (lemmas and
    concepts of the words that are not function words), each quantity as its dimension and
    value in the base unit, and pairs of characters of unspaced scripts."""
    prepared = prepare(text)
    words = {f"{q.dim}={q.value:g}" for q in prepared.quantities}
    for key in prepared.units():
        if _UNSPACED.isdisjoint(key):
            words.add(key)
        else:
            words.update(key[i : i + 2] for i in range(max(1, len(key) - 1)))
    return frozenset(words)


class PassageIndex:
    """Each cited passage normalised once, whole and outside its flagged spans, however many
    claims of a packet cite it (passage IDs are unique within a trace)."""

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._outside: dict[str, list[str]] = {}

    def get(self, passage: Passage) -> tuple[str, tuple[str, ...]]:
        """The passage normalised whole, and each part outside flagged spans normalised."""
        found = self._seen.get(passage.passage_id)
        if found is None:
            parts = tuple(normalise(part) for part in self.outside(passage))
            found = self._seen[passage.passage_id] = (normalise(unmark(passage.text)), parts)
        return found

    def outside(self, passage: Passage) -> list[str]:
        """The passage's text outside every flagged span, in parts (one part when none is)."""
        found = self._outside.get(passage.passage_id)
        if found is None:
            found = self._outside[passage.passage_id] = outside_injections(unmark(passage.text))
        return found

    def flagged(self, passage: Passage) -> bool:
        """Whether part of the passage is flagged as addressed to a model."""
        text = unmark(passage.text)
        return bool(text) and self.outside(passage) != [text]


def _width(text: str) -> int:
    """Characters of ``text``, a wide character (Chinese, Japanese, Korean; each about a
    word) counting two."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if unicodedata.east_asian_width(c) in "WF")


def _needle(quote: str) -> str:
    """The quote as it is looked up and measured (datamarks read as spaces)."""
    return normalise(unmark(quote).strip(_QUOTE_EDGES))


def quote_status(quote: str, claim: ClaimRequest, index: PassageIndex | None = None) -> QuoteStatus:
    """Where a quote stands against the claim's cited passages: found outside every flagged
    span, found only inside a flagged span, or not found (an empty quote is not found)."""
    needle = _needle(quote)
    if not needle:
        return "not_found"
    index = index if index is not None else PassageIndex()
    inside = False
    for passage in claim.passages:
        whole, outside = index.get(passage)
        if needle not in whole:
            continue
        if any(needle in part for part in outside):
            return "found"
        inside = True
    return "in_injection" if inside else "not_found"


def quote_refusal(
    quote: str,
    claim: ClaimRequest,
    rule: QuoteRule = DEFAULT_QUOTE_RULE,
    index: PassageIndex | None = None,
) -> str | None:
    """Why ``quote`` cannot be the evidence of ``claim`` whatever the passages say (too short,
    or without enough of the claim's content words), or None when the rule accepts it."""
    needle = _needle(quote)
    if not needle:
        return None  # an empty quote is simply not found
    if _width(needle) < rule.min_chars:
        index = index if index is not None else PassageIndex()
        bare = needle.rstrip(_SENTENCE_END)
        if not any(
            bare == index.get(passage)[0].strip(_QUOTE_EDGES).rstrip(_SENTENCE_END)
            for passage in claim.passages
        ):
            return (
                f"evidence quote of {len(needle)} characters, under the "
                f"{rule.min_chars} an evidence quote needs"
            )
    wanted = content_words(claim.text)
    need = min(rule.min_content_words, len(wanted))
    carried = len(wanted & content_words(needle))
    if carried < need:
        return (
            f"evidence quote carries {carried} of the claim's content words, "
            f"under the {need} an evidence quote needs"
        )
    return None


def quote_found(quote: str, claim: ClaimRequest) -> bool:
    """Whether a non-empty ``quote`` occurs in one of the claim's cited passages, outside
    every span flagged as addressed to a model."""
    return quote_status(quote, claim) == "found"


def check_verdict(
    claim: ClaimRequest,
    verdict: JudgeVerdict,
    *,
    resolved_by: ResolvedBy = "llm",
    index: PassageIndex | None = None,
    rule: QuoteRule = DEFAULT_QUOTE_RULE,
) -> ClaimVerdict:
    """One verdict after the quote check (``index`` shares passage work across claims).

    A supported or partial verdict whose quote the ``rule`` refuses becomes unsupported with
    ``quote_not_found``, as a quote found in no cited passage does, its reason saying why.
    """
    if verdict.verdict in ("supported", "partial"):
        refused = quote_refusal(verdict.evidence_quote, claim, rule, index)
        if refused is not None:
            return ClaimVerdict(
                verdict="unsupported",
                reason=f"{refused} (judge said {verdict.verdict}): {verdict.reason}",
                evidence_quote=verdict.evidence_quote,
                quote_not_found=True,
                resolved_by=resolved_by,
            )
        status = quote_status(verdict.evidence_quote, claim, index)
        if status != "found":
            where = (
                "only inside text addressed to a model"
                if status == "in_injection"
                else "not found in the cited passages"
            )
            return ClaimVerdict(
                verdict="unsupported",
                reason=f"evidence quote {where} (judge said {verdict.verdict}): {verdict.reason}",
                evidence_quote=verdict.evidence_quote,
                quote_not_found=status == "not_found",
                quote_in_injection=status == "in_injection",
                resolved_by=resolved_by,
            )
    return ClaimVerdict(
        verdict=verdict.verdict,
        reason=verdict.reason,
        evidence_quote=verdict.evidence_quote,
        resolved_by=resolved_by,
    )


def validate_reply(
    packet: JudgePacket,
    result: JudgeResult,
    *,
    abstained: Collection[str] = (),
    resolved_by: ResolvedBy = "llm",
    rule: QuoteRule = DEFAULT_QUOTE_RULE,
) -> dict[str, ClaimVerdict]:
    """Checked verdicts by claim_id; ``abstained`` are the claim IDs the backend declined to
    judge (only the offline screen does); every supported or partial quote is held to
    ``rule``. Raises :class:`JudgeError` (kind ``id_mismatch``)."""
    requested = set(packet.claim_ids)
    counts = Counter(v.claim_id for v in result.verdicts)
    counts.update(abstained)
    missing = requested - set(counts)
    extra = set(counts) - requested
    duplicated = {claim_id for claim_id, n in counts.items() if n > 1}
    if missing or extra or duplicated:
        raise JudgeError(
            f"judge reply ids do not match the request: {len(missing)} missing, "
            f"{len(extra)} extra, {len(duplicated)} duplicated",
            kind="id_mismatch",
        )
    checked: dict[str, ClaimVerdict] = {}
    index = PassageIndex()
    for verdict in result.verdicts:
        claim = packet.claim(verdict.claim_id)
        assert claim is not None  # every ID was just matched against the request
        checked[verdict.claim_id] = check_verdict(
            claim, verdict, resolved_by=resolved_by, index=index, rule=rule
        )
    return checked
