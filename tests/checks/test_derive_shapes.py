"""Answers as apps write them: markers before their sentence (plain, in bullets, numbered
items, bold, footnote style, glued to the first word), in Markdown and plain text, in the
languages the splitter knows; reference lists are still back matter; and a trace whose
cited answer yields no claim is a warning, never silence."""

from __future__ import annotations

import asyncio

import pytest

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.checks import MarkerParser
from sidecar.checks.derive import derive_claims
from sidecar.config import load_settings
from tests.support.factories import make_trace, source

PARSER = MarkerParser()

TWO = [
    ("The Basic plan costs 20 EUR a month.", ["S1"]),
    ("Upgrades take effect at once.", ["S2"]),
]


def claims_of(answer: str) -> list[tuple[str, list[str]]]:
    trace = derive_claims(make_trace(answer=answer, claims=[]), PARSER, importance=2)
    return [(claim.text, claim.citation_ids) for claim in trace.claims]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            "[S1] The Basic plan costs 20 EUR a month. [S2] Upgrades take effect at once.",
            id="plain-one-paragraph",
        ),
        pytest.param(
            "[S1] The Basic plan costs 20 EUR a month.\n[S2] Upgrades take effect at once.",
            id="plain-one-per-line",
        ),
        pytest.param(
            "- [S1] The Basic plan costs 20 EUR a month.\n- [S2] Upgrades take effect at once.",
            id="markdown-bullets",
        ),
        pytest.param(
            "* [S1] The Basic plan costs 20 EUR a month.\n* [S2] Upgrades take effect at once.",
            id="markdown-star-bullets",
        ),
        pytest.param(
            "1. [S1] The Basic plan costs 20 EUR a month.\n2. [S2] Upgrades take effect at once.",
            id="numbered-items",
        ),
        pytest.param(
            "**[S1]** The Basic plan costs 20 EUR a month.\n\n"
            "**[S2]** Upgrades take effect at once.",
            id="bold-markers",
        ),
        pytest.param(
            "[S1]The Basic plan costs 20 EUR a month. [S2]Upgrades take effect at once.",
            id="glued-to-the-first-word",
        ),
        pytest.param(
            "The Basic plan costs 20 EUR a month [S1].\n\n[S2] Upgrades take effect at once.",
            id="marker-first-last-paragraph-after-a-normal-one",
        ),
        pytest.param(
            "The Basic plan costs 20 EUR a month [S1]. [S2] Upgrades take effect at once.",
            id="marker-first-after-a-cited-sentence",
        ),
        pytest.param(
            "The Basic plan costs 20 EUR a month.[S1]Upgrades take effect at once.[S2]",
            id="trailing-markers-glued-both-sides",
        ),
        pytest.param(
            "Here is what I found:\n\n[S1] The Basic plan costs 20 EUR a month.\n"
            "[S2] Upgrades take effect at once.\n\nSources:\n[S1] Pricing, "
            "https://help.example/pricing\n[S2] Upgrades FAQ",
            id="lead-in-and-a-source-list-after",
        ),
        pytest.param(
            "## Plans\n\n- **[S1]** The Basic plan costs 20 EUR a month.\n"
            "- **[S2]** Upgrades take effect at once.\n\n"
            "I hope this helps!",
            id="markdown-heading-bold-bullets-pleasantry",
        ),
    ],
)
def test_marker_first_sentences_are_claims_citing_their_marker(answer: str) -> None:
    assert claims_of(answer) == TWO


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            "[^1] The Basic plan costs 20 EUR a month.\n[^2] Upgrades take effect at once.",
            [
                ("The Basic plan costs 20 EUR a month.", ["1"]),
                ("Upgrades take effect at once.", ["2"]),
            ],
            id="footnote-style",
        ),
        pytest.param(
            "1. [2] The Basic plan costs 20 EUR a month.\n2. [1, 3] Upgrades take effect at once.",
            [
                ("The Basic plan costs 20 EUR a month.", ["2"]),
                ("Upgrades take effect at once.", ["1", "3"]),
            ],
            id="numbered-items-with-numbered-markers",
        ),
        pytest.param(
            "[S1] The Basic plan costs 20 EUR a month\n[S2] Upgrades take effect at once",
            [
                ("The Basic plan costs 20 EUR a month", ["S1"]),
                ("Upgrades take effect at once", ["S2"]),
            ],
            id="plain-lines-without-full-stops",
        ),
        pytest.param(
            "[S1] Der Basic-Tarif kostet 20 EUR im Monat. [S2] Upgrades gelten sofort.",
            [
                ("Der Basic-Tarif kostet 20 EUR im Monat.", ["S1"]),
                ("Upgrades gelten sofort.", ["S2"]),
            ],
            id="german",
        ),
        pytest.param(
            "[S1] Le forfait Basic coûte 20 EUR par mois.\n[S2] Les changements sont immédiats.",
            [
                ("Le forfait Basic coûte 20 EUR par mois.", ["S1"]),
                ("Les changements sont immédiats.", ["S2"]),
            ],
            id="french-lines",
        ),
        pytest.param(
            "\u30101\u3011基础套餐每月20欧元。\u30102\u3011升级立即生效。",
            [("基础套餐每月20欧元。", ["1"]), ("升级立即生效。", ["2"])],
            id="chinese-lenticular-brackets",
        ),
        pytest.param(
            "[1] 基础套餐每月20欧元。\n[2] 升级立即生效。",
            [("基础套餐每月20欧元。", ["1"]), ("升级立即生效。", ["2"])],
            id="chinese-lines",
        ),
    ],
)
def test_marker_first_in_other_shapes_and_languages(
    answer: str, expected: list[tuple[str, list[str]]]
) -> None:
    assert claims_of(answer) == expected


@pytest.mark.parametrize(
    "back_matter",
    [
        pytest.param(
            "\n\n[1] Smith, J. (2020). Refund Policies. Journal of Commerce.\n"
            "[2] Billing FAQ, section 4",
            id="reference-entries-with-full-stops",
        ),
        pytest.param("\n\n[1] Refund Policy\n[2] Billing FAQ (2024).", id="titles"),
        pytest.param(
            "\n\n[1] https://help.example/refunds\n[2] www.example.com/billing", id="urls"
        ),
    ],
)
def test_reference_lists_after_the_answer_stay_back_matter(back_matter: str) -> None:
    body = "Annual plans are refunded pro rata [1]. Monthly plans are not refunded [2]."
    assert claims_of(body + back_matter) == [
        ("Annual plans are refunded pro rata.", ["1"]),
        ("Monthly plans are not refunded.", ["2"]),
    ]


def _record(answer: str, derive: str = "sentences") -> EvaluationRecord:
    settings_ = load_settings(overrides={"claims.derive": derive, "judge.backend": "none"})
    trace = make_trace(
        answer=answer,
        claims=[],
        sources=[
            source("S1", "The Basic plan costs 20 EUR a month."),
            source("S2", "Upgrades take effect at once."),
        ],
    )
    return asyncio.run(build_pipeline(settings_).evaluate(trace))


def test_a_marker_first_answer_is_evaluated_claim_by_claim() -> None:
    record = _record("[S1] The Basic plan costs 20 EUR a month. [S2] Upgrades take effect at once.")
    assert [(c.claim_id, c.citation_ids, c.status) for c in record.claims] == [
        ("d1", ["S1"], "cited"),
        ("d2", ["S2"], "cited"),
    ]
    assert "no_claims" not in {f.code for f in record.findings}
    assert "uncited_source" not in {f.code for f in record.findings}


@pytest.mark.parametrize(
    ("answer", "derive", "expected"),
    [
        pytest.param(
            "Sources:\n[S1] Pricing\n[S2] Upgrades FAQ",
            "sentences",
            [("no_claims", "warning", "answer_has_markers")],
            id="markers-only-in-back-matter",
        ),
        pytest.param(
            "The Basic plan costs 20 EUR a month [S1].",
            "off",
            [("no_claims", "warning", "answer_has_markers")],
            id="derivation-off",
        ),
        pytest.param(
            "Hello! How can I help you today?",
            "sentences",
            [("no_claims", "info", "")],
            id="nothing-cited-nothing-claimed",
        ),
    ],
)
def test_a_cited_answer_without_claims_is_a_warning(
    answer: str, derive: str, expected: list[tuple[str, str, str]]
) -> None:
    record = _record(answer, derive)
    assert record.claims == []
    found = [(f.code, f.severity, f.detail) for f in record.findings if f.code == "no_claims"]
    assert found == expected
