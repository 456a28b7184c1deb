"""What real OpenAI apps send, through `citewatch check` and `citewatch run --input --once`:
the app's own markers over the envelope's sources, the commentary phase, annotations over
several sentences, URLs with parentheses, and positions outside the text."""

from __future__ import annotations

from pathlib import Path

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import (
    OWN_MARKERS,
    POLICY_SOURCES,
    chat_exchange,
    responses_exchange,
)

PAGE = "https://shop.example/policy"
THREE = "Refunds are paid within 30 days. Standard shipping is free. Gift cards never expire."


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("input_format", "record"),
    [
        pytest.param("openai_chat", chat_exchange(OWN_MARKERS, sources=POLICY_SOURCES), id="chat"),
        pytest.param(
            "openai_responses",
            responses_exchange([(None, OWN_MARKERS)], sources=POLICY_SOURCES),
            id="responses",
        ),
    ],
)
def test_own_markers_cite_the_envelope_sources_cited_or_not(
    tmp_path: Path, command: str, input_format: str, record: bytes
) -> None:
    [evaluation], letters = evaluate(tmp_path, command, input_format, record)
    assert letters == []
    assert evaluation.scores.validity == 1.0
    assert evaluation.scores.marker_ids == ["S1", "S2"]
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Refunds are paid within 30 days.", ["S1"]),
        ("Standard shipping is free.", ["S2"]),
    ]
    # S3 was retrieved and not cited: a source all the same, in the prompt's order
    assert findings(evaluation, "uncited_source") == [("S3", "")]


@pytest.mark.parametrize("command", COMMANDS)
def test_commentary_phase_messages_are_not_answer_text(tmp_path: Path, command: str) -> None:
    record = responses_exchange(
        [("commentary", "I will search the refund policy first."), ("final_answer", OWN_MARKERS)],
        sources=POLICY_SOURCES,
    )
    [evaluation], _ = evaluate(tmp_path, command, "openai_responses", record)
    assert [c.text for c in evaluation.claims] == [
        "Refunds are paid within 30 days.",
        "Standard shipping is free.",
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_only_commentary_is_a_dead_letter_that_says_so(tmp_path: Path, command: str) -> None:
    record = responses_exchange([("commentary", "Searching.")])
    evaluations, [letter] = evaluate(tmp_path, command, "openai_responses", record)
    assert evaluations == []
    assert "no output_text outside the commentary" in str(letter)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("input_format", ["openai_chat", "openai_responses"])
def test_an_annotation_over_two_sentences_cites_both(
    tmp_path: Path, command: str, input_format: str
) -> None:
    span = (0, THREE.index(" Gift"), PAGE)
    record = (
        chat_exchange(THREE, citations=[span])
        if input_format == "openai_chat"
        else responses_exchange([("final_answer", THREE)], citations=[span])
    )
    [evaluation], _ = evaluate(tmp_path, command, input_format, record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Refunds are paid within 30 days.", ["W1"]),
        ("Standard shipping is free.", ["W1"]),
        ("Gift cards never expire.", []),
    ]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_inline_link_with_parentheses_in_its_url_is_replaced(
    tmp_path: Path, command: str
) -> None:
    url = "https://en.wikipedia.org/wiki/Python_(programming_language)"
    link = f"([en.wikipedia.org]({url}))"
    text = f"Python was first released in 1991 {link}."
    start = text.index(link)
    record = chat_exchange(
        text,
        citations=[(start, start + len(link), url)],
        sources=[{"url": url, "text": "Python was first released in 1991."}],
    )
    [evaluation], _ = evaluate(tmp_path, command, "openai_chat", record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Python was first released in 1991.", ["W1"])
    ]
    assert [s.url for s in evaluation.cited_sources] == [url]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "span",
    [
        pytest.param((10, 500), id="past-the-end"),
        pytest.param((-3, 12), id="negative"),
        pytest.param((40, 20), id="ends-before-it-starts"),
    ],
)
def test_positions_outside_the_text_are_a_finding_not_a_moved_marker(
    tmp_path: Path, command: str, span: tuple[int, int]
) -> None:
    record = chat_exchange(THREE, citations=[(*span, PAGE)])
    [evaluation], _ = evaluate(tmp_path, command, "openai_chat", record)
    assert all(c.citation_ids == [] for c in evaluation.claims)
    assert findings(evaluation, "citation_out_of_range") == [
        ("W1", f"span {span[0]}..{span[1]} outside a text of {len(THREE)} characters")
    ]


def test_envelope_passages_without_ids_are_sources_in_their_order() -> None:
    record = chat_exchange(
        "Refunds are paid within 30 days [S1].",
        sources=[
            {"text": "Refunds are paid within 30 days."},
            {"id": "S3", "text": "Gift cards never expire."},
            {"text": "Standard shipping is free."},
        ],
    )
    trace = decode_trace(record, limits=DecodeLimits(input_format="openai_chat"))
    assert [(s.id, s.text) for s in trace.sources] == [
        ("S1", "Refunds are paid within 30 days."),
        ("S3", "Gift cards never expire."),
        ("S2", "Standard shipping is free."),
    ]
