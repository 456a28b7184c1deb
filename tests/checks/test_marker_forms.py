"""Markers and IDs as real answers write them: full-width and CJK brackets, other Unicode
forms of an ID, case, brackets in code and URLs, declared IDs of any shape.

Each trace goes through the deterministic pipeline with claims derived at importance 3, the
shape in which a marker that is not read, or an ID that does not resolve, pages."""

from __future__ import annotations

import asyncio
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord
from sidecar.checks import MarkerParser, analyse
from sidecar.checks._citation_ids import FORMAT_CHARS
from sidecar.checks.markers import IdResolver
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from tests.support.factories import claim, make_trace, source


def evaluate(answer: str, source_ids: list[str], **overrides: Any) -> EvaluationRecord:
    settings = Settings.model_validate({"claims": {"importance": 3}})
    sources = [source(i, f"Passage {n} about refunds.") for n, i in enumerate(source_ids)]
    trace = make_trace(
        answer=answer, sources=sources, claims=overrides.pop("claims", []), **overrides
    )
    return asyncio.run(Pipeline(settings).evaluate(trace))


def codes(record: EvaluationRecord) -> set[str]:
    return {finding.code for finding in record.findings}


def assert_all_resolved(record: EvaluationRecord) -> None:
    assert record.scores.validity == 1.0
    assert record.scores.invalid_citation_ids == []
    assert record.scores.critical_unsupported == 0
    assert not codes(record) & {
        "no_markers",
        "unknown_citation_id",
        "citation_mismatch",
        "uncited_claim",
        "invalid_citation_claim",
    }


@pytest.mark.parametrize(
    ("answer", "ids", "markers"),
    [
        pytest.param(
            "退款期限为30天［S1］。客服每天开放［S2］。",
            ["S1", "S2"],
            ["S1", "S2"],
            id="full-width-square",
        ),
        pytest.param(
            "返金は30日以内です〔1〕。サポートは毎日です〔2〕。",
            ["1", "2"],
            ["1", "2"],
            id="tortoise-shell",
        ),
        pytest.param(
            "退款期限为30天【1】。客服每天开放【2】。", ["1", "2"], ["1", "2"], id="lenticular"
        ),
        pytest.param(
            "退款期限为30天〖1〗。客服每天开放〘2〙。",
            ["1", "2"],
            ["1", "2"],
            id="white-lenticular-and-tortoise",
        ),
        pytest.param(
            "退款期限为30天［Ｓ１，Ｓ２］。",
            ["S1", "S2"],
            ["S1", "S2"],
            id="full-width-letters-digits-comma",
        ),
        pytest.param(
            "退款期限为30天［S1、S2］。", ["S1", "S2"], ["S1", "S2"], id="ideographic-comma"
        ),
    ],
)
def test_full_width_and_cjk_brackets_are_markers(
    answer: str, ids: list[str], markers: list[str]
) -> None:
    record = evaluate(answer, ids)
    assert record.scores.marker_ids == markers
    assert_all_resolved(record)


CAFE_NFC = unicodedata.normalize("NFC", "café1")
CAFE_NFD = unicodedata.normalize("NFD", "café1")


@pytest.mark.parametrize(
    ("answer", "declared"),
    [
        pytest.param(f"Refunds take 30 days [{CAFE_NFD}].", CAFE_NFC, id="nfd-marker-nfc-id"),
        pytest.param(f"Refunds take 30 days [{CAFE_NFC}].", CAFE_NFD, id="nfc-marker-nfd-id"),
        pytest.param("Refunds take 30 days [S\u200b1].", "S1", id="zero-width-space"),
        pytest.param("Refunds take 30 days [\ufeffS1\u200d].", "S1", id="bom-and-joiner"),
        pytest.param("Refunds take 30 days [S\u00ad1].", "S1", id="soft-hyphen"),
        pytest.param("Refunds take 30 days [ｄｏｃ－７].", "doc-7", id="compatibility-forms"),
    ],
)
def test_an_id_written_in_another_unicode_form_resolves(answer: str, declared: str) -> None:
    record = evaluate(answer, [declared])
    assert record.scores.marker_ids == [declared]
    assert_all_resolved(record)
    assert record.claims[0].citation_ids == [declared]


def test_a_claim_citation_in_another_unicode_form_resolves() -> None:
    record = evaluate(
        f"Refunds take 30 days [{CAFE_NFC}].",
        [CAFE_NFC],
        claims=[claim("c1", "Refunds take 30 days.", [CAFE_NFD], 3)],
    )
    assert_all_resolved(record)
    assert record.claims[0].status == "cited"


def test_a_case_only_match_is_its_own_finding_not_a_mismatch() -> None:
    record = evaluate(
        "Refunds take 30 days [s1].",
        ["S1"],
        claims=[claim("c1", "Refunds take 30 days.", ["S1"], 3)],
    )
    assert_all_resolved(record)
    assert record.scores.marker_ids == ["S1"]
    case = [f for f in record.findings if f.code == "citation_id_case"]
    assert [(f.severity, f.source_id, f.claim_id, f.detail) for f in case] == [
        ("info", "S1", None, "answer_marker")
    ]


def test_a_claim_citing_in_another_case_resolves_with_a_finding() -> None:
    record = evaluate(
        "Refunds take 30 days [S1].",
        ["S1"],
        claims=[claim("c1", "Refunds take 30 days.", ["s1"], 3)],
    )
    assert_all_resolved(record)
    case = [
        (f.claim_id, f.source_id, f.detail) for f in record.findings if f.code == "citation_id_case"
    ]
    assert case == [("c1", "S1", "claim_citation")]


def test_an_exact_id_wins_over_a_case_only_one() -> None:
    parser = MarkerParser()
    resolver = IdResolver(frozenset({"S1", "s1"}))
    assert parser.scan("A [s1] and [S1].", resolver) == (parser.markers("A [s1] and [S1]."), (), ())


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param("Refunds take 30 days [S1]. Use `items[S9]` in the script [S1].", id="inline"),
        pytest.param(
            "Refunds take 30 days [S1]. Call ``a[0] + x[k2]`` to check [S1].", id="double-backticks"
        ),
        pytest.param(
            "Refunds take 30 days [S1].\n\n```python\nx[k2] = a[0]\nb[S9]\n```\n", id="fenced"
        ),
        pytest.param(
            "Refunds take 30 days [S1].\n\n~~~\nb[S9] and [1]\n~~~\nMore [S1].", id="tilde-fence"
        ),
        pytest.param(
            "Refunds take 30 days [S1]. See https://example.com/a?ref=[S9]&p=1 [S1].",
            id="url-query",
        ),
        pytest.param(
            "Refunds take 30 days [S1]. See https://example.com/list[2]/x today [S1].",
            id="url-path",
        ),
        pytest.param("Refunds take 30 days [S1]. See www.example.com/a[0] now [S1].", id="www-url"),
        pytest.param(
            "Refunds take 30 days [S1]. Also [docs](https://example.com/x[7]) [S1].",
            id="markdown-link-target",
        ),
    ],
)
def test_brackets_in_code_and_urls_are_not_markers(answer: str) -> None:
    record = evaluate(answer, ["S1"])
    assert record.scores.marker_ids == ["S1"]
    assert_all_resolved(record)


def test_a_marker_after_a_link_or_code_is_still_read() -> None:
    answer = "Refunds take 30 days ([policy](https://example.com/p))[S1]. Run `ls`[S2]."
    assert MarkerParser().ids(answer) == ["S1", "S2"]


@pytest.mark.parametrize(
    "declared",
    [
        pytest.param("doc-a.b", id="dots"),
        pytest.param("policy 7", id="space"),
        pytest.param("handbook", id="no-digit"),
        pytest.param("returns-and-refunds-policy-2024", id="long-prefix"),
        pytest.param("a, b", id="comma"),
        pytest.param("x.*+?(y)|{2}$^\\", id="regex-metacharacters"),
        pytest.param("1]2", id="closing-bracket"),
        pytest.param("doc[2]", id="brackets"),
        pytest.param("Überblick", id="non-ascii-letters"),
        pytest.param("政策文件", id="cjk"),
    ],
)
def test_a_declared_id_of_any_shape_is_a_marker(declared: str) -> None:
    record = evaluate(
        f"Refunds take 30 days [{declared}]. Support is daily [{declared}].", [declared]
    )
    assert record.scores.marker_ids == [declared]
    assert_all_resolved(record)
    assert [c.citation_ids for c in record.claims] == [[declared], [declared]]


def test_a_declared_id_in_cjk_brackets_is_a_marker() -> None:
    record = evaluate("退款期限为30天【退款政策】。", ["退款政策"])
    assert record.scores.marker_ids == ["退款政策"]
    assert_all_resolved(record)


def test_a_declared_id_in_another_case_resolves_with_a_finding() -> None:
    record = evaluate("Refunds take 30 days [Handbook].", ["handbook"])
    assert_all_resolved(record)
    assert "citation_id_case" in codes(record)


def test_declared_ids_that_differ_only_by_case_are_each_their_own() -> None:
    parser = MarkerParser()
    resolver = IdResolver(frozenset({"Handbook", "handbook"}))
    assert parser.ids("A [handbook] b [Handbook] c [HANDBOOK].", resolver) == [
        "handbook",
        "Handbook",
        "HANDBOOK",
    ]


def test_the_claims_of_a_trace_resolve_like_its_markers() -> None:
    trace = make_trace(
        answer="Refunds take 30 days [policy 7].",
        sources=[source("policy 7", "Refunds take 30 days.")],
        claims=[claim("c1", "Refunds take 30 days.", ["policy 7"], 3)],
    )
    analysis = analyse(trace, MarkerParser())
    assert analysis.marker_ids == ("policy 7",)
    assert analysis.claims[0].valid_ids == ("policy 7",)


def test_a_configured_pattern_still_finds_declared_ids() -> None:
    parser = MarkerParser(r"\{\{cite:([^}]+)\}\}")
    resolver = IdResolver(frozenset({"policy 7", "S1"}))
    assert parser.ids("A {{cite:S1}} and [policy 7].", resolver) == ["S1", "policy 7"]


def test_the_automaton_is_linear_in_hostile_text() -> None:
    # Patterns that overlap themselves: every bracket starts a partial match. The walk
    # visits each character a bounded number of times, whatever the IDs: the match count
    # is what is checked here, not time.
    declared = frozenset({"][" * 60, "[" * 100, "x" * 128})
    text = "[]" * 20_000 + "[" * 20_000 + "[" + "x" * 128 + "]"
    markers = MarkerParser().markers(text, IdResolver(declared))
    assert [m.ids for m in markers][-1] == ("x" * 128,)
    assert all(a.end <= b.start for a, b in zip(markers, markers[1:], strict=False))


ID_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")),
    min_size=1,
    max_size=24,
).filter(
    lambda s: (
        s.strip() == s
        and unicodedata.normalize("NFKC", FORMAT_CHARS.sub("", s)).strip()
        and not any(c in s for c in "`~:")
        and "www." not in s
    )
)
"""A source ID of any characters but control ones and the ones that open code or URLs,
with something visible in it (an ID of format characters alone is the next test's)."""


@pytest.mark.parametrize("declared", ["\xad", "\u200b", "\u200d\u2060"])
def test_an_id_of_format_characters_alone_is_no_marker(declared: str) -> None:
    # Written between brackets it reads as "[]": nothing for a reader to resolve, so the
    # answer's "[]" stays text rather than a citation of that source.
    answer = f"Refunds take 30 days [{declared}]. Support is daily."
    trace = make_trace(
        answer=answer, sources=[source(declared, "Refunds take 30 days.")], claims=[]
    )
    analysis = analyse(trace, MarkerParser())
    assert analysis.marker_ids == ()


def _variant(text: str, form: str, zero_width: int) -> str:
    written = unicodedata.normalize(form, text) if form != "as-is" else text
    if zero_width:
        at = zero_width % (len(written) + 1)
        written = written[:at] + "\u200b" + written[at:]
    return written


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    ID_TEXT,
    st.sampled_from(["as-is", "NFC", "NFD", "NFKC", "NFKD"]),
    st.integers(min_value=0, max_value=30),
    st.sampled_from(["[{}]", "［{}］", "【{}】", "〔{}〕"]),
)
def test_any_bracketed_declared_id_resolves_in_any_form(
    declared: str, form: str, zero_width: int, brackets: str
) -> None:
    written = _variant(declared, form, zero_width)
    answer = f"Refunds take 30 days {brackets.format(written)}. Support is daily."
    trace = make_trace(
        answer=answer, sources=[source(declared, "Refunds take 30 days.")], claims=[]
    )
    analysis = analyse(trace, MarkerParser())
    assert analysis.marker_ids == (declared,)
    assert analysis.invalid_marker_ids == ()


@settings(max_examples=300, deadline=None)
@given(st.text(), st.lists(st.text(min_size=1, max_size=12), max_size=6))
def test_scanning_never_raises_on_any_text_and_ids(text: str, declared: list[str]) -> None:
    markers, cased, unknown = MarkerParser().scan(text, IdResolver(frozenset(declared)))
    assert all(0 <= m.start < m.end <= len(text) and m.ids for m in markers)
    assert all(a.end <= b.start for a, b in zip(markers, markers[1:], strict=False))
    assert set(cased) <= set(declared)
    ids = {i for m in markers for i in m.ids}
    assert set(unknown) == ids - set(declared)


_ASCII_ID = st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=10)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_ASCII_ID, min_size=1, max_size=5),
    st.lists(st.one_of(_ASCII_ID, st.sampled_from(["[", "]", " ", "[S1]"])), max_size=12),
    st.booleans(),
)
def test_the_declared_ids_found_in_ascii_text_are_the_automatons(
    declared: list[str], pieces: list[str], bracket_one: bool
) -> None:
    # The search by lower case that spares the automaton finds what the automaton finds.
    if bracket_one:
        pieces.append(f"[{declared[0].swapcase()}]")
    text = "".join(pieces)
    resolver = IdResolver(frozenset(declared))
    automaton = IdResolver(frozenset(declared)).automaton(every_id=False)
    expected = [(found.start, found.end) for found in automaton.find(text)] if automaton else []
    assert [(m.start, m.end) for m in resolver.find(text, every_id=False)] == expected


def test_the_format_characters_are_unicodes_category_cf() -> None:
    import sys

    from sidecar.checks._citation_ids import FORMAT_CHARS

    cf = [c for c in map(chr, range(sys.maxunicode + 1)) if unicodedata.category(c) == "Cf"]
    assert FORMAT_CHARS.sub("", "".join(cf)) == ""
    assert len(FORMAT_CHARS.findall("".join(map(chr, range(sys.maxunicode + 1))))) == len(cf)
