"""The judge stage: sampler, cache, budget, breaker, backend and reply validation together.

It implements :class:`sidecar.pipeline.JudgeStage` and never raises for a judge failure: the
outcome carries the error kind instead, and deterministic checks and scores go on.

Flow per trace: no cited claim -> skip; not in the base or priority sample -> skip; with an
LLM backend and ``judge.screen`` on, the offline screen runs first and a claim of
importance up to ``judge.screen_skip_max_importance`` it resolves with a verdict of a
trusted class (``judge.screen_trusted_verdicts``, never ``unsupported``) skips the LLM;
claims whose verdict is cached are served from the cache
(:mod:`sidecar.judge._before_call`); the rest go in one request, after the circuit breaker
and the budget agree; the call (:mod:`sidecar.judge._calls`) is bounded by a semaphore
(``in_flight`` and ``waiting`` count its slots), a per-call timeout, retries with backoff,
and a per-trace deadline that :meth:`JudgeStageImpl.aclose` shortens on shutdown. Dispatch
is continuous: a freed slot goes to the next waiting trace at once, and the trace that
freed it yields so that trace's request goes out before its own verdicts are scored. With
the screen as the backend (judge="lexical") every claim goes to it and the claims it
abstains on are recorded as abstained. The screen never pages on its own: in screen-only
mode its "unsupported" is recorded as not judged, ``suspect``, with the conflict it saw
(number, date, negation, ...), never scored and never critical, and goes to review; before
an LLM it is never final. Each claim's ``path`` says what the screen and the LLM said and
whether they agree (:mod:`sidecar.judge._outcome` assembles the outcome).

Each verdict says what resolved it (screen, llm, cache). A claim found unsupported by its
citation is looked up in the trace's other retrieved sources with the screen's
:func:`~sidecar.judge.screen.find_support`; a source that supports it is reported as
misattributed (the LLM never sees those sources; correctness stays judged on the cited ones).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from opentelemetry.trace import Tracer

from exporters.tracing import judge_span, set_judge_error, set_judge_usage
from schemas import JudgeRun, ResolvedBy, Trace
from schemas.vocabulary import CircuitState, SampledSkipReason, SkipReason
from sidecar.checks.analysis import Analysis
from sidecar.config import JudgeSettings, SamplingSettings
from sidecar.errors import JudgeError
from sidecar.judge._before_call import BeforeCall
from sidecar.judge._calls import JudgeCalls, Usage, estimate_tokens
from sidecar.judge._outcome import (
    FindSupportFn,
    Prior,
    assemble_outcome,
    suspect_reason,
    withhold_incomplete_quotes,
    withhold_second_opinions,
)
from sidecar.judge.backend import JudgeBackend
from sidecar.judge.cache import VerdictCache
from sidecar.judge.lexical import SCREEN_JUDGE, ScreenFn
from sidecar.judge.observer import JudgeObserver, NullObserver
from sidecar.judge.packet import ClaimRequest, JudgePacket, build_packet
from sidecar.judge.rejudge import exposed_claims, rejudge_request
from sidecar.judge.resilience import Backoff, CircuitBreaker
from sidecar.judge.rubric import Rubric, load_rubric
from sidecar.judge.sampling import Budget, Reservation, SampledBy, Sampler
from sidecar.judge.screen import find_support, screen_claim, set_passage_cache_bytes
from sidecar.judge.validation import PassageIndex, QuoteRule
from sidecar.pipeline import JudgeIdentity, JudgeOutcome
from sidecar.scoring import ClaimVerdict

__all__ = ["JudgeStageImpl", "estimate_tokens", "suspect_reason"]

logger = logging.getLogger(__name__)


class JudgeStageImpl:
    """Judges sampled traces through one backend; see the module docstring."""

    def __init__(
        self,
        backend: JudgeBackend,
        *,
        judge_settings: JudgeSettings,
        sampling_settings: SamplingSettings,
        rubric: Rubric | None = None,
        observer: JudgeObserver | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        tracer: Tracer | None = None,
        screen: ScreenFn = screen_claim,
        find_support: FindSupportFn = find_support,
    ) -> None:
        self.backend = backend
        self.tracer = tracer
        self.rubric = rubric if rubric is not None else load_rubric(judge_settings.rubric_file)
        self.observer: JudgeObserver = observer if observer is not None else NullObserver()
        self.sampler = Sampler(sampling_settings)
        self.budget = Budget(sampling_settings)
        set_passage_cache_bytes(judge_settings.screen_cache_bytes)
        self.breaker = CircuitBreaker(
            failure_threshold=judge_settings.circuit_failures,
            reset_seconds=judge_settings.circuit_reset_seconds,
            clock=clock,
            on_change=self._circuit_changed,
        )
        self.backoff = Backoff(judge_settings.retry_base_seconds, judge_settings.retry_max_seconds)
        self.skips: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.quotes_not_found = 0
        self._settings = judge_settings
        self._screen = screen
        self._find_support = find_support
        self._quote_rule = QuoteRule.from_settings(judge_settings)
        self._before = BeforeCall(
            screen=screen,
            # The screen runs before a metered (LLM) backend; the screen backend is the screen.
            prescreen=judge_settings.screen and backend.metered,
            # The settings refuse "unsupported"; the set is filtered again so that no caller
            # building settings without validation makes a screen suspicion final.
            trusted=frozenset(judge_settings.screen_trusted_verdicts) - {"unsupported"},
            skip_max_importance=judge_settings.screen_skip_max_importance,
            quote_rule=self._quote_rule,
            cache=VerdictCache(
                judge_settings.cache_size,
                max_bytes=judge_settings.cache_max_bytes,
                text_chars=judge_settings.cache_text_chars,
            ),
            rubric_version=self.rubric.version,
            model=backend.model,
            metered=backend.metered,
        )
        self._resolved_by: ResolvedBy = "screen" if backend.name == SCREEN_JUDGE else "llm"
        self._clock = clock
        self._calls = JudgeCalls(
            backend,
            rubric=self.rubric,
            observer=self.observer,
            breaker=self.breaker,
            budget=self.budget,
            backoff=self.backoff,
            settings=judge_settings,
            resolved_by=self._resolved_by,
            quote_rule=self._quote_rule,
            clock=clock,
            sleep=sleep,
        )
        self._failing = False
        if backend.metered:
            self.observer.set_circuit_state("closed")

    # -- the concurrency slots ---------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Judge calls holding a concurrency slot now."""
        return self._calls.in_flight

    @property
    def waiting(self) -> int:
        """Judged traces waiting for a free slot."""
        return self._calls.waiting

    @property
    def cache(self) -> VerdictCache:
        """The LLM's verdicts by claim and cited passages (replaceable, to start cold)."""
        return self._before.cache

    @cache.setter
    def cache(self, cache: VerdictCache) -> None:
        self._before = replace(self._before, cache=cache)

    @property
    def identity(self) -> JudgeIdentity:
        """The backend, model and rubric version this stage judges with."""
        return JudgeIdentity(self.backend.name, self.backend.model, self.rubric.version)

    # -- the stage ----------------------------------------------------------------------------

    async def judge(self, trace: Trace, analysis: Analysis) -> JudgeOutcome:
        """Judge ``trace`` (already redacted) if sampled; never raises for judge failures."""
        to_judge = [item for item in analysis.claims if item.needs_judge]
        if not to_judge:
            return self._skip("no_cited_claims")
        if self._calls.closing:
            # Sampled or not is still decided, so a sampled trace's critical claims are
            # counted as unjudged rather than dropped.
            return self._skip("shutting_down", self.sampler.decide(trace, analysis))
        sampled_by = self.sampler.decide(trace, analysis)
        if sampled_by is None:
            return self._skip("not_sampled")
        packet = build_packet(trace, to_judge, datamark=self._settings.datamark)
        settled = self._before.settle(
            packet, {item.claim.id: item.claim.importance for item in to_judge}
        )
        verdicts, pending, prior = settled.verdicts, settled.pending, settled.prior
        if prior.cached:
            self.observer.judge_cache_hit(prior.cached)
        if not pending:
            run = Usage().run(
                self.identity, "ok", cached_claims=prior.cached, screened_claims=prior.screened
            )
            return self._outcome(trace, packet, verdicts, (), run, sampled_by, prior)
        request = replace(packet, claims=tuple(claim for claim, _ in pending))
        reservation: Reservation | None = None
        if self.backend.metered:
            granted = self._calls.admit(request)
            if isinstance(granted, str):
                return self._failed_before_call(trace, packet, verdicts, sampled_by, granted, prior)
            reservation = granted
        if self.tracer is None or not self.backend.metered:
            return await self._judge_call(
                trace, packet, request, pending, verdicts, prior, sampled_by, reservation
            )
        # A CLIENT span per LLM call, child of the consumer span current in this task.
        with judge_span(self.tracer, model=self.backend.model, operation="chat") as span:
            outcome = await self._judge_call(
                trace, packet, request, pending, verdicts, prior, sampled_by, reservation
            )
            if outcome.run is not None:
                set_judge_usage(
                    span,
                    input_tokens=outcome.run.input_tokens,
                    output_tokens=outcome.run.output_tokens,
                )
                if outcome.run.outcome != "ok":
                    set_judge_error(span, outcome.run.outcome)
            return outcome

    async def _judge_call(
        self,
        trace: Trace,
        packet: JudgePacket,
        request: JudgePacket,
        pending: list[tuple[ClaimRequest, str]],
        verdicts: dict[str, ClaimVerdict],
        prior: Prior,
        sampled_by: SampledBy,
        reservation: Reservation | None,
    ) -> JudgeOutcome:
        cached, screened = prior.cached, prior.screened
        usage = Usage()
        started = self._clock()
        try:
            checked, abstained = await self._calls.bounded(request, usage)
        except JudgeError as exc:
            kind = exc.kind
            self.errors[kind] += 1
            # One warning per run of failures: a dead judge is one line, not one per trace.
            logger.log(
                logging.DEBUG if self._failing else logging.WARNING,
                "judge gave no usable verdicts for trace %s: %s (%s)%s",
                trace.trace_id,
                kind,
                exc,
                ""
                if self._failing
                else "; further judge failures are logged at DEBUG until a call succeeds",
            )
            self._failing = True
            run = usage.run(
                self.identity,
                kind,
                latency=self._clock() - started,
                cached_claims=cached,
                screened_claims=screened,
                error=str(exc),
            )
            # The screen's and the cache's verdicts stay: they are verdicts all the same.
            return self._outcome(trace, packet, verdicts, (), run, sampled_by, prior)
        finally:
            if reservation is not None:
                self.budget.settle(reservation, usage.input_tokens + usage.output_tokens)
        self._failing = False
        if self._calls.waiting:
            # The slot is free and a trace is waiting for it: let that trace send its request
            # before this one's verdicts are cached, scored and written. Replies that arrive
            # together would otherwise hold back every waiting request until all of them had
            # been through the whole pipeline.
            await asyncio.sleep(0)
        exposed = (
            exposed_claims(request, PassageIndex()) if self._resolved_by == "llm" else frozenset()
        )
        for claim, key in pending:
            verdict = checked.get(claim.claim_id)
            if verdict is None:
                continue  # abstained: nothing to cache
            if claim.claim_id not in exposed and self.backend.metered:
                # An exposed claim's verdict stands only after its second opinion.
                self.cache.put(key, verdict)
            if verdict.quote_not_found or verdict.quote_in_injection:
                self.quotes_not_found += 1
                self.observer.quote_not_found()
        verdicts.update(checked)
        if exposed:
            await self._rejudge(trace, request, verdicts, exposed, prior, usage)
        logger.debug(
            "judged trace %s: %d claims, %d cached, %d screened, %d abstained",
            trace.trace_id,
            len(verdicts),
            cached,
            screened,
            len(abstained),
        )
        run = usage.run(
            self.identity,
            "ok",
            latency=self._clock() - started,
            cached_claims=cached,
            screened_claims=screened,
        )
        return self._outcome(trace, packet, verdicts, abstained, run, sampled_by, prior)

    async def _rejudge(
        self,
        trace: Trace,
        request: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        exposed: frozenset[str],
        prior: Prior,
        usage: Usage,
    ) -> None:
        """Judge again, without the flagged spans, each exposed claim the LLM judged; keep
        the verdict only when the second one is the same."""
        plan = rejudge_request(request, verdicts, exposed)
        second: dict[str, ClaimVerdict] = {}
        if plan.packet is not None:
            second = await self._calls.second_opinion(trace, plan.packet, usage)
        withhold_second_opinions(plan, verdicts, second, prior)

    def _failed_before_call(
        self,
        trace: Trace,
        packet: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        sampled_by: SampledBy,
        reason: SampledSkipReason,
        prior: Prior,
    ) -> JudgeOutcome:
        """A sampled trace the LLM never saw (open circuit, budget): counted as a skip; the
        screen's and the cache's verdicts stay."""
        self.skips[reason] += 1
        self.observer.judge_skip(reason)
        outcome = self._outcome(trace, packet, verdicts, (), None, sampled_by, prior)
        return replace(outcome, skip_reason=reason)

    def _outcome(
        self,
        trace: Trace,
        packet: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        abstained: Sequence[str],
        run: JudgeRun | None,
        sampled_by: SampledBy,
        prior: Prior,
    ) -> JudgeOutcome:
        if self._resolved_by == "llm":
            # The LLM's verdicts and the cache's (an LLM's, judged before) alike.
            withhold_incomplete_quotes(
                trace,
                packet,
                verdicts,
                prior,
                self._screen,
                min_importance=self._settings.quote_coverage_min_importance,
            )
        return assemble_outcome(
            trace,
            packet,
            verdicts,
            abstained,
            run,
            sampled_by,
            prior,
            screen_only=self._resolved_by == "screen",
            find_support=self._find_support,
        )

    # -- shutdown -----------------------------------------------------------------------------

    async def aclose(self, deadline: float = 10.0) -> None:
        """Stop judging; give in-flight calls ``deadline`` seconds, then abandon them (their
        traces get a timeout outcome), and close the backend."""
        await self._calls.drain(deadline)
        try:
            await self.backend.aclose()
        except Exception as exc:  # the calls are drained: nothing is lost with the client
            logger.warning("closing the judge backend raised %s", type(exc).__name__)
        logger.info("judge stage closed")

    # -- helpers ------------------------------------------------------------------------------

    def _skip(self, reason: SkipReason, sampled_by: SampledBy | None = None) -> JudgeOutcome:
        self.skips[reason] += 1
        self.observer.judge_skip(reason)
        return JudgeOutcome(skip_reason=reason, sampled_by=sampled_by)

    def _circuit_changed(self, state: CircuitState) -> None:
        logger.info("judge circuit breaker is now %s", state)
        self.observer.set_circuit_state(state)
