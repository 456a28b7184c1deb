"""The judge request for one trace: every claim to judge, each with only its cited passages.

The packet is built from the redacted trace. It carries the question for context, and for
each claim the text of the sources that claim cites, never another retrieved source (the
judge must not repair a wrong citation from another document), and no model, vendor, app or
tenant names.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass

from schemas import Trace
from sidecar.checks.analysis import ClaimAnalysis

__all__ = ["ClaimRequest", "JudgePacket", "Passage", "build_packet", "cache_key"]


@dataclass(frozen=True, slots=True)
class Passage:
    """One cited source as the judge sees it."""

    passage_id: str
    text: str


@dataclass(frozen=True, slots=True)
class ClaimRequest:
    """One claim to judge with the passages it cites."""

    claim_id: str
    text: str
    passages: tuple[Passage, ...]


@dataclass(frozen=True, slots=True)
class JudgePacket:
    """Everything one judge request carries."""

    question: str
    claims: tuple[ClaimRequest, ...]

    @property
    def claim_ids(self) -> tuple[str, ...]:
        """The requested claim IDs, in order."""
        return tuple(claim.claim_id for claim in self.claims)

    def claim(self, claim_id: str) -> ClaimRequest | None:
        """The requested claim with this ID, if any."""
        for claim in self.claims:
            if claim.claim_id == claim_id:
                return claim
        return None

    def render(self) -> str:
        """The user message: a JSON document of the question, the cited passages (each
        once, however many claims cite it) and the claims with the passage IDs they cite."""
        passages: dict[str, str] = {}
        for claim in self.claims:
            for passage in claim.passages:
                passages.setdefault(passage.passage_id, passage.text)
        return json.dumps(
            {
                "question": self.question,
                "passages": [{"passage_id": i, "text": t} for i, t in passages.items()],
                "claims": [
                    {
                        "claim_id": claim.claim_id,
                        "claim": claim.text,
                        "passage_ids": [p.passage_id for p in claim.passages],
                    }
                    for claim in self.claims
                ],
            },
            ensure_ascii=False,
            indent=1,
        )


def build_packet(trace: Trace, claims: Iterable[ClaimAnalysis]) -> JudgePacket:
    """The packet for ``claims`` of ``trace``: each with the text of its valid cited IDs."""
    texts = {source.id: source.text for source in trace.sources}
    requests = tuple(
        ClaimRequest(
            claim_id=item.claim.id,
            text=item.claim.text,
            passages=tuple(Passage(i, texts[i]) for i in item.valid_ids if i in texts),
        )
        for item in claims
    )
    return JudgePacket(question=trace.question, claims=requests)


def cache_key(rubric_version: str, model: str, claim: ClaimRequest) -> str:
    """Hash of rubric version, judge model, claim text and cited passage texts."""
    digest = hashlib.sha256()
    for part in (rubric_version, model, claim.text, *sorted(p.text for p in claim.passages)):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()
