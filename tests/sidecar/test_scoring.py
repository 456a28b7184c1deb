from __future__ import annotations

from typing import Any

import pytest

from sidecar.checks import MarkerParser, analyse
from sidecar.config import ScoringSettings
from sidecar.scoring import ClaimVerdict, CriticalClaim, ScoreResult, score
from tests.support.factories import claim, make_trace, source, worked_example

SUPPORTED = ClaimVerdict("supported")
PARTIAL = ClaimVerdict("partial")
UNSUPPORTED = ClaimVerdict("unsupported")


def score_of(
    verdicts: dict[str, ClaimVerdict] | None,
    settings: ScoringSettings | None = None,
    **overrides: Any,
) -> ScoreResult:
    trace = make_trace(**overrides) if overrides else worked_example()
    return score(analyse(trace, MarkerParser()), verdicts, settings or ScoringSettings())


def test_worked_example_numbers() -> None:
    # DESIGN.md: correctness 1.0, completeness 0.7143, overall 0.8857.
    result = score_of({"c1": SUPPORTED, "c2": SUPPORTED, "c3": UNSUPPORTED})
    assert result.validity == 1.0
    assert result.correctness == 1.0
    assert round(result.completeness or 0, 4) == 0.7143
    assert round(result.overall or 0, 4) == 0.8857
    # c3 is uncited: its verdict is not used; importance 2, so it is not critical.
    assert result.critical == ()
    assert result.ignored_verdict_ids == ()


def test_validity_example() -> None:
    # DESIGN.md: "Fact [S1], other [S9]." has validity 0.5 and invalid IDs ["S9"].
    result = score_of(
        None, answer="Fact [S1], other [S9].", sources=[source("S1", "Fact.")], claims=[]
    )
    assert result.validity == 0.5
    assert result.invalid_citation_ids == ("S9",)


def test_not_judged_leaves_judge_scores_unknown() -> None:
    result = score_of(None)
    assert (result.correctness, result.completeness, result.overall) == (None, None, None)
    assert not result.judged
    assert result.validity == 1.0


@pytest.mark.parametrize(
    ("overrides", "validity", "invalid"),
    [
        pytest.param({"answer": ""}, 0.0, (), id="empty-answer"),
        pytest.param({"answer": "No markers at all."}, 0.0, (), id="no-markers"),
        pytest.param({"answer": "A [S1]. B [S1]. C [S1][S1]."}, 1.0, (), id="duplicate-markers"),
        pytest.param({"answer": "A [S9] [S9] [S1]."}, 0.5, ("S9",), id="duplicate-invalid"),
    ],
)
def test_validity_edge_cases(
    overrides: dict[str, Any], validity: float, invalid: tuple[str, ...]
) -> None:
    result = score_of(None, **overrides)
    assert (result.validity, result.invalid_citation_ids) == (validity, invalid)


def test_all_partial() -> None:
    claims = [claim("c1", "a", ["S1"], 1), claim("c2", "b", ["S1"], 3)]
    result = score_of({"c1": PARTIAL, "c2": PARTIAL}, claims=claims)
    assert result.correctness == 0.5
    assert result.completeness == 0.5
    assert result.overall == pytest.approx(0.45 * 0.5 + 0.40 * 0.5 + 0.15 * 1.0)


def test_partial_credit_and_weights_come_from_settings() -> None:
    settings = ScoringSettings(
        partial_credit=0.25, weight_correctness=0.5, weight_completeness=0.5, weight_validity=0.0
    )
    claims = [claim("c1", "a", ["S1"], 2)]
    result = score_of({"c1": PARTIAL}, settings, claims=claims)
    assert (result.correctness, result.completeness, result.overall) == (0.25, 0.25, 0.25)


def test_weights_must_sum_to_one() -> None:
    with pytest.raises(ValueError, match="sum to 1.0"):
        ScoringSettings(weight_validity=0.5)


def test_zero_factual_claims() -> None:
    claims = [
        claim("c1", "Great.", [], 1, kind="opinion"),
        claim("c2", "So.", [], 1, kind="connective"),
    ]
    result = score_of({}, claims=claims)
    assert (result.correctness, result.completeness, result.overall) == (None, None, None)
    assert result.critical == ()


def test_repeated_source_across_claims() -> None:
    claims = [claim("c1", "a", ["S1"], 1), claim("c2", "b", ["S1", "S1"], 1)]
    result = score_of({"c1": SUPPORTED, "c2": UNSUPPORTED}, claims=claims)
    assert (result.correctness, result.completeness) == (0.5, 0.5)


def test_verdict_for_unknown_claim_id_is_ignored_and_reported() -> None:
    result = score_of({"c1": SUPPORTED, "c2": SUPPORTED, "c99": UNSUPPORTED})
    assert result.ignored_verdict_ids == ("c99",)
    assert result.correctness == 1.0


def test_missing_verdict_is_never_scored_as_whole() -> None:
    result = score_of({"c1": SUPPORTED})
    assert result.unjudged_claim_ids == ("c2",)
    assert (result.correctness, result.completeness, result.overall) == (None, None, None)


@pytest.mark.parametrize(
    ("claim_data", "verdict", "reason"),
    [
        pytest.param(claim("c1", "a", [], 3), None, "uncited", id="uncited"),
        pytest.param(claim("c1", "a", ["S9"], 3), None, "invalid_citation", id="invalid"),
        pytest.param(
            claim("c1", "a", ["S1"], 3), UNSUPPORTED, "judged_unsupported", id="judged-unsupported"
        ),
        pytest.param(
            claim("c1", "a", ["S1"], 3),
            ClaimVerdict("unsupported", quote_not_found=True),
            "quote_not_found",
            id="quote-not-found",
        ),
    ],
)
def test_critical_reasons(
    claim_data: dict[str, Any], verdict: ClaimVerdict | None, reason: str
) -> None:
    verdicts = {"c1": verdict} if verdict else {}
    result = score_of(verdicts, claims=[claim_data])
    assert result.critical == (CriticalClaim("c1", reason),)  # type: ignore[arg-type]


def test_deterministic_criticals_are_known_without_a_judge() -> None:
    result = score_of(
        None,
        claims=[claim("c1", "a", [], 3), claim("c2", "b", ["S7"], 3), claim("c3", "c", ["S1"], 3)],
    )
    assert result.critical == (
        CriticalClaim("c1", "uncited"),
        CriticalClaim("c2", "invalid_citation"),
    )


def test_unsupported_below_importance_3_is_not_critical() -> None:
    result = score_of({"c1": UNSUPPORTED}, claims=[claim("c1", "a", ["S1"], 2)])
    assert result.critical == ()
    assert result.correctness == 0.0


def test_claim_citing_only_unknown_ids_scores_zero() -> None:
    claims = [claim("c1", "a", ["S1"], 1), claim("c2", "b", ["S9"], 1)]
    result = score_of({"c1": SUPPORTED}, claims=claims)
    assert (result.correctness, result.completeness) == (0.5, 0.5)


def _worked(verdicts: dict[str, ClaimVerdict] | None, **kwargs: Any) -> ScoreResult:
    return score(analyse(worked_example(), MarkerParser()), verdicts, ScoringSettings(), **kwargs)


def test_an_abstained_claim_leaves_numerator_and_denominator() -> None:
    # c2 (importance 3) abstained: correctness over c1 alone; completeness 2 x 1 / (2 + 2),
    # the uncited c3 still in the denominator.
    result = _worked({"c1": SUPPORTED}, abstained=["c2"])
    assert (result.correctness, result.completeness) == (1.0, 0.5)
    assert result.abstained_claim_ids == ("c2",)
    assert result.critical == () and result.critical_unjudged == ()
    assert result.unjudged_claim_ids == ()


def test_scores_are_none_when_every_cited_claim_abstained() -> None:
    result = _worked({}, abstained=["c1", "c2"])
    assert (result.correctness, result.completeness, result.overall) == (None, None, None)
    assert result.critical == ()


def test_a_failed_judge_lists_critical_cited_claims_without_a_verdict() -> None:
    result = _worked({"c1": SUPPORTED}, judge_failed=True)
    assert result.critical_unjudged == ("c2",)
    assert result.correctness is None
    # Not failed (e.g. not sampled): nothing is unjudged-critical.
    assert _worked(None).critical_unjudged == ()


def test_a_quote_inside_an_injection_is_its_own_critical_reason() -> None:
    result = _worked({"c1": SUPPORTED, "c2": ClaimVerdict("unsupported", quote_in_injection=True)})
    assert result.critical == (CriticalClaim("c2", "quote_in_injection"),)
