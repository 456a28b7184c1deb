"""What the judge stage settles before it calls the LLM: the screen's trusted verdicts, then
the verdict cache.

A claim of importance up to ``judge.screen_skip_max_importance`` that the offline screen
resolves with a verdict of a trusted class (never ``unsupported``), its quote found where
it says, needs no LLM; a claim whose verdict is cached is served from the cache (for a
metered backend only: the screen judging alone recomputes, so its records are the same in
every replica whatever each one saw before). What is left goes in one request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from sidecar.judge._outcome import Prior, screen_outcome
from sidecar.judge.cache import VerdictCache
from sidecar.judge.lexical import ScreenFn, screen_verdict
from sidecar.judge.packet import ClaimRequest, JudgePacket, cache_key
from sidecar.judge.validation import PassageIndex, QuoteRule, check_verdict
from sidecar.scoring import ClaimVerdict

__all__ = ["BeforeCall", "Settled"]


@dataclass
class Settled:
    """The verdicts settled so far, the claims still to judge (with their cache keys) and
    what the cascade recorded on the way."""

    prior: Prior
    verdicts: dict[str, ClaimVerdict] = field(default_factory=dict)
    pending: list[tuple[ClaimRequest, str]] = field(default_factory=list)


@dataclass(frozen=True)
class BeforeCall:
    """The screen and the cache in front of one backend; see the module docstring."""

    screen: ScreenFn
    prescreen: bool
    trusted: frozenset[str]
    skip_max_importance: int
    quote_rule: QuoteRule
    cache: VerdictCache
    rubric_version: str
    model: str
    metered: bool

    def settle(self, packet: JudgePacket, importance: Mapping[str, int]) -> Settled:
        """Settle what the screen and the cache can of ``packet``'s claims."""
        settled = Settled(Prior(importance=dict(importance)))
        prior, index = settled.prior, PassageIndex()
        for claim in packet.claims:
            if self.prescreen and self._screened(claim, importance, settled, index):
                continue
            key = cache_key(self.rubric_version, self.model, claim)
            hit = self.cache.get(key) if self.metered else None
            if hit is not None:
                settled.verdicts[claim.claim_id] = replace(hit, resolved_by="cache")
            else:
                settled.pending.append((claim, key))
        prior.cached = len(settled.verdicts) - prior.screened
        return settled

    def _screened(
        self,
        claim: ClaimRequest,
        importance: Mapping[str, int],
        settled: Settled,
        index: PassageIndex,
    ) -> bool:
        """Whether the screen's verdict on ``claim`` stands (and is now in ``settled``)."""
        found = screen_verdict(claim, self.screen)
        settled.prior.screen_said[claim.claim_id] = screen_outcome(found)
        if (
            found is None
            or found.verdict not in self.trusted
            or importance.get(claim.claim_id, 3) > self.skip_max_importance
        ):
            return False
        checked = check_verdict(
            claim, found, resolved_by="screen", index=index, rule=self.quote_rule
        )
        # A screen verdict whose quote fails the check is not trusted: the LLM judges the
        # claim instead.
        if checked.quote_not_found or checked.quote_in_injection:
            return False
        settled.verdicts[claim.claim_id] = checked
        settled.prior.screened += 1
        return True
