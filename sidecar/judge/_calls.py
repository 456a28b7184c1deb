"""The judge stage's calls to its backend.

A call holds one of ``judge.concurrency`` slots, runs under a whole-call deadline
(``judge.call_deadline_seconds``) that :meth:`JudgeCalls.drain` shortens on shutdown, makes
up to ``judge.max_retries`` further attempts with backoff, each under ``judge.timeout_seconds``,
validates the reply, and tells the circuit breaker how the endpoint answered. Whatever else
the backend raises is the judge error ``backend_error``: counted, and seen by the breaker, as
any failed call, never a dead letter. Before a metered call the breaker and the budget must
both agree (:meth:`JudgeCalls.admit`); the second opinion on a flagged claim is one more
such call (:meth:`JudgeCalls.second_opinion`).
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from schemas import JudgeRun, ResolvedBy, Trace
from schemas.vocabulary import SampledSkipReason
from sidecar.config import JudgeSettings
from sidecar.errors import JudgeError
from sidecar.judge.backend import BackendReply, JudgeBackend, JudgeCallError
from sidecar.judge.observer import JudgeObserver
from sidecar.judge.packet import JudgePacket
from sidecar.judge.resilience import OUTAGE_KINDS, Backoff, CircuitBreaker
from sidecar.judge.rubric import Rubric
from sidecar.judge.sampling import Budget, Reservation
from sidecar.judge.validation import QuoteRule, validate_reply
from sidecar.pipeline import JudgeIdentity
from sidecar.scoring import ClaimVerdict

__all__ = ["JudgeCalls", "Usage", "estimate_tokens"]

logger = logging.getLogger(__name__)

_OUTPUT_TOKENS_PER_CLAIM = 150


def estimate_tokens(packet: JudgePacket, rubric: Rubric) -> int:
    """A pre-call token estimate for budgets: ~4 characters a token, plus the reply."""
    return (len(rubric.text) + len(packet.render())) // 4 + _OUTPUT_TOKENS_PER_CLAIM * len(
        packet.claims
    )


@dataclass
class Usage:
    """What one trace's calls spent, summed over their attempts."""

    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0

    def run(
        self,
        judge: JudgeIdentity,
        outcome: str,
        *,
        latency: float = 0.0,
        cached_claims: int = 0,
        screened_claims: int = 0,
        error: str | None = None,
    ) -> JudgeRun:
        """The record's account of the trace's judge run: who judged, how it ended, what it
        spent and how many claims the cache and the screen settled."""
        return JudgeRun(
            judge=judge.backend,
            model=judge.model,
            rubric_version=judge.rubric_version,
            outcome=outcome,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            latency_seconds=round(latency, 6),
            cached_claims=cached_claims,
            screened_claims=screened_claims,
            error=error,
        )


async def _backend_call(
    backend: JudgeBackend, packet: JudgePacket, rubric: Rubric, timeout: float
) -> BackendReply:
    """``backend.judge``, where any exception that is not a judge error (nor a timeout or a
    cancellation) is the judge error ``backend_error``.

    The packet holds the record's redacted text, which decoding has already held to what
    can be sent (valid Unicode, bounded sizes); what a backend raises beyond its own judge
    errors is the backend's or its client's failure (a TypeError from an SDK whose methods
    changed), never the record's, so the trace is written without the judge's verdicts
    rather than dead-lettered. The message names the exception's class and where it was
    raised, never its text, which could quote the packet.
    """
    try:
        return await backend.judge(packet, rubric, timeout=timeout)
    except (JudgeError, TimeoutError):
        raise
    except Exception as exc:
        raise JudgeCallError(
            f"judge backend raised {type(exc).__name__} at {_raised_at(exc)}",
            kind="backend_error",
        ) from exc


def _raised_at(exc: BaseException) -> str:
    """The innermost code location of ``exc`` as ``package/module.py:line in function``."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "an unknown location"
    last = frames[-1]
    parts = last.filename.replace("\\", "/").rsplit("/", 2)
    return f"{'/'.join(parts[-2:])}:{last.lineno} in {last.name}"


class JudgeCalls:
    """The bounded, retried, validated calls of one judge stage to its backend."""

    def __init__(
        self,
        backend: JudgeBackend,
        *,
        rubric: Rubric,
        observer: JudgeObserver,
        breaker: CircuitBreaker,
        budget: Budget,
        backoff: Backoff,
        settings: JudgeSettings,
        resolved_by: ResolvedBy,
        quote_rule: QuoteRule,
        clock: Callable[[], float],
        sleep: Callable[[float], Awaitable[None]],
    ) -> None:
        self._backend = backend
        self._rubric = rubric
        self._observer = observer
        self._breaker = breaker
        self._budget = budget
        self._backoff = backoff
        self._settings = settings
        self._resolved_by = resolved_by
        self._quote_rule = quote_rule
        self._clock = clock
        self._sleep = sleep
        self._semaphore = asyncio.Semaphore(settings.concurrency)
        self._in_flight = 0
        self._waiting = 0
        self._closing = False
        self._deadlines: set[asyncio.Timeout] = set()
        self._idle: asyncio.Event | None = None

    @property
    def in_flight(self) -> int:
        """Calls holding a concurrency slot now."""
        return self._in_flight

    @property
    def waiting(self) -> int:
        """Calls waiting for a free slot."""
        return self._waiting

    @property
    def closing(self) -> bool:
        """Whether :meth:`drain` has begun: no new call should start."""
        return self._closing

    def admit(self, packet: JudgePacket) -> Reservation | SampledSkipReason:
        """The budget's reservation for ``packet``'s call, or why it may not go out: the
        breaker is open (``circuit_open``) or a budget says no. A refusal leaves the breaker
        as it was."""
        if not self._breaker.allow():
            return "circuit_open"
        granted = self._budget.acquire(estimate_tokens(packet, self._rubric))
        if isinstance(granted, str):
            self._breaker.release()
        return granted

    async def second_opinion(
        self, trace: Trace, packet: JudgePacket, usage: Usage
    ) -> dict[str, ClaimVerdict]:
        """The second opinion's checked verdicts, its spending added to ``usage``; none when
        the breaker or the budget refuses the call or it fails (the claims then stay
        unverified)."""
        granted = self.admit(packet)
        if isinstance(granted, str):
            if granted != "circuit_open":
                logger.debug("trace %s: no second opinion (%s)", trace.trace_id, granted)
            return {}
        spent = Usage()
        try:
            checked, _ = await self.bounded(packet, spent)
        except JudgeError as exc:
            logger.debug("trace %s: no second opinion (%s)", trace.trace_id, exc.kind)
            return {}
        finally:
            self._budget.settle(granted, spent.input_tokens + spent.output_tokens)
            usage.input_tokens += spent.input_tokens
            usage.output_tokens += spent.output_tokens
            usage.attempts += spent.attempts
        return checked

    async def bounded(
        self, packet: JudgePacket, usage: Usage
    ) -> tuple[dict[str, ClaimVerdict], tuple[str, ...]]:
        """One trace's checked verdicts and abstentions: a slot, a whole-call deadline,
        retries, validation; breaker bookkeeping. Raises :class:`JudgeError` (a
        :class:`JudgeCallError` with its kind) when no attempt gave a usable reply."""
        self._waiting += 1
        try:
            await self._semaphore.acquire()
        finally:
            self._waiting -= 1
        self._in_flight += 1
        metered = self._backend.metered
        try:
            try:
                async with asyncio.timeout(self._settings.call_deadline_seconds) as deadline:
                    self._deadlines.add(deadline)
                    if self._closing:
                        deadline.reschedule(asyncio.get_running_loop().time())
                    try:
                        checked = await self._with_retries(packet, usage)
                    finally:
                        self._deadlines.discard(deadline)
            except TimeoutError:
                raise JudgeCallError("judge call passed its deadline", kind="timeout") from None
        except JudgeCallError as exc:
            if metered and exc.kind in OUTAGE_KINDS:
                self._breaker.failure()
            elif metered and exc.kind != "circuit_open":
                # The endpoint answered (a reply that does not parse, a refusal); an open
                # circuit is no answer at all and must not close the breaker.
                self._breaker.success()
            raise
        else:
            if metered:
                self._breaker.success()
            return checked
        finally:
            self._in_flight -= 1
            self._semaphore.release()
            if self._in_flight == 0 and self._idle is not None:
                self._idle.set()

    async def _with_retries(
        self, packet: JudgePacket, usage: Usage
    ) -> tuple[dict[str, ClaimVerdict], tuple[str, ...]]:
        backend, breaker, observer = self._backend, self._breaker, self._observer
        metered = backend.metered
        timeout = self._settings.timeout_seconds
        model = backend.model
        attempt = 0
        while True:
            if attempt == 0 and backend.metered and breaker.state == "open":
                # The breaker opened while this trace waited for a slot.
                raise JudgeCallError("circuit open", kind="circuit_open")
            started = self._clock()
            usage.attempts += 1
            try:
                async with asyncio.timeout(timeout):
                    reply = await _backend_call(backend, packet, self._rubric, timeout)
                # A rendered packet names claims by handle; the screen reads the claims.
                result = packet.from_handles(reply.result) if metered else reply.result
                checked = validate_reply(
                    packet,
                    result,
                    abstained=reply.abstained,
                    resolved_by=self._resolved_by,
                    rule=self._quote_rule,
                )
            except TimeoutError:
                error = JudgeCallError("judge call timed out", kind="timeout", retriable=True)
            except JudgeCallError as exc:
                error = exc
            except JudgeError as exc:
                # A reply whose claim IDs do not match: the model answered, but unusably.
                error = JudgeCallError(
                    str(exc),
                    kind=exc.kind,
                    input_tokens=reply.input_tokens,
                    output_tokens=reply.output_tokens,
                )
            else:
                usage.input_tokens += reply.input_tokens
                usage.output_tokens += reply.output_tokens
                observer.judge_request(
                    model=model,
                    outcome="ok",
                    latency_seconds=self._clock() - started,
                    input_tokens=reply.input_tokens,
                    output_tokens=reply.output_tokens,
                )
                return checked, reply.abstained
            usage.input_tokens += error.input_tokens
            usage.output_tokens += error.output_tokens
            observer.judge_request(
                model=model,
                outcome=error.kind,
                latency_seconds=self._clock() - started,
                input_tokens=error.input_tokens,
                output_tokens=error.output_tokens,
            )
            if not error.retriable or attempt >= self._settings.max_retries or self._closing:
                raise error
            if backend.metered and breaker.state == "open":
                observer.judge_request(
                    model=model,
                    outcome="circuit_open",
                    latency_seconds=0.0,
                    input_tokens=0,
                    output_tokens=0,
                )
                raise JudgeCallError("circuit opened while retrying", kind="circuit_open")
            await self._sleep(self._backoff.delay(attempt, error.retry_after))
            attempt += 1

    async def drain(self, deadline: float) -> None:
        """Start no more attempts; give the calls in flight ``deadline`` seconds, then
        abandon them (each raises a timeout)."""
        self._closing = True
        loop = asyncio.get_running_loop()
        when = loop.time() + deadline
        for timeout in list(self._deadlines):
            current = timeout.when()
            if current is None or current > when:
                timeout.reschedule(when)
        if self._in_flight:
            self._idle = asyncio.Event()
            try:
                async with asyncio.timeout(deadline + 1.0):
                    await self._idle.wait()
            except TimeoutError:
                logger.warning("%d judge calls still running at shutdown", self._in_flight)
