"""Claims derived from markers: the sentence segmenter on answers in several styles, and the
pipeline stage that uses it for traces without claims."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.checks import MarkerParser
from sidecar.checks.derive import derive_claims, sentences
from sidecar.config import load_settings
from tests.support.factories import make_trace, source

PARSER = MarkerParser()

ALCE = (
    "The Eiffel Tower was completed in 1889 [1][2]. It is 330 metres tall [2]. "
    "Gustave Eiffel's company built it [3]."
)
COMMA_LIST = (
    "Refunds are issued within 30 days [1, 2]. Dr. Adams, the U.S. lead, signed "
    "the policy on Jan. 5 [3]. The fee is 2.5% of the order, e.g. $1.25 on $50 [1]."
)
FOOTNOTES = (
    'J. R. R. Tolkien wrote The Hobbit.[^1] He said "the tale grew in the '
    'telling." [^2] Was it planned as a sequel? Not at first.\n\n'
    "[^1]: Carpenter, Biography\n[^2]: Foreword to the second edition"
)
LENTICULAR = (
    "Sure! The Pro plan allows 100 requests per minute\u30101\u2020source\u3011. "
    "Bursts above that are queued for up to 5 seconds\u30102\u2020source\u3011."
)
MARKDOWN = (
    "## Refund policy\n\n"
    "Here is what I found:\n\n"
    "- **Annual plans** are refunded pro rata [S1].\n"
    "- Monthly plans are not refunded [S2].\n"
    "1. Open a ticket within 14 days [S1]; support\n"
    "   answers within two business days [S3].\n\n"
    "```\nrefund --plan annual [S9]. Not a claim.\n```\n\n"
    "> Refunds go back to the original card [S2].\n\n"
    "I hope this helps! Let me know if you have other questions."
)
UNCITED = "Shipping is free over $50 [1]. Delivery usually takes three days. Why not?"


def claims_of(answer: str) -> list[tuple[str, list[str]]]:
    trace = derive_claims(make_trace(answer=answer, claims=[]), PARSER, importance=2)
    return [(claim.text, claim.citation_ids) for claim in trace.claims]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            ALCE,
            [
                ("The Eiffel Tower was completed in 1889.", ["1", "2"]),
                ("It is 330 metres tall.", ["2"]),
                ("Gustave Eiffel's company built it.", ["3"]),
            ],
            id="alce-adjacent-brackets",
        ),
        pytest.param(
            COMMA_LIST,
            [
                ("Refunds are issued within 30 days.", ["1", "2"]),
                ("Dr. Adams, the U.S. lead, signed the policy on Jan. 5.", ["3"]),
                ("The fee is 2.5% of the order, e.g. $1.25 on $50.", ["1"]),
            ],
            id="comma-lists-abbreviations-decimals",
        ),
        pytest.param(
            FOOTNOTES,
            [
                ("J. R. R. Tolkien wrote The Hobbit.", ["1"]),
                ('He said "the tale grew in the telling."', ["2"]),
                ("Not at first.", []),
            ],
            id="markdown-footnotes-initials-quotes",
        ),
        pytest.param(
            LENTICULAR,
            [
                ("The Pro plan allows 100 requests per minute.", ["1"]),
                ("Bursts above that are queued for up to 5 seconds.", ["2"]),
            ],
            id="lenticular-dagger",
        ),
        pytest.param(
            MARKDOWN,
            [
                ("Annual plans are refunded pro rata.", ["S1"]),
                ("Monthly plans are not refunded.", ["S2"]),
                (
                    "Open a ticket within 14 days; support answers within two business days.",
                    ["S1", "S3"],
                ),
                ("Refunds go back to the original card.", ["S2"]),
            ],
            id="markdown-lists-code-quote",
        ),
        pytest.param(
            UNCITED,
            [
                ("Shipping is free over $50.", ["1"]),
                ("Delivery usually takes three days.", []),
            ],
            id="uncited-sentence-and-question",
        ),
        pytest.param(
            "Revenue grew 4% [1].\n[2]",
            [("Revenue grew 4%.", ["1", "2"])],
            id="markers-on-their-own-line-join-the-sentence-before",
        ),
        pytest.param(
            "退款期限为30天[1]。款项退回原支付方式。[2]请问还有吗？",
            [("退款期限为30天。", ["1"]), ("款项退回原支付方式。", ["2"])],
            id="full-width-stops-without-spaces",
        ),
        pytest.param("Hello! How can I help you today?", [], id="nothing-to-claim"),
        pytest.param("", [], id="empty"),
    ],
)
def test_claims_from_sentences(answer: str, expected: list[tuple[str, list[str]]]) -> None:
    assert claims_of(answer) == expected


def test_markers_after_the_final_punctuation_belong_to_the_sentence() -> None:
    answer = "Paris is the capital of France. [1] Lyon is larger than Nice.[2][3] End here [4]."
    assert [(s.text, s.ids) for s in sentences(answer, PARSER)] == [
        ("Paris is the capital of France.", ("1",)),
        ("Lyon is larger than Nice.", ("2", "3")),
        ("End here.", ("4",)),
    ]


def test_derived_claims_carry_ids_importance_and_kind() -> None:
    trace = derive_claims(make_trace(answer=ALCE, claims=[]), PARSER, importance=3)
    assert [(c.id, c.importance, c.kind) for c in trace.claims] == [
        ("d1", 3, "factual"),
        ("d2", 3, "factual"),
        ("d3", 3, "factual"),
    ]


def test_a_trace_with_claims_is_left_alone() -> None:
    trace = make_trace()
    assert derive_claims(trace, PARSER, importance=2) is trace


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab .?!\n-#*[]^1,\u3010\u2020\u3011\"'`:3")), max_size=200
    )
)
def test_segmenting_never_raises_and_keeps_order(answer: str) -> None:
    found = sentences(answer, PARSER)
    spans = [(s.start, s.end) for s in found]
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))
    assert all(0 <= start < end <= len(answer) for start, end in spans)


def _evaluate(derive: str, answer: str) -> EvaluationRecord:
    settings_ = load_settings(overrides={"claims.derive": derive, "judge.backend": "none"})
    trace = make_trace(
        answer=answer,
        claims=[],
        sources=[
            source("S1", "Annual plans are refunded pro rata."),
            source("S2", "Monthly plans are not refunded."),
        ],
    )
    return asyncio.run(build_pipeline(settings_).evaluate(trace))


def test_pipeline_derives_claims_and_says_so() -> None:
    record = _evaluate(
        "sentences",
        "Annual plans are refunded pro rata [S1]. Monthly plans are not refunded. Ask us anything?",
    )
    assert [(c.claim_id, c.citation_ids, c.status, c.derived) for c in record.claims] == [
        ("d1", ["S1"], "cited", True),
        ("d2", [], "uncited", True),
    ]
    codes = {f.code: f.detail for f in record.findings}
    assert codes["claims_derived"] == "claims=2"
    assert "no_claims" not in codes
    assert codes["uncited_claim"] == "importance=2"


def test_derive_off_keeps_the_no_claims_finding() -> None:
    record = _evaluate("off", "Annual plans are refunded pro rata [S1].")
    assert record.claims == []
    assert [f.code for f in record.findings if f.code in ("no_claims", "claims_derived")] == [
        "no_claims"
    ]


def test_derived_claims_are_redacted_like_any_claim() -> None:
    record = _evaluate("sentences", "Write to jane.doe@example.com for a refund [S1].")
    assert [c.text for c in record.claims] == ["Write to <EMAIL_1> for a refund."]
    assert "jane.doe" not in record.model_dump_json()


# -- back matter: source lists, reference sections and footnote definitions are no claims --

BODY = "Annual plans are refunded pro rata [1]. Monthly plans are not refunded [2]."
BODY_CLAIMS = [
    ("Annual plans are refunded pro rata.", ["1"]),
    ("Monthly plans are not refunded.", ["2"]),
]


@pytest.mark.parametrize(
    "back_matter",
    [
        pytest.param(
            "\n\nSources: [1] Refund policy, https://help.example/refunds [2] Billing FAQ",
            id="sources-on-one-line",
        ),
        pytest.param(
            "\n\nSources:\n[1] Refund policy (https://help.example/refunds)\n[2] Billing FAQ",
            id="sources-one-per-line",
        ),
        pytest.param(
            "\n\n**Sources:**\n- [1] Refund policy\n- [2] Billing FAQ",
            id="bold-heading-and-bullets",
        ),
        pytest.param(
            "\n\n## References\n1. Refund policy. Help centre, 2024.\n"
            "2. Billing FAQ. https://help.example/billing",
            id="references-section",
        ),
        pytest.param(
            "\n\nReferences\n\nRefund policy\nBilling FAQ, updated in March",
            id="references-titles-only",
        ),
        pytest.param(
            "\n\n[1] Refund policy, https://help.example/refunds\n[2] Billing FAQ, section 4",
            id="trailing-list-without-heading",
        ),
        pytest.param(
            "\n\nBibliography:\n[1]: Refund policy\n[2]: Billing FAQ", id="bibliography-definitions"
        ),
    ],
)
def test_source_lists_and_reference_sections_are_not_claims(back_matter: str) -> None:
    assert claims_of(BODY + back_matter) == BODY_CLAIMS


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(
            "Annual plans are refunded pro rata.[^1] Monthly plans are not refunded."
            "[^2]\n[^1]: Refund policy, section 2.\n[^2]: Billing FAQ.",
            id="definitions-right-after",
        ),
        pytest.param(
            "Annual plans are refunded pro rata.[^1] Monthly plans are not refunded."
            "[^2]\n\n[^1]: Refund policy, section 2.\n    It applies to annual plans "
            "bought after 2023.\n[^2]: Billing FAQ.",
            id="definition-continued",
        ),
    ],
)
def test_footnote_definitions_are_not_claims_and_cause_no_mismatch(answer: str) -> None:
    assert claims_of(answer) == BODY_CLAIMS
    settings_ = load_settings(overrides={"claims.derive": "sentences", "judge.backend": "none"})
    trace = make_trace(
        answer=answer,
        claims=[],
        sources=[
            source("1", "Annual plans are refunded pro rata."),
            source("2", "Monthly plans are not refunded."),
        ],
    )
    record = asyncio.run(build_pipeline(settings_).evaluate(trace))
    assert [f.code for f in record.findings] == ["claims_derived"]


def test_prose_after_a_source_list_is_read_again() -> None:
    answer = (
        BODY + "\n\nSources:\n- [1] Refund policy\n\n"
        "Refunds of annual plans take up to ten business days to arrive [1]."
    )
    assert claims_of(answer) == [
        *BODY_CLAIMS,
        ("Refunds of annual plans take up to ten business days to arrive.", ["1"]),
    ]


def test_a_sentence_that_mentions_sources_is_still_a_claim() -> None:
    answer = "Sources inside the company say refunds take 30 days [1]."
    assert claims_of(answer) == [("Sources inside the company say refunds take 30 days.", ["1"])]


# -- derived claims keep the limits a trace's own claims must keep -------------------------


def test_derived_claims_are_cut_to_the_limits_with_a_finding() -> None:
    settings_ = load_settings(
        overrides={
            "claims.derive": "sentences",
            "judge.backend": "none",
            "limits.max_claims": 3,
            "limits.max_citations_per_claim": 2,
        }
    )
    answer = (
        " ".join(f"Plan {n} is refunded pro rata [S1]." for n in range(5))
        + " Every plan is listed [S1][S2][S3][S4]."
    )
    trace = make_trace(
        answer=answer, claims=[], sources=[source(f"S{n}", f"Plan text {n}.") for n in range(1, 5)]
    )
    record = asyncio.run(build_pipeline(settings_).evaluate(trace))
    assert [c.claim_id for c in record.claims] == ["d1", "d2", "d3"]
    assert [
        (f.code, f.severity, f.detail) for f in record.findings if f.code == "derived_claims_cut"
    ] == [("derived_claims_cut", "warning", "claims=3 of 6 (limits.max_claims)")]
    answer = "Every plan is listed in the policy [S1][S2][S3][S4]."
    trace = make_trace(
        answer=answer, claims=[], sources=[source(f"S{n}", f"Plan text {n}.") for n in range(1, 5)]
    )
    record = asyncio.run(build_pipeline(settings_).evaluate(trace))
    assert [c.citation_ids for c in record.claims] == [["S1", "S2"]]
    assert [(f.code, f.detail) for f in record.findings if f.code == "derived_claims_cut"] == [
        ("derived_claims_cut", "citations cut to 2 on 1 claims (limits.max_citations_per_claim)")
    ]
