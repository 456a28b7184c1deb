"""The judge request for one trace: every claim to judge, each with only its cited passages.

The packet is built from the redacted trace. It carries the question for context, and for
each claim the text of the sources that claim cites, never another retrieved source (the
judge must not repair a wrong citation from another document), and no model, vendor, app or
tenant names. Source and claim IDs never reach the judge as written: a passage is ``P1``,
``P2``, ... in order of first citation and a claim ``C1``, ``C2``, ... in order, handles
that hold for one rendered packet, and the judge's reply names claims by their handles
(:meth:`JudgePacket.from_handles`). An ID is text the application (or a document) chose;
an instruction written into one has nowhere to go.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from schemas import DATAMARK, JudgeResult, Trace
from sidecar.checks.analysis import ClaimAnalysis
from sidecar.checks.injection import visible

__all__ = [
    "DATAMARK",
    "UNKNOWN_HANDLE",
    "ClaimRequest",
    "JudgePacket",
    "Passage",
    "build_packet",
    "cache_key",
    "render_packet",
    "unmark",
]

# DATAMARK (schemas.DATAMARK, where the records that drop it from evidence quotes find it)
# joins the words of document text in the packet (the "datamarking" form of spotlighting):
# the question and every passage reach the judge as one marked run, which the rubric tells
# it is data from documents, never instructions, so an instruction inside a passage reads
# as part of the document it sits in.


UNKNOWN_HANDLE = "\x00unknown:"
"""Prefix of a reply's claim ID that is no handle of its packet: it matches no claim, so
the reply is an ID mismatch, never read as a claim's verdict."""


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
    """Everything one judge request carries. Its rendering and its claim index are computed
    once (the budget's estimate, the backend and the reply's validation all read them)."""

    question: str
    claims: tuple[ClaimRequest, ...]
    datamark: bool = True
    """Render the question and passages datamarked (:data:`DATAMARK` between words)."""

    @property
    def claim_ids(self) -> tuple[str, ...]:
        """The requested claim IDs, in order."""
        return tuple(claim.claim_id for claim in self.claims)

    @cached_property
    def _index(self) -> dict[str, ClaimRequest]:
        # Claim IDs are unique in a valid trace; the first wins if a caller repeats one.
        index: dict[str, ClaimRequest] = {}
        for claim in self.claims:
            index.setdefault(claim.claim_id, claim)
        return index

    def claim(self, claim_id: str) -> ClaimRequest | None:
        """The requested claim with this ID, if any (a dictionary lookup)."""
        return self._index.get(claim_id)

    @cached_property
    def _handles(self) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        claims: dict[str, str] = {}
        by_handle: dict[str, str] = {}
        for claim in self.claims:
            if claim.claim_id not in claims:
                handle = f"C{len(claims) + 1}"
                claims[claim.claim_id] = handle
                by_handle[handle] = claim.claim_id
        passages = {pid: f"P{n}" for n, pid in enumerate(self.passages(), start=1)}
        return claims, passages, by_handle

    def claim_handle(self, claim_id: str) -> str:
        """The handle (``C1``, ...) the judge knows the claim by."""
        return self._handles[0][claim_id]

    def passage_handle(self, passage_id: str) -> str:
        """The handle (``P1``, ...) the judge knows the passage by."""
        return self._handles[1][passage_id]

    def from_handles(self, result: JudgeResult) -> JudgeResult:
        """``result`` (a reply to this packet's rendering) with each claim handle read back
        as its claim ID; anything that is no handle of this packet becomes an ID no claim
        has (:data:`UNKNOWN_HANDLE`), so a judge cannot name a claim by an ID it was never
        shown."""
        by_handle = self._handles[2]
        return JudgeResult(
            verdicts=[
                verdict.model_copy(
                    update={
                        "claim_id": by_handle.get(
                            verdict.claim_id, UNKNOWN_HANDLE + verdict.claim_id
                        )
                    }
                )
                for verdict in result.verdicts
            ]
        )

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
        """The user message: one JSON object (see :func:`render_packet`)."""
        return self._rendered


_SPACE = re.compile(r"\s+")


def _text(text: str) -> str:
    # Whitespace is collapsed to save tokens; evidence quotes are matched after the same
    # collapsing, so a quote copied from the packet is still found.
    return _SPACE.sub(" ", text).strip()


def _marked(text: str) -> str:
    # A mark already in the text is a space to the reader like every other mark, so text
    # cannot end its own marking by writing one.
    return _text(text.replace(DATAMARK, " ")).replace(" ", DATAMARK)


def unmark(text: str) -> str:
    """``text`` with datamarks read as spaces (an evidence quote copied from the packet)."""
    return text.replace(DATAMARK, " ")


def render_packet(packet: JudgePacket) -> str:
    """The packet as one compact JSON object, the whole user message::

        {"question":"CanˆIˆgetˆaˆrefund?",
         "passages":[{"id":"P1","text":"Proˆplanˆcustomersˆcanˆrequestˆaˆrefundˆ..."}],
         "claims":[{"claim_id":"C1","cites":["P1"],"text":"Pro plan refunds are ..."}]}

    (shown wrapped; sent on one line). IDs are the packet's handles, never the trace's
    (see the module docstring). Every piece of trace text (question, passage and claim
    texts) is a JSON string value, so no text can open, close or rename a
    claim or a passage: quotes, brackets, line breaks and lines that look like headers are
    escaped or stay inside their string. Each cited passage appears once; texts have their
    whitespace collapsed, and the question's and passages' words are joined by
    :data:`DATAMARK` (the claims, which are judged, keep their spaces) unless the packet's
    ``datamark`` is off.
    """
    document_text = _marked if packet.datamark else _text
    passage = packet.passage_handle
    document = {
        "question": document_text(packet.question),
        "passages": [
            {"id": passage(i), "text": document_text(t)} for i, t in packet.passages().items()
        ],
        "claims": [
            {
                "claim_id": packet.claim_handle(c.claim_id),
                "cites": [passage(p.passage_id) for p in c.passages],
                "text": _text(c.text),
            }
            for c in packet.claims
        ],
    }
    rendered = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    # A lone surrogate (valid in a decoded JSON string, not in UTF-8) would fail the HTTP
    # request; it becomes "?" inside its string value.
    return rendered.encode("utf-8", "replace").decode("utf-8")


def build_packet(
    trace: Trace, claims: Iterable[ClaimAnalysis], *, datamark: bool = True
) -> JudgePacket:
    """The packet for ``claims`` of ``trace``: each with the text of its valid cited IDs.

    Every text is taken visible (:func:`~sidecar.checks.injection.visible`): tag
    characters, bidi controls and runs of invisible format characters, which the injection
    check flags as ``obfuscated_text``, never reach the judge, and quotes are checked
    against the text the judge saw."""
    texts = {source.id: visible(source.text) for source in trace.sources}
    requests = tuple(
        ClaimRequest(
            claim_id=item.claim.id,
            # without the markers a claim may be sent with, and without invisible characters
            text=visible(item.text),
            passages=tuple(Passage(i, texts[i]) for i in item.valid_ids if i in texts),
        )
        for item in claims
    )
    return JudgePacket(question=visible(trace.question), claims=requests, datamark=datamark)


def cache_key(rubric_version: str, model: str, claim: ClaimRequest) -> str:
    """Hash of rubric version, judge model, claim text and cited passage texts."""
    digest = hashlib.sha256()
    for part in (rubric_version, model, claim.text, *sorted(p.text for p in claim.passages)):
        encoded = part.encode("utf-8", "surrogatepass")
        digest.update(len(encoded).to_bytes(8, "big"))
        digest.update(encoded)
    return digest.hexdigest()
