"""The judge request for one trace: every claim to judge, each with only its cited passages.

The packet is built from the redacted trace. It carries the question for context, and for
each claim the text of the sources that claim cites, never another retrieved source (the
judge must not repair a wrong citation from another document), and no model, vendor, app or
tenant names.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from schemas import Trace
from sidecar.checks.analysis import ClaimAnalysis

__all__ = [
    "ClaimRequest", "JudgePacket", "Passage", "build_packet", "cache_key", "render_packet",
]


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


@dataclass(frozen=True)
class JudgePacket:
    """Everything one judge request carries. Its rendering is computed once (the budget's
    estimate and the backend both read it)."""

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

    def passages(self) -> dict[str, str]:
        """Each cited passage once, by ID, in order of first citation."""
        passages: dict[str, str] = {}
        for claim in self.claims:
            for passage in claim.passages:
                passages.setdefault(passage.passage_id, passage.text)
        return passages

    @cached_property
    def _rendered(self) -> str:
        return render_packet(self)

    def render(self) -> str:
        """The user message, one item a line (see :func:`render_packet`)."""
        return self._rendered


_PLAIN_ID = re.compile(r"[\w.\-/#@]+")
_SPACE = re.compile(r"\s+")


def _id(value: str) -> str:
    # IDs are free text in a trace: anything that could be read as markup is JSON-quoted.
    return value if _PLAIN_ID.fullmatch(value) else json.dumps(value, ensure_ascii=False)


def _line(text: str) -> str:
    # Whitespace is collapsed so each text stays on its line; evidence quotes are matched
    # after the same collapsing, so a quote copied from here is still found.
    return _SPACE.sub(" ", text).strip()


def render_packet(packet: JudgePacket) -> str:
    """The packet as compact lines: the question, each cited passage once, then each claim
    with the IDs of the passages it cites::

        Question: Can I get a refund?
        Passages:
        [S1] Pro plan customers can request a refund within 30 days of purchase.
        Claims:
        c1 [S1]: Pro plan refunds are available within 30 days.

    IDs that are not plain words are JSON-quoted; texts have their whitespace collapsed.
    """
    lines = [f"Question: {_line(packet.question)}", "Passages:"]
    lines += [f"[{_id(i)}] {_line(t)}" for i, t in packet.passages().items()]
    lines.append("Claims:")
    lines += [
        f"{_id(c.claim_id)} [{','.join(_id(p.passage_id) for p in c.passages)}]: {_line(c.text)}"
        for c in packet.claims
    ]
    return "\n".join(lines)


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
