"""The judge stage: sampler, cache, budget, breaker, backend and reply validation together.

It implements :class:`sidecar.pipeline.JudgeStage` and never raises for a judge failure: the
outcome carries the error kind instead, and deterministic checks and scores go on.

Flow per trace: no cited claim -> skip; not in the base or priority sample -> skip; with an
LLM backend and ``judge.screen`` on, the offline screen runs first and a claim of importance
up to ``judge.screen_skip_max_importance`` it resolves with a verdict of a trusted class
(``judge.screen_trusted_verdicts``, never ``unsupported``) skips the LLM; claims whose
verdict is cached are served from the cache; the rest go in one request, after the
circuit breaker and the budget agree; the call is bounded by a semaphore (``in_flight``,
``saturated`` tell the runtime when to pause partitions), a per-call timeout, retries with
backoff, and a per-trace deadline that :meth:`JudgeStageImpl.aclose` shortens on shutdown.
Dispatch is continuous: a freed slot goes to the next waiting trace at once, and the trace
that freed it yields so that trace's request goes out before its own verdicts are scored.
With the screen as the backend (judge="lexical") every claim goes to it and the claims it
abstains on are recorded as abstained. The screen never pages on its own: in screen-only
mode its "unsupported" is recorded as not judged, ``suspect``, with the conflict it saw
(number, date, negation, ...), never scored and never critical, and goes to review; before
an LLM it is never final. Each claim's ``path`` says what the screen and the LLM said and
whether they agree.

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
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import get_args

from opentelemetry.trace import Tracer

from exporters.tracing import judge_span, set_judge_error, set_judge_usage
from schemas import (
    ClaimPath,
    JudgeRun,
    JudgeVerdict,
    ResolvedBy,
    ScreenOutcome,
    SuspectReason,
    Trace,
    VerdictLabel,
)
from schemas.vocabulary import CircuitState, SampledSkipReason, SkipReason
from sidecar.checks.analysis import Analysis
from sidecar.config import JudgeSettings, SamplingSettings
from sidecar.errors import JudgeError
from sidecar.judge.backend import JudgeBackend, JudgeCallError
from sidecar.judge.cache import VerdictCache
from sidecar.judge.coverage import quote_context, quote_gap
from sidecar.judge.lexical import SCREEN_JUDGE, ScreenFn, screen_verdict
from sidecar.judge.observer import JudgeObserver, NullObserver
from sidecar.judge.packet import ClaimRequest, JudgePacket, build_packet, cache_key
from sidecar.judge.rejudge import exposed_claims, rejudge_request, second_opinion_holds
from sidecar.judge.resilience import OUTAGE_KINDS, Backoff, CircuitBreaker
from sidecar.judge.rubric import Rubric, load_rubric
from sidecar.judge.sampling import Budget, Reservation, SampledBy, Sampler
from sidecar.judge.screen import (
    PreparedPassage,
    find_support,
    prepare_passage,
    screen_claim,
    set_passage_cache_bytes,
)
from sidecar.judge.validation import PassageIndex, QuoteRule, check_verdict, validate_reply
from sidecar.pipeline import JudgeIdentity, JudgeOutcome, Withheld
from sidecar.scoring import ClaimVerdict

__all__ = ["JudgeStageImpl", "estimate_tokens", "suspect_reason"]

logger = logging.getLogger(__name__)

_OUTPUT_TOKENS_PER_CLAIM = 150
_MISATTRIBUTION_CLAIMS = 32

FindSupportFn = Callable[[str, Sequence[tuple[str, str | PreparedPassage]]], str | None]
"""Unsupported claims per trace looked up in the other sources: each lookup reads every
other source, so a bound keeps the per-trace cost linear in the trace's size."""


_SUSPECT_REASONS = frozenset(get_args(SuspectReason))
_SCREEN_AS_VERDICT = {"supported": "supported", "partial": "partial", "suspect": "unsupported"}


def suspect_reason(reason: str) -> SuspectReason:
    """The conflict class of a screen "unsupported" from its reason code
    (``screen: conflict_number: ...`` is ``number``); ``other`` for any other reason."""
    code = reason.removeprefix("screen: ").partition(":")[0].removeprefix("conflict_")
    return code if code in _SUSPECT_REASONS else "other"  # type: ignore[return-value]


def estimate_tokens(packet: JudgePacket, rubric: Rubric) -> int:
    """A pre-call token estimate for budgets: ~4 characters a token, plus the reply."""
    return (len(rubric.text) + len(packet.render())) // 4 + _OUTPUT_TOKENS_PER_CLAIM * len(
        packet.claims
    )


@dataclass
class _Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0


@dataclass
class _Prior:
    """What the cascade settled around the LLM call: verdicts from the cache and the screen,
    what the screen said of every claim it looked at, and the second opinions on claims a
    flagged text may have swayed (their verdict, and the claims left unverified)."""

    cached: int = 0
    screened: int = 0
    screen_said: dict[str, ScreenOutcome] = field(default_factory=dict)
    importance: dict[str, int] = field(default_factory=dict)
    rejudged: dict[str, VerdictLabel | None] = field(default_factory=dict)
    withheld: dict[str, Withheld] = field(default_factory=dict)
    withdrawn: dict[str, VerdictLabel] = field(default_factory=dict)
    """The LLM's verdicts on the withheld claims (the claims' paths keep them)."""

    def withhold(self, claim_id: str, verdict: ClaimVerdict, why: Withheld) -> None:
        self.withheld[claim_id] = why
        self.withdrawn[claim_id] = verdict.verdict


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
        self.cache = VerdictCache(judge_settings.cache_size,
                                  max_bytes=judge_settings.cache_max_bytes,
                                  text_chars=judge_settings.cache_text_chars)
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
        # The screen runs before a metered (LLM) backend; the screen backend is the screen.
        self._prescreen = judge_settings.screen and backend.metered
        # The settings refuse "unsupported"; the set is filtered again so that no caller
        # building settings without validation makes a screen suspicion final.
        self._trusted = frozenset(judge_settings.screen_trusted_verdicts) - {"unsupported"}
        self._skip_max_importance = judge_settings.screen_skip_max_importance
        self._quote_rule = QuoteRule.from_settings(judge_settings)
        self._resolved_by: ResolvedBy = "screen" if backend.name == SCREEN_JUDGE else "llm"
        self._clock = clock
        self._sleep = sleep
        self._semaphore = asyncio.Semaphore(judge_settings.concurrency)
        self._in_flight = 0
        self._waiting = 0
        self._closing = False
        self._failing = False
        self._deadlines: set[asyncio.Timeout] = set()
        self._idle: asyncio.Event | None = None
        if backend.metered:
            self.observer.set_circuit_state("closed")

    # -- the concurrency slots ---------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Judge calls holding a concurrency slot now."""
        return self._in_flight

    @property
    def waiting(self) -> int:
        """Judged traces waiting for a free slot."""
        return self._waiting

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
        if self._closing:
            # Sampled or not is still decided, so a sampled trace's critical claims are
            # counted as unjudged rather than dropped.
            return self._skip("shutting_down", self.sampler.decide(trace, analysis))
        sampled_by = self.sampler.decide(trace, analysis)
        if sampled_by is None:
            return self._skip("not_sampled")
        packet = build_packet(trace, to_judge, datamark=self._settings.datamark)
        importance = {item.claim.id: item.claim.importance for item in to_judge}
        verdicts: dict[str, ClaimVerdict] = {}
        pending: list[tuple[ClaimRequest, str]] = []
        prior = _Prior(importance=importance)
        index = PassageIndex()
        for claim in packet.claims:
            if self._prescreen:
                found = screen_verdict(claim, self._screen)
                prior.screen_said[claim.claim_id] = _screen_outcome(found)
                if (found is not None and found.verdict in self._trusted
                        and importance.get(claim.claim_id, 3) <= self._skip_max_importance):
                    checked = check_verdict(claim, found, resolved_by="screen", index=index,
                                            rule=self._quote_rule)
                    # A screen verdict whose quote fails the check is not trusted: the LLM
                    # judges the claim instead.
                    if not (checked.quote_not_found or checked.quote_in_injection):
                        verdicts[claim.claim_id] = checked
                        prior.screened += 1
                        continue
            key = cache_key(self.rubric.version, self.backend.model, claim)
            # The verdict cache saves LLM calls; the screen judging alone recomputes, so its
            # records are the same in every replica whatever each one saw before.
            hit = self.cache.get(key) if self.backend.metered else None
            if hit is not None:
                verdicts[claim.claim_id] = replace(hit, resolved_by="cache")
            else:
                pending.append((claim, key))
        prior.cached = len(verdicts) - prior.screened
        if prior.cached:
            self.observer.judge_cache_hit(prior.cached)
        if not pending:
            run = self._run("ok", cached_claims=prior.cached, screened_claims=prior.screened)
            return self._outcome(trace, packet, verdicts, (), run, sampled_by, prior)
        request = replace(packet, claims=tuple(claim for claim, _ in pending))
        reservation: Reservation | None = None
        if self.backend.metered:
            if not self.breaker.allow():
                return self._failed_before_call(trace, packet, verdicts, sampled_by,
                                                "circuit_open", prior)
            estimate = estimate_tokens(request, self.rubric)
            granted = self.budget.acquire(estimate)
            if isinstance(granted, str):
                self.breaker.release()
                return self._failed_before_call(trace, packet, verdicts, sampled_by, granted,
                                                prior)
            reservation = granted
        if self.tracer is None or not self.backend.metered:
            return await self._judge_call(trace, packet, request, pending, verdicts, prior,
                                          sampled_by, reservation)
        # A CLIENT span per LLM call, child of the consumer span current in this task.
        with judge_span(self.tracer, model=self.backend.model, operation="chat") as span:
            outcome = await self._judge_call(trace, packet, request, pending, verdicts, prior,
                                             sampled_by, reservation)
            if outcome.run is not None:
                set_judge_usage(span, input_tokens=outcome.run.input_tokens,
                                output_tokens=outcome.run.output_tokens)
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
        prior: _Prior,
        sampled_by: SampledBy,
        reservation: Reservation | None,
    ) -> JudgeOutcome:
        cached, screened = prior.cached, prior.screened
        usage = _Usage()
        started = self._clock()
        try:
            checked, abstained = await self._bounded_call(request, usage)
        except JudgeError as exc:
            kind = exc.kind
            self.errors[kind] += 1
            # One warning per run of failures: a dead judge is one line, not one per trace.
            logger.log(logging.DEBUG if self._failing else logging.WARNING,
                       "judge gave no usable verdicts for trace %s: %s (%s)%s", trace.trace_id,
                       kind, exc, "" if self._failing else
                       "; further judge failures are logged at DEBUG until a call succeeds")
            self._failing = True
            run = self._run(kind, usage=usage, latency=self._clock() - started,
                            cached_claims=cached, screened_claims=screened, error=str(exc))
            # The screen's and the cache's verdicts stay: they are verdicts all the same.
            return self._outcome(trace, packet, verdicts, (), run, sampled_by, prior)
        finally:
            if reservation is not None:
                self.budget.settle(reservation, usage.input_tokens + usage.output_tokens)
        self._failing = False
        if self._waiting:
            # The slot is free and a trace is waiting for it: let that trace send its request
            # before this one's verdicts are cached, scored and written. Replies that arrive
            # together would otherwise hold back every waiting request until all of them had
            # been through the whole pipeline.
            await asyncio.sleep(0)
        exposed = (exposed_claims(request, PassageIndex()) if self._resolved_by == "llm"
                   else frozenset())
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
        if self._resolved_by == "llm":
            self._check_coverage(trace, request, verdicts, prior)
        logger.debug("judged trace %s: %d claims, %d cached, %d screened, %d abstained",
                     trace.trace_id, len(verdicts), cached, screened, len(abstained))
        run = self._run("ok", usage=usage, latency=self._clock() - started,
                        cached_claims=cached, screened_claims=screened)
        return self._outcome(trace, packet, verdicts, abstained, run, sampled_by, prior)

    async def _rejudge(
        self,
        trace: Trace,
        request: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        exposed: frozenset[str],
        prior: _Prior,
        usage: _Usage,
    ) -> None:
        """Judge again, without the flagged spans, each exposed claim the LLM called
        supported or partial; keep the verdict only when the second one is the same."""
        plan = rejudge_request(request, verdicts, exposed)
        second: dict[str, ClaimVerdict] = {}
        if plan.packet is not None:
            second = await self._second_call(trace, plan.packet, usage)
        for claim_id in plan.asked:
            first = verdicts[claim_id]
            again = second.get(claim_id)
            prior.rejudged[claim_id] = again.verdict if again is not None else None
            if not second_opinion_holds(first, again):
                del verdicts[claim_id]
                prior.withhold(claim_id, first, ("unverified", "injection_influenced"))

    def _check_coverage(
        self,
        trace: Trace,
        request: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        prior: _Prior,
    ) -> None:
        """Withhold an LLM "supported" on an importance-3 claim whose evidence quote's
        sentence the screen finds lacking part of the claim (:mod:`coverage`)."""
        for claim in request.claims:
            verdict = verdicts.get(claim.claim_id)
            if (verdict is None or verdict.verdict != "supported"
                    or verdict.resolved_by != "llm"
                    or prior.importance.get(claim.claim_id) != 3):
                continue
            context = quote_context(verdict.evidence_quote, claim.passages)
            found = self._screen(claim.text, [context])
            gap = quote_gap(found.verdict, found.reason)
            if gap is not None:
                logger.debug("trace %s claim %s: supported withheld: %s", trace.trace_id,
                             claim.claim_id, gap)
                del verdicts[claim.claim_id]
                prior.withhold(claim.claim_id, verdict, ("unverified", "quote_incomplete"))

    async def _second_call(
        self, trace: Trace, packet: JudgePacket, usage: _Usage
    ) -> dict[str, ClaimVerdict]:
        """The second opinion's checked verdicts; none when the breaker or the budget
        refuses the call or it fails (the claims then stay unverified)."""
        if not self.breaker.allow():
            return {}
        granted = self.budget.acquire(estimate_tokens(packet, self.rubric))
        if isinstance(granted, str):
            self.breaker.release()
            logger.debug("trace %s: no second opinion (%s)", trace.trace_id, granted)
            return {}
        spent = _Usage()
        try:
            checked, _ = await self._bounded_call(packet, spent)
        except JudgeError as exc:
            logger.debug("trace %s: no second opinion (%s)", trace.trace_id, exc.kind)
            return {}
        finally:
            self.budget.settle(granted, spent.input_tokens + spent.output_tokens)
            usage.input_tokens += spent.input_tokens
            usage.output_tokens += spent.output_tokens
            usage.attempts += spent.attempts
        return checked

    def _failed_before_call(
        self,
        trace: Trace,
        packet: JudgePacket,
        verdicts: dict[str, ClaimVerdict],
        sampled_by: SampledBy,
        reason: SampledSkipReason,
        prior: _Prior,
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
        prior: _Prior,
    ) -> JudgeOutcome:
        withheld: dict[str, Withheld] = dict(prior.withheld)
        screen_said = prior.screen_said
        if self._resolved_by == "screen":
            # Screen-only: every verdict is the screen's (a cache hit too), and its
            # "unsupported" is a suspicion, not a verdict.
            screen_said = dict.fromkeys(abstained, "abstained")
            for claim_id, verdict in list(verdicts.items()):
                if verdict.verdict == "unsupported":
                    withheld[claim_id] = ("suspect", suspect_reason(verdict.reason))
                    del verdicts[claim_id]
                    screen_said[claim_id] = "suspect"
                else:
                    screen_said[claim_id] = verdict.verdict
        misattributed = self._misattributed(trace, packet, verdicts, withheld)
        return JudgeOutcome(
            verdicts if verdicts or (run is not None and run.outcome == "ok") else None,
            run,
            sampled_by,
            abstained=tuple(abstained),
            misattributed=misattributed,
            withheld=withheld,
            paths=_paths(packet, verdicts, screen_said, prior,
                         llm_judged=self._resolved_by == "llm"),
        )

    def _misattributed(
        self,
        trace: Trace,
        packet: JudgePacket,
        verdicts: Mapping[str, ClaimVerdict],
        suspect: Mapping[str, Withheld],
    ) -> tuple[tuple[str, str], ...]:
        """(claim_id, source_id) for each claim its citation does not support (by the
        verdict, or the screen's suspicion) that another retrieved source does, by the
        screen."""
        found: list[tuple[str, str]] = []
        looked = 0
        # Each other source is prepared once per trace, not once per claim that looks at it.
        prepared: dict[str, PreparedPassage] = {}
        for claim in packet.claims:
            verdict = verdicts.get(claim.claim_id)
            unsupported = verdict is not None and verdict.verdict == "unsupported"
            if not unsupported and claim.claim_id not in suspect:
                continue
            if looked == _MISATTRIBUTION_CLAIMS:
                logger.debug("trace %s: misattribution looked up for the first %d unsupported "
                             "claims only", trace.trace_id, looked)
                break
            looked += 1
            cited = {passage.passage_id for passage in claim.passages}
            others: list[tuple[str, str | PreparedPassage]] = []
            for source in trace.sources:
                if source.id not in cited:
                    if source.id not in prepared:
                        prepared[source.id] = prepare_passage(source.text)
                    others.append((source.id, prepared[source.id]))
            if not others:
                continue
            source_id = self._find_support(claim.text, others)
            if source_id is not None:
                found.append((claim.claim_id, source_id))
        return tuple(found)

    async def _bounded_call(
        self, packet: JudgePacket, usage: _Usage
    ) -> tuple[dict[str, ClaimVerdict], tuple[str, ...]]:
        """One trace's checked verdicts: a slot, a whole-call deadline, retries, validation;
        breaker bookkeeping."""
        self._waiting += 1
        try:
            await self._semaphore.acquire()
        finally:
            self._waiting -= 1
        self._in_flight += 1
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
            if self.backend.metered and exc.kind in OUTAGE_KINDS:
                self.breaker.failure()
            elif self.backend.metered and exc.kind != "circuit_open":
                # The endpoint answered (a reply that does not parse, a refusal); an open
                # circuit is no answer at all and must not close the breaker.
                self.breaker.success()
            raise
        else:
            if self.backend.metered:
                self.breaker.success()
            return checked
        finally:
            self._in_flight -= 1
            self._semaphore.release()
            if self._in_flight == 0 and self._idle is not None:
                self._idle.set()

    async def _with_retries(
        self, packet: JudgePacket, usage: _Usage
    ) -> tuple[dict[str, ClaimVerdict], tuple[str, ...]]:
        timeout = self._settings.timeout_seconds
        model = self.backend.model
        attempt = 0
        while True:
            if attempt == 0 and self.backend.metered and self.breaker.state == "open":
                # The breaker opened while this trace waited for a slot.
                raise JudgeCallError("circuit open", kind="circuit_open")
            started = self._clock()
            usage.attempts += 1
            try:
                async with asyncio.timeout(timeout):
                    reply = await self.backend.judge(packet, self.rubric, timeout=timeout)
                checked = validate_reply(packet, reply.result, abstained=reply.abstained,
                                         resolved_by=self._resolved_by, rule=self._quote_rule)
            except TimeoutError:
                error = JudgeCallError("judge call timed out", kind="timeout", retriable=True)
            except JudgeCallError as exc:
                error = exc
            except JudgeError as exc:
                # A reply whose claim IDs do not match: the model answered, but unusably.
                error = JudgeCallError(str(exc), kind=exc.kind, input_tokens=reply.input_tokens,
                                       output_tokens=reply.output_tokens)
            else:
                usage.input_tokens += reply.input_tokens
                usage.output_tokens += reply.output_tokens
                self.observer.judge_request(
                    model=model, outcome="ok", latency_seconds=self._clock() - started,
                    input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
                )
                return checked, reply.abstained
            usage.input_tokens += error.input_tokens
            usage.output_tokens += error.output_tokens
            self.observer.judge_request(
                model=model, outcome=error.kind, latency_seconds=self._clock() - started,
                input_tokens=error.input_tokens, output_tokens=error.output_tokens,
            )
            if not error.retriable or attempt >= self._settings.max_retries or self._closing:
                raise error
            if self.backend.metered and self.breaker.state == "open":
                self.observer.judge_request(model=model, outcome="circuit_open",
                                            latency_seconds=0.0, input_tokens=0, output_tokens=0)
                raise JudgeCallError("circuit opened while retrying", kind="circuit_open")
            await self._sleep(self.backoff.delay(attempt, error.retry_after))
            attempt += 1

    # -- shutdown -----------------------------------------------------------------------------

    async def aclose(self, deadline: float = 10.0) -> None:
        """Stop judging; give in-flight calls ``deadline`` seconds, then abandon them (their
        traces get a timeout outcome), and close the backend."""
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
        await self.backend.aclose()
        logger.info("judge stage closed")

    # -- helpers ------------------------------------------------------------------------------

    def _skip(self, reason: SkipReason, sampled_by: SampledBy | None = None) -> JudgeOutcome:
        self.skips[reason] += 1
        self.observer.judge_skip(reason)
        return JudgeOutcome(skip_reason=reason, sampled_by=sampled_by)

    def _run(
        self,
        outcome: str,
        *,
        usage: _Usage | None = None,
        latency: float = 0.0,
        cached_claims: int = 0,
        screened_claims: int = 0,
        error: str | None = None,
    ) -> JudgeRun:
        return JudgeRun(
            judge=self.backend.name,
            model=self.backend.model,
            rubric_version=self.rubric.version,
            outcome=outcome,
            input_tokens=usage.input_tokens if usage else 0,
            output_tokens=usage.output_tokens if usage else 0,
            latency_seconds=round(latency, 6),
            cached_claims=cached_claims,
            screened_claims=screened_claims,
            error=error,
        )

    def _circuit_changed(self, state: CircuitState) -> None:
        logger.info("judge circuit breaker is now %s", state)
        self.observer.set_circuit_state(state)


def _screen_outcome(found: JudgeVerdict | None) -> ScreenOutcome:
    """The screen's conclusion as the claim's path records it."""
    if found is None:
        return "abstained"
    return "suspect" if found.verdict == "unsupported" else found.verdict


def _paths(
    packet: JudgePacket,
    verdicts: Mapping[str, ClaimVerdict],
    screen_said: Mapping[str, ScreenOutcome],
    prior: _Prior,
    *,
    llm_judged: bool,
) -> dict[str, ClaimPath]:
    """What the screen, the LLM and the second opinion said of each claim, and whether the
    ones that gave a verdict agree (the screen's suspicion agrees with an LLM
    "unsupported")."""
    paths: dict[str, ClaimPath] = {}
    for claim in packet.claims:
        claim_id = claim.claim_id
        screen = screen_said.get(claim_id)
        verdict = verdicts.get(claim_id)
        llm = (verdict.verdict if llm_judged and verdict is not None
               and verdict.resolved_by != "screen" else None)
        if claim_id in prior.withdrawn:
            llm = prior.withdrawn[claim_id]  # the LLM's verdict, withheld all the same
        second = prior.rejudged.get(claim_id)
        if screen is None and llm is None:
            continue
        said = [v for v in (_SCREEN_AS_VERDICT.get(screen or ""), llm, second) if v]
        agreed = len(set(said)) == 1 if len(said) >= 2 else None
        paths[claim_id] = ClaimPath(screen=screen, llm=llm, rejudge=second, agreed=agreed)
    return paths
