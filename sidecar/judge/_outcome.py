"""What the judge stage writes for a trace: each claim's path, the claims it withholds and
the outcome that carries them.

Around the LLM call the stage gathers a :class:`Prior` (the screen's outcome for every claim
it looked at, the cache's and the screen's verdicts, second opinions and withheld verdicts);
:func:`assemble_outcome` turns it with the verdicts into the :class:`JudgeOutcome`: in
screen-only mode the screen's "unsupported" becomes a suspicion, misattributed claims are
looked up in the trace's other sources, and each claim's :class:`ClaimPath` records what the
screen, the LLM and the second opinion said and whether they agree.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import get_args

from schemas import (
    ClaimPath,
    JudgeRun,
    JudgeVerdict,
    ScreenOutcome,
    SuspectReason,
    Trace,
    VerdictLabel,
)
from sidecar.judge.coverage import missing_carriers, quote_context, quote_gap
from sidecar.judge.lexical import ScreenFn
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rejudge import RejudgeRequest, second_opinion_holds
from sidecar.judge.sampling import SampledBy
from sidecar.judge.screen import PreparedPassage, prepare_passage
from sidecar.pipeline import JudgeOutcome, Withheld
from sidecar.scoring import ClaimVerdict

__all__ = [
    "FindSupportFn",
    "Prior",
    "assemble_outcome",
    "screen_outcome",
    "suspect_reason",
    "withhold_incomplete_quotes",
    "withhold_second_opinions",
]

logger = logging.getLogger(__name__)

FindSupportFn = Callable[[str, Sequence[tuple[str, str | PreparedPassage]]], str | None]
"""The source among (source_id, text) pairs that supports a claim's text, if any."""

_MISATTRIBUTION_CLAIMS = 32
"""Unsupported claims per trace looked up in the other sources: each lookup reads every
other source, so a bound keeps the per-trace cost linear in the trace's size."""

_SUSPECT_REASONS = frozenset(get_args(SuspectReason))
_SCREEN_AS_VERDICT = {"supported": "supported", "partial": "partial", "suspect": "unsupported"}


def suspect_reason(reason: str) -> SuspectReason:
    """The conflict class of a screen "unsupported" from its reason code
    (``screen: conflict_number: ...`` is ``number``); ``other`` for any other reason."""
    code = reason.removeprefix("screen: ").partition(":")[0].removeprefix("conflict_")
    return code if code in _SUSPECT_REASONS else "other"  # type: ignore[return-value]


def screen_outcome(found: JudgeVerdict | None) -> ScreenOutcome:
    """The screen's conclusion as the claim's path records it."""
    if found is None:
        return "abstained"
    return "suspect" if found.verdict == "unsupported" else found.verdict


@dataclass
class Prior:
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


def withhold_second_opinions(
    plan: RejudgeRequest,
    verdicts: dict[str, ClaimVerdict],
    second: Mapping[str, ClaimVerdict],
    prior: Prior,
) -> None:
    """Record each second opinion the plan asked for, and withhold (unverified,
    injection_influenced) every first verdict the second one does not confirm."""
    for claim_id in plan.asked:
        first = verdicts[claim_id]
        again = second.get(claim_id)
        prior.rejudged[claim_id] = again.verdict if again is not None else None
        if not second_opinion_holds(first, again):
            del verdicts[claim_id]
            prior.withhold(claim_id, first, ("unverified", "injection_influenced"))


def withhold_incomplete_quotes(
    trace: Trace,
    request: JudgePacket,
    verdicts: dict[str, ClaimVerdict],
    prior: Prior,
    screen: ScreenFn,
    *,
    min_importance: int = 3,
) -> None:
    """Withhold an LLM's (or the cache's) "supported" or "partial" on a claim of
    ``min_importance`` or more whose evidence quote misses one of the claim's numbers,
    dates, quantities or names, and a "supported" whose quote's sentence the screen finds
    lacking part of the claim (:mod:`sidecar.judge.coverage`)."""
    for claim in request.claims:
        verdict = verdicts.get(claim.claim_id)
        if (
            verdict is None
            or verdict.verdict not in ("supported", "partial")
            or verdict.resolved_by not in ("llm", "cache")
            or prior.importance.get(claim.claim_id, 3) < min_importance
        ):
            continue
        missing = missing_carriers(claim.text, verdict.evidence_quote)
        gap = f"the quote misses {len(missing)} of the claim's carriers" if missing else None
        if gap is None and verdict.verdict == "supported":
            context = quote_context(verdict.evidence_quote, claim.passages)
            found = screen(claim.text, [context])
            gap = quote_gap(found.verdict, found.reason)
        if gap is not None:
            logger.debug(
                "trace %s claim %s: %s withheld: %s",
                trace.trace_id,
                claim.claim_id,
                verdict.verdict,
                gap,
            )
            del verdicts[claim.claim_id]
            prior.withhold(claim.claim_id, verdict, ("unverified", "quote_incomplete"))


def assemble_outcome(
    trace: Trace,
    packet: JudgePacket,
    verdicts: dict[str, ClaimVerdict],
    abstained: Sequence[str],
    run: JudgeRun | None,
    sampled_by: SampledBy,
    prior: Prior,
    *,
    screen_only: bool,
    find_support: FindSupportFn,
) -> JudgeOutcome:
    """The trace's outcome from its verdicts (which it may take claims out of) and ``prior``;
    ``screen_only`` when every verdict is the screen's (the screen is the backend)."""
    withheld: dict[str, Withheld] = dict(prior.withheld)
    screen_said = prior.screen_said
    if screen_only:
        # Screen-only: every verdict is the screen's, and its "unsupported" is a
        # suspicion, not a verdict.
        screen_said = dict.fromkeys(abstained, "abstained")
        for claim_id, verdict in list(verdicts.items()):
            if verdict.verdict == "unsupported":
                withheld[claim_id] = ("suspect", suspect_reason(verdict.reason))
                del verdicts[claim_id]
                screen_said[claim_id] = "suspect"
            else:
                screen_said[claim_id] = verdict.verdict
    suspects = {claim_id for claim_id, (reason, _) in withheld.items() if reason == "suspect"}
    misattributed = _misattributed(trace, packet, verdicts, suspects, find_support)
    return JudgeOutcome(
        verdicts if verdicts or (run is not None and run.outcome == "ok") else None,
        run,
        sampled_by,
        abstained=tuple(abstained),
        misattributed=misattributed,
        withheld=withheld,
        paths=_paths(packet, verdicts, screen_said, prior, llm_judged=not screen_only),
    )


def _misattributed(
    trace: Trace,
    packet: JudgePacket,
    verdicts: Mapping[str, ClaimVerdict],
    suspect: Collection[str],
    find_support: FindSupportFn,
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
            logger.debug(
                "trace %s: misattribution looked up for the first %d unsupported claims only",
                trace.trace_id,
                looked,
            )
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
        source_id = find_support(claim.text, others)
        if source_id is not None:
            found.append((claim.claim_id, source_id))
    return tuple(found)


def _paths(
    packet: JudgePacket,
    verdicts: Mapping[str, ClaimVerdict],
    screen_said: Mapping[str, ScreenOutcome],
    prior: Prior,
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
        llm = (
            verdict.verdict
            if llm_judged and verdict is not None and verdict.resolved_by != "screen"
            else None
        )
        if claim_id in prior.withdrawn:
            llm = prior.withdrawn[claim_id]  # the LLM's verdict, withheld all the same
        second = prior.rejudged.get(claim_id)
        if screen is None and llm is None:
            continue
        said = [v for v in (_SCREEN_AS_VERDICT.get(screen or ""), llm, second) if v]
        agreed = len(set(said)) == 1 if len(said) >= 2 else None
        paths[claim_id] = ClaimPath(screen=screen, llm=llm, rejudge=second, agreed=agreed)
    return paths
