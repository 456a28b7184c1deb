"""Citation numbering: a marker names a source by its declared ID or, when the trace numbers
its passages, by position ([N] is the Nth source); ranges; a mixed or ambiguous trace is a
finding, never a silent guess; the record shows the resolved source IDs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord
from sidecar.assembly import build_pipeline
from sidecar.checks import MarkerParser
from sidecar.checks.numbering import number
from sidecar.config import load_settings
from sidecar.errors import ConfigError
from tests.support.factories import claim, make_trace, source

SOURCES = [
    source("kb-warranty-2", "The warranty lasts two years from delivery."),
    source("3f1c9a2e-7b4d-4c1e-9a57-0d2b6c8e1f00", "Returns are free within 30 days."),
    source("docs/shipping.md", "Standard shipping takes three business days."),
]
IDS = [s["id"] for s in SOURCES]


def _record(answer: str, numbering: str = "auto", **trace: Any) -> EvaluationRecord:
    settings_ = load_settings(overrides={"citations.numbering": numbering, "judge.backend": "none"})
    trace.setdefault("claims", [])
    built = make_trace(answer=answer, sources=trace.pop("sources", SOURCES), **trace)
    return asyncio.run(build_pipeline(settings_).evaluate(built))


def _cites(record: EvaluationRecord) -> list[tuple[str, list[str], str]]:
    return [(c.claim_id, c.citation_ids, c.status) for c in record.claims]


def _numbering(record: EvaluationRecord) -> list[tuple[str, str]]:
    return [(f.severity, f.detail) for f in record.findings if f.code == "citation_numbering"]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(
            "The warranty lasts two years [1]. Returns are free within 30 days [2][3].",
            [("d1", [IDS[0]]), ("d2", [IDS[1], IDS[2]])],
            id="adjacent-brackets",
        ),
        pytest.param(
            "The warranty lasts two years [1]. Returns are free within 30 days [2, 3].",
            [("d1", [IDS[0]]), ("d2", [IDS[1], IDS[2]])],
            id="comma-list",
        ),
        pytest.param(
            "The warranty, returns and shipping are all covered [1-3].",
            [("d1", IDS)],
            id="range",
        ),
        pytest.param(
            "The warranty, returns and shipping are all covered [1\u20133].",
            [("d1", IDS)],
            id="range-en-dash",
        ),
        pytest.param(
            "[2] Returns are free within 30 days. [1] The warranty lasts two years.",
            [("d1", [IDS[1]]), ("d2", [IDS[0]])],
            id="marker-first",
        ),
        pytest.param(
            "Returns are free within 30 days\u30102\u2020source\u3011.",
            [("d1", [IDS[1]])],
            id="lenticular",
        ),
        pytest.param(
            "Returns are free within 30 days [\uff12].",
            [("d1", [IDS[1]])],
            id="full-width-digit",
        ),
    ],
)
def test_numbers_name_sources_by_position(
    answer: str, expected: list[tuple[str, list[str]]]
) -> None:
    record = _record(answer)
    assert _cites(record) == [(claim_id, ids, "cited") for claim_id, ids in expected]
    assert _numbering(record) == [("info", "by_position")]
    assert record.scores.validity == 1.0
    assert record.scores.invalid_citation_ids == []
    assert "unknown_citation_id" not in {f.code for f in record.findings}


def test_the_record_shows_the_resolved_ids_of_the_apps_own_claims() -> None:
    record = _record(
        "The warranty lasts two years [1]. Shipping takes three business days [3].",
        claims=[
            claim("c1", "The warranty lasts two years.", ["1"], 3),
            claim("c2", "Shipping takes three business days.", ["3"], 2),
        ],
    )
    assert _cites(record) == [("c1", [IDS[0]], "cited"), ("c2", [IDS[2]], "cited")]
    assert record.scores.marker_ids == [IDS[0], IDS[2]]
    assert _numbering(record) == [("info", "by_position")]
    assert "citation_mismatch" not in {f.code for f in record.findings}


def test_a_number_past_the_last_source_stays_unknown() -> None:
    record = _record("The warranty lasts two years [1]. Shipping is free [7].")
    assert _cites(record) == [("d1", [IDS[0]], "cited"), ("d2", ["7"], "invalid_citation")]
    assert record.scores.invalid_citation_ids == ["7"]


def test_a_trace_mixing_declared_ids_and_numbers_gets_the_finding_and_no_guess() -> None:
    record = _record("The warranty lasts two years [kb-warranty-2]. Returns are free [2].")
    assert _cites(record) == [
        ("d1", ["kb-warranty-2"], "cited"),
        ("d2", ["2"], "invalid_citation"),
    ]
    assert _numbering(record) == [("warning", "mixed")]


def test_numbers_that_may_be_ids_are_ambiguous() -> None:
    sources = [source("1", "One."), source("2", "Two."), source("5", "Five.")]
    record = _record("One is one [1]. Three is three [3].", sources=sources)
    assert _cites(record) == [("d1", ["1"], "cited"), ("d2", ["3"], "invalid_citation")]
    assert _numbering(record) == [("warning", "ambiguous")]


def test_declared_ids_alone_are_resolved_by_id_without_a_finding() -> None:
    record = _record("The warranty lasts two years [kb-warranty-2].")
    assert _cites(record) == [("d1", ["kb-warranty-2"], "cited")]
    assert _numbering(record) == []


def test_by_id_leaves_numbers_unknown() -> None:
    record = _record("The warranty lasts two years [1].", numbering="by_id")
    assert _cites(record) == [("d1", ["1"], "invalid_citation")]
    assert _numbering(record) == []


def test_by_position_wins_over_numeric_ids() -> None:
    sources = [source("2", "The warranty lasts two years."), source("1", "Returns are free.")]
    record = _record("The warranty lasts two years [1].", numbering="by_position", sources=sources)
    assert _cites(record) == [("d1", ["2"], "cited")]
    assert _numbering(record) == []


def test_the_setting_is_a_choice() -> None:
    with pytest.raises(ConfigError, match="citations.numbering"):
        load_settings(overrides={"citations.numbering": "by_guess"})


@settings(max_examples=100, deadline=None)
@given(
    answer=st.text(alphabet=st.sampled_from(list("ab [],-\u20131234567890S.\n")), max_size=80),
    count=st.integers(min_value=0, max_value=4),
    mode=st.sampled_from(["auto", "by_id", "by_position"]),
)
def test_numbering_never_raises_and_keeps_markers_in_order(
    answer: str, count: int, mode: str
) -> None:
    trace = make_trace(
        answer=answer, claims=[], sources=[source(f"doc-{n}", "text") for n in range(count)]
    )
    numbered = number(trace, MarkerParser(), mode)  # type: ignore[arg-type]
    starts = [m.start for m in numbered.scan.markers]
    assert starts == sorted(starts)
    assert all(m.ids for m in numbered.scan.markers)
