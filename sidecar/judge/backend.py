"""The judge backend Protocol and the errors a backend call raises.

A backend turns one :class:`JudgePacket` into one typed :class:`JudgeResult`. It is async
and safe to call with many requests in flight; it makes one attempt per call and leaves
retries, budgets and the circuit breaker to the judge stage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from schemas import JudgeBackendName, JudgeResult
from schemas.vocabulary import JudgeErrorKind
from sidecar.errors import JudgeError
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rubric import Rubric

__all__ = ["BackendReply", "JudgeBackend", "JudgeCallError"]


class JudgeCallError(JudgeError):
    """One failed judge call. ``retry_after`` is the delay the server asked for, if any.

    Kinds: rate_limited, timeout, api_error (retriable when 5xx or a connection error),
    parse_error, refusal.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: JudgeErrorKind = "api_error",
        retriable: bool = False,
        retry_after: float | None = None,
        input_tokens: int = 0,
        output_tokens: int = 0,
    ) -> None:
        super().__init__(message, kind=kind, retriable=retriable)
        self.retry_after = retry_after
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens


@dataclass(frozen=True, slots=True)
class BackendReply:
    """The typed reply of one call and its token usage. ``abstained`` lists the requested
    claim IDs the backend declined to judge (only the offline screen does)."""

    result: JudgeResult
    input_tokens: int = 0
    output_tokens: int = 0
    abstained: tuple[str, ...] = ()


class JudgeBackend(Protocol):
    """One judge implementation: an LLM behind an API, or the offline screen."""

    @property
    def name(self) -> JudgeBackendName:
        """The backend label: its name in the registry (sidecar.judge.registry)."""
        ...

    @property
    def model(self) -> str:
        """The judge model the verdicts come from (part of the cache key)."""
        ...

    @property
    def metered(self) -> bool:
        """Whether calls cost tokens, so budgets and the circuit breaker apply."""
        ...

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """Judge every claim of ``packet`` in one call.

        A metered backend sends the packet's rendering, where claims and passages are
        handles (``C1``, ``P1``), and its reply names each claim by its handle; the stage
        reads them back (:meth:`JudgePacket.from_handles`). A backend that is not metered
        (the screen) reads ``packet.claims`` and names claims by their IDs.

        Raises :class:`JudgeCallError` with its kind when the call gives no typed reply.
        """
        ...

    async def aclose(self) -> None:
        """Release connections."""
        ...
