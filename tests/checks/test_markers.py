from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar._regex import compile_linear
from sidecar.checks import MarkerParser
from sidecar.checks.markers import _BUILTIN, _BUILTIN_ASCII, DEFAULT_MARKER_PATTERN, Marker


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        pytest.param("Fact [S1].", ["S1"], id="S1"),
        pytest.param("Fact [1].", ["1"], id="numeric"),
        pytest.param("Fact [1][2].", ["1", "2"], id="adjacent"),
        pytest.param("Fact [1] [2].", ["1", "2"], id="spaced"),
        pytest.param("Fact [1, 2].", ["1", "2"], id="comma-list"),
        pytest.param("Fact [S1, S2].", ["S1", "S2"], id="comma-list-prefixed"),
        pytest.param("Fact [S2] then [S1] then [S2].", ["S2", "S1"], id="first-seen-dedup"),
        pytest.param("A [ S1 ; S3 ] b", ["S1", "S3"], id="semicolon-and-spaces"),
        pytest.param("See [doc-7].", ["doc-7"], id="hyphenated-id"),
        pytest.param("No markers here [citation needed] [sic].", [], id="words-in-brackets"),
        pytest.param("Array a[i] and [] and [,].", [], id="code-like"),
        pytest.param("", [], id="empty"),
        pytest.param("Fact.[^1] More[^S2].", ["1", "S2"], id="markdown-footnote"),
        pytest.param("Fact【1†source】 more 【12†doc.pdf】.", ["1", "12"], id="lenticular-dagger"),
        pytest.param("Fact [^1][^2] and [2].", ["1", "2"], id="footnotes-adjacent"),
        pytest.param("Caret [^] and 【†source】.", [], id="formats-without-id"),
    ],
)
def test_builtin_formats(text: str, ids: list[str]) -> None:
    assert MarkerParser().ids(text) == ids


def test_marker_spans_point_at_the_brackets() -> None:
    text = "Fact [S1, S2] more [S3]"
    markers = MarkerParser().markers(text)
    assert [(text[m.start : m.end], m.ids) for m in markers] == [
        ("[S1, S2]", ("S1", "S2")),
        ("[S3]", ("S3",)),
    ]


def test_custom_pattern() -> None:
    parser = MarkerParser(r"\{\{cite:([^}]+)\}\}")
    assert parser.ids("x {{cite:A, B}} y {{cite:C}}") == ["A", "B", "C"]


def test_custom_pattern_without_group_is_refused() -> None:
    with pytest.raises(ValueError, match="capturing group"):
        MarkerParser(r"\[\d+\]")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_parsing_never_raises_on_any_text(text: str) -> None:
    ids = MarkerParser().ids(text)
    assert len(ids) == len(set(ids))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.from_regex(r"S[0-9]{1,3}", fullmatch=True), min_size=1, max_size=5),
    # Without the characters that open code (backticks, ~~~ fences) or URLs (://, www.).
    st.text(alphabet=st.characters(blacklist_characters="[]`~:."), max_size=30),
)
def test_every_inserted_marker_is_found(ids: list[str], filler: str) -> None:
    text = filler.join(f"[{i}]" for i in ids)
    assert MarkerParser().ids(text) == list(dict.fromkeys(ids))


def test_a_lone_surrogate_does_not_stop_the_parse() -> None:
    # RE2 matches UTF-8; offsets still point into the text as given.
    text = "a \ud800 [S1]"
    assert MarkerParser().markers(text) == [Marker(4, 8, ("S1",))]


MARKER_TOKENS = st.sampled_from(
    [
        "[",
        "[^",
        "【",
        "]",
        "】",
        ",",
        ";",
        "†src",
        "†",
        ".",
        "x",
        "é",
        "\ud800",
        " ",
        "\t",
        "\n",
        "\x0b",
        "\x0c",
        "\r",
        "\u00a0",
        "\u2003",
        "S1",
        "s12",
        "doc-7",
        "a_b9",
        "1",
        "42",
        "1234567",
        "\u0663",
        "S" + "1" * 17,
    ]
)
"""Pieces of markers and their near misses: Unicode spaces and digits, a vertical tab."""


@settings(max_examples=1000, deadline=None)
@given(st.lists(MARKER_TOKENS, max_size=30).map("".join))
def test_the_builtin_pattern_finds_what_re2_finds(text: str) -> None:
    # The built-in pattern runs on re; the pattern as configured runs on RE2.
    re2_pattern = compile_linear(DEFAULT_MARKER_PATTERN)
    utf8_safe = text.encode("utf-8", "replace").decode("utf-8")  # RE2 needs no surrogates

    def spans(matches: Any) -> list[tuple[int, int, str]]:
        return [(m.start(), m.end(), m.group(1)) for m in matches]

    assert spans(_BUILTIN.finditer(utf8_safe)) == spans(re2_pattern.finditer(utf8_safe))
    ascii_text = text.encode("ascii", "ignore").decode("ascii")
    assert spans(_BUILTIN_ASCII.finditer(ascii_text)) == spans(_BUILTIN.finditer(ascii_text))
    configured = MarkerParser(DEFAULT_MARKER_PATTERN + "(?:)")  # the same markers, on RE2
    assert MarkerParser().markers(text) == configured.markers(text)


def test_the_default_pattern_is_the_builtin_one() -> None:
    assert MarkerParser()._regex is _BUILTIN
    assert MarkerParser(DEFAULT_MARKER_PATTERN)._regex is _BUILTIN
    assert MarkerParser(DEFAULT_MARKER_PATTERN + "(?:)")._regex is not _BUILTIN
