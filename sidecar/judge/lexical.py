"""The offline screen as a judge backend: no network, a verdict only when it is sure.

It runs :func:`sidecar.judge.screen.screen_claim` on every claim of a packet and returns
the screen's verdicts; the claims it abstains on come back as abstentions, which the stage
records as not judged (reason ``abstained``: never scored, never critical). Its verdicts are
labelled judge="lexical" (the label the offline judge always had, so metric series, rules
and dashboards stay valid) and never mix with an LLM judge's series.

The same screen runs before an LLM backend (the cascade, see :mod:`sidecar.judge.stage`):
:func:`screen_verdict` is the one place that turns a screen conclusion into a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schemas import JudgeBackendName, JudgeResult, JudgeVerdict
from sidecar.judge.backend import BackendReply
from sidecar.judge.packet import ClaimRequest, JudgePacket
from sidecar.judge.rubric import Rubric
from sidecar.judge.screen import ScreenVerdict, screen_claim

__all__ = ["LEXICAL_MODEL", "SCREEN_JUDGE", "LexicalBackend", "ScreenFn", "screen_verdict"]

SCREEN_JUDGE: JudgeBackendName = "lexical"
"""The judge label of the offline screen's verdicts."""

LEXICAL_MODEL = "screen-v1"
"""The model label of the screen's verdicts (part of the cache key; a calibration series).
The screen abstains where the earlier lexical judge (``lexical-v1``) guessed, so its
verdicts start a new series."""

ScreenFn = Callable[[str, Sequence[str]], ScreenVerdict]
"""The screen's signature: claim text and cited passage texts to a verdict or abstention."""


def screen_verdict(claim: ClaimRequest, screen: ScreenFn = screen_claim) -> JudgeVerdict | None:
    """The screen's verdict on ``claim`` as a judge verdict, or None when it abstains."""
    found = screen(claim.text, [passage.text for passage in claim.passages])
    if found.verdict is None:
        return None
    return JudgeVerdict(
        claim_id=claim.claim_id,
        verdict=found.verdict,
        evidence_quote=found.evidence_quote if found.verdict != "unsupported" else "",
        reason=f"screen: {found.reason}",
    )


class LexicalBackend:
    """The offline screen behind the same Protocol as the LLM backends."""

    name: JudgeBackendName = SCREEN_JUDGE
    model = LEXICAL_MODEL
    metered = False

    def __init__(self, *, screen: ScreenFn = screen_claim) -> None:
        self._screen = screen

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """The screen's verdicts, and the IDs of the claims it abstains on; never fails, uses
        no tokens."""
        verdicts: list[JudgeVerdict] = []
        abstained: list[str] = []
        for claim in packet.claims:
            verdict = screen_verdict(claim, self._screen)
            if verdict is None:
                abstained.append(claim.claim_id)
            else:
                verdicts.append(verdict)
        return BackendReply(JudgeResult(verdicts=verdicts), abstained=tuple(abstained))

    async def aclose(self) -> None:
        """Nothing to release."""
