"""Claims sent with their markers still in their text ("The fee is 20 EUR [2][3]."): the
screen, the pre-screen and the quote checks read them without the markers, in any built-in
or declared shape; the record keeps the text as sent."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.assembly import build_pipeline
from sidecar.checks import MarkerParser, analyse
from sidecar.checks.markers import IdResolver
from sidecar.checks.quotes import CitedTextCheck
from sidecar.config import load_settings
from sidecar.inputs import CITED_TEXTS
from sidecar.judge.packet import build_packet
from tests.support.factories import claim, make_trace, source

SOURCES = [
    source("S1", "The Basic plan costs 20 EUR a month."),
    source("kb-fees.v2", "The Basic plan costs 20 EUR a month, billed monthly."),
]


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("The Basic plan costs 20 EUR a month [2][3].", id="numbers"),
        pytest.param("The Basic plan costs 20 EUR a month [1, 2].", id="list"),
        pytest.param("The Basic plan costs 20 EUR a month [S1].", id="source-id"),
        pytest.param("The Basic plan costs 20 EUR a month [kb-fees.v2].", id="declared"),
        pytest.param("[S1] The Basic plan costs 20 EUR a month.", id="marker-first"),
        pytest.param("The Basic plan costs 20 EUR a month.[^1]", id="footnote"),
        pytest.param(
            "The Basic plan costs 20 EUR a month\u30101\u2020source\u3011.", id="lenticular"
        ),
    ],
)
def test_the_claims_text_is_read_without_markers(text: str) -> None:
    trace = make_trace(sources=SOURCES, claims=[claim("c1", text, ["S1", "kb-fees.v2"], 3)])
    item = analyse(trace, MarkerParser()).claims[0]
    assert item.text == "The Basic plan costs 20 EUR a month."
    assert item.claim.text == text
    assert item.prescreen == ()


def test_a_claim_without_markers_is_read_as_sent() -> None:
    trace = make_trace(sources=SOURCES, claims=[claim("c1", "Costs `a[0]` 20 EUR.", ["S1"])])
    item = analyse(trace, MarkerParser()).claims[0]
    assert item.unmarked is None
    assert item.text == "Costs `a[0]` 20 EUR."


def test_the_screen_supports_a_claim_sent_with_markers_and_the_record_keeps_them() -> None:
    pipeline = build_pipeline(
        load_settings(overrides={"judge.backend": "lexical", "sampling.rate": 1.0})
    )
    text = "The Basic plan costs 20 EUR a month [2][3]."
    trace = make_trace(sources=SOURCES, claims=[claim("c1", text, ["S1"], 2)])
    record = asyncio.run(pipeline.evaluate(trace))
    assert [(c.text, c.verdict, c.prescreen_flags) for c in record.claims] == [
        (text, "supported", [])
    ]


def test_the_judge_reads_the_redacted_text_without_markers() -> None:
    pipeline = build_pipeline(load_settings(overrides={"judge.backend": "none"}))
    trace = make_trace(
        sources=SOURCES,
        claims=[claim("c1", "Write to jane.doe@example.com for the plan [S1].", ["S1"])],
    )
    analysis, _ = pipeline.analyse(trace)
    assert pipeline.redactor is not None
    redacted, _ = pipeline.redactor.redact(trace)
    packet = build_packet(redacted, analysis.with_trace(redacted).claims)
    assert [c.text for c in packet.claims] == ["Write to <EMAIL_1> for the plan."]


def test_a_fabricated_quote_is_laid_on_the_claim_it_came_with() -> None:
    trace = make_trace(
        answer="The Basic plan costs 20 EUR a month [S1]. Upgrades are free [S1].",
        sources=[source("S1", "The Basic plan costs 20 EUR a month. Upgrades cost 5 EUR.")],
        claims=[
            claim("c1", "The Basic plan costs 20 EUR a month [S1].", ["S1"], 2),
            claim("c2", "Upgrades are free [S1].", ["S1"], 3),
        ],
        cited_texts=[
            {"source_id": "S1", "quote": "Upgrades are free.", "cited": "Upgrades are free"}
        ],
    )
    analysis = analyse(trace, MarkerParser())
    assert CITED_TEXTS in analysis.trace.extra
    found = CitedTextCheck().run(analysis)
    assert [(f.code, f.severity, f.claim_id) for f in found] == [
        ("fabricated_quote", "critical", "c2")
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .,[]^S12-\u3010\u3011`:/")), max_size=60))
def test_unmarking_never_raises_and_only_removes(text: str) -> None:
    unmarked = MarkerParser().unmarked(text)
    if unmarked is not None:
        assert len(unmarked) < len(text)
        assert set(unmarked) <= set(text) | {" "}


_TOKENS = ["a", "b.", "fee", ".", ",", "!", "[S1]", "[1]", "[1][2]", "x[S1]y", "[^1]"] + [
    f"[S2]{p}" for p in ".,;:!?"
]
_CLAIM_TEXT = st.one_of(
    # Words and markers between single spaces, as most claims are written.
    st.lists(st.sampled_from(_TOKENS), max_size=8).map(" ".join),
    st.text(alphabet=st.sampled_from(list("ab .,;!\n\t[]^S12-\u00a0\u3010\0")), max_size=30),
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_CLAIM_TEXT, min_size=1, max_size=5))
def test_the_claims_are_unmarked_together_as_each_on_its_own(texts: list[str]) -> None:
    # The one pass over all of a trace's claims reads each as the pass over it alone does.
    parser = MarkerParser()
    resolver = IdResolver(frozenset(["S1", "S2", "1"]))
    expected = [parser.unmarked(text, resolver) for text in texts]
    assert parser.unmarked_each(texts, resolver) == expected


@pytest.mark.parametrize(
    "texts",
    [
        ["The fee is 20 EUR [S1].", "Refunds take 5 days [S2]."],
        ["The fee is 20 EUR  [S1].", "Refunds take 5 days [S2]."],
        ["The fee is 20 EUR\t[S1].", "No marker here."],
        [" [S1].", "a [S1]. b [S2]."],
        ["a [S1] [S2].", "b [S1]."],
        ["a [S1][S2].", "b ."],
        ["a . b [S1].", "c [S2]. "],
        ["a [S1].", "", "b [S2]."],
        ["a [S1\n].", "b [S2]."],
        ["a [ S1 ].", "b [S2].", "c [S1\t]."],
        ["See https://example.com/a?ref=[S1] first [S1].", "b [S2]."],
        ["~~~ https://example.com a [S1].", "b [S2]."],
        ["`a [S1].`", "b [S2]."],
    ],
)
def test_claims_with_a_marker_before_each_full_stop_are_unmarked_as_each_alone(
    texts: list[str],
) -> None:
    parser = MarkerParser()
    resolver = IdResolver(frozenset(["S1", "S2"]))
    expected = [parser.unmarked(text, resolver) for text in texts]
    assert parser.unmarked_each(texts, resolver) == expected
