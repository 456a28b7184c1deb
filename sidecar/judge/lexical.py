"""The offline lexical judge: no network, built on the deterministic pre-screen.

For each claim it finds the sentence of its cited passages that best covers the claim's
content words, then compares numbers and negation between the two. It returns the same typed
verdicts as an LLM judge, with the matched sentence as the evidence quote, and is always
labelled judge="lexical" so its series never mix with an LLM judge's.

Rules, per claim (best sentence over all its cited passages):
- a negation in one of claim and sentence but not the other: unsupported;
- a number of the claim missing from the sentence while the sentence has another number
  (same entities, another quantity): unsupported;
- coverage of the claim's content words >= ``supported_at`` and every number matched: supported;
- coverage >= ``partial_at`` (or supported coverage with an unmatched number): partial;
- otherwise unsupported.
"""

from __future__ import annotations

import re

from schemas import JudgeResult, JudgeVerdict, VerdictLabel
from sidecar.checks.prescreen import has_negation, normalise, numbers_in
from sidecar.judge.backend import BackendReply
from sidecar.judge.packet import ClaimRequest, JudgePacket
from sidecar.judge.rubric import Rubric

__all__ = ["LEXICAL_MODEL", "LexicalBackend", "judge_claim"]

LEXICAL_MODEL = "lexical-v1"
"""The model label of the lexical judge's verdicts (part of the cache key)."""

_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be been by for from has have in into is it its of on or that the "
    "their them then there these they this to was were will with within which who can may "
    "our your you we i".split()
)


def _content_words(text: str) -> set[str]:
    words = set()
    for word in _WORD.findall(normalise(text)):
        if word in _STOPWORDS or word.isdigit():
            continue
        # Crude stemming: plural and past-tense endings must not decide a verdict.
        for suffix in ("ies", "es", "s", "ed"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        words.add(word)
    return words


def _sentences(text: str) -> list[str]:
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def judge_claim(
    claim: ClaimRequest, *, supported_at: float = 0.8, partial_at: float = 0.5
) -> JudgeVerdict:
    """The lexical verdict on one claim against its cited passages."""
    claim_words = _content_words(claim.text)
    claim_numbers = numbers_in(claim.text)
    claim_negated = has_negation(claim.text)
    best: tuple[float, str] | None = None
    for passage in claim.passages:
        for sentence in _sentences(passage.text):
            words = _content_words(sentence)
            coverage = len(claim_words & words) / len(claim_words) if claim_words else 0.0
            matched = len(claim_numbers & numbers_in(sentence))
            rank = coverage + 0.01 * matched
            if best is None or rank > best[0]:
                best = (rank, sentence)
    if best is None:
        return JudgeVerdict(claim_id=claim.claim_id, verdict="unsupported", evidence_quote="",
                            reason="lexical: no cited passage text")
    sentence = best[1]
    words = _content_words(sentence)
    coverage = len(claim_words & words) / len(claim_words) if claim_words else 0.0
    sentence_numbers = numbers_in(sentence)
    missing = claim_numbers - sentence_numbers
    verdict: VerdictLabel
    if claim_negated != has_negation(sentence) and coverage >= partial_at:
        verdict, why = "unsupported", "negation differs"
    elif missing and sentence_numbers - claim_numbers:
        verdict, why = "unsupported", "numbers differ"
    elif coverage >= supported_at and not missing:
        verdict, why = "supported", "content words and numbers matched"
    elif coverage >= partial_at:
        verdict, why = "partial", "some content words or numbers unmatched"
    else:
        verdict, why = "unsupported", "little overlap"
    return JudgeVerdict(
        claim_id=claim.claim_id,
        verdict=verdict,
        evidence_quote=sentence if verdict != "unsupported" else "",
        reason=f"lexical: {why} (coverage {coverage:.2f})",
    )


class LexicalBackend:
    """The offline judge behind the same Protocol as the LLM backends."""

    name = "lexical"
    model = LEXICAL_MODEL
    metered = False

    def __init__(self, *, supported_at: float = 0.8, partial_at: float = 0.5) -> None:
        self._supported_at = supported_at
        self._partial_at = partial_at

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """Verdicts for every claim of ``packet``; never fails, uses no tokens."""
        return BackendReply(
            JudgeResult(
                verdicts=[
                    judge_claim(c, supported_at=self._supported_at, partial_at=self._partial_at)
                    for c in packet.claims
                ]
            )
        )

    async def aclose(self) -> None:
        """Nothing to release."""
