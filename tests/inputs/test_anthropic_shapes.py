"""What real Anthropic apps send, through `citewatch check` and `citewatch run --input
--once`: web search citations, cited blocks of several sentences, quotes across content
blocks, the envelope's sources for file and PDF documents, long and base64 documents."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anthropic.types as types
import pytest
from anthropic.types import DocumentBlockParam

from tests.inputs._cli import COMMANDS, evaluate, findings
from tests.support.payloads import anthropic_exchange, text_document, web_search_blocks

POLICY = "Refunds are issued within 14 days. Store credit never expires."
GUIDE = "https://shop.example/guide"


def _cites(text: str, *citations: Any) -> types.TextBlock:
    return types.TextBlock(type="text", text=text, citations=list(citations))


def _char(quote: str, index: int = 0) -> types.CitationCharLocation:
    return types.CitationCharLocation(
        type="char_location",
        cited_text=quote,
        document_index=index,
        document_title=None,
        start_char_index=0,
        end_char_index=len(quote),
    )


@pytest.mark.parametrize("command", COMMANDS)
def test_web_search_citations_cite_the_search_results(tmp_path: Path, command: str) -> None:
    quote = "Refunds are issued within 14 days."
    record = anthropic_exchange(
        [
            *web_search_blocks([(GUIDE, "Guide"), ("https://shop.example/faq", "FAQ")]),
            _cites(
                "Refunds take two weeks.",
                types.CitationsWebSearchResultLocation(
                    type="web_search_result_location",
                    cited_text=quote,
                    encrypted_index="Eo8BCioIAhgBIiQyYjQ0",
                    title="Guide",
                    url=GUIDE,
                ),
            ),
        ],
        sources=[{"url": GUIDE, "text": POLICY}],
    )
    [evaluation], letters = evaluate(tmp_path, command, "anthropic_messages", record)
    assert letters == []
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Refunds take two weeks.", ["W1"])
    ]
    assert findings(evaluation, "uncited_source") == [("W2", "")]
    # the page text came from the envelope, so the quote was verified against it
    assert findings(evaluation, "fabricated_quote") == []
    assert findings(evaluation, "quote_unverifiable") == []


@pytest.mark.parametrize("command", COMMANDS)
def test_a_cited_block_of_two_sentences_cites_both(tmp_path: Path, command: str) -> None:
    record = anthropic_exchange([_cites(POLICY, _char(POLICY))], documents=[text_document(POLICY)])
    [evaluation], _ = evaluate(tmp_path, command, "anthropic_messages", record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Refunds are issued within 14 days.", ["D1"]),
        ("Store credit never expires.", ["D1"]),
    ]


def _content_document(blocks: list[str]) -> DocumentBlockParam:
    return {
        "type": "document",
        "title": "Policy",
        "citations": {"enabled": True},
        "source": {"type": "content", "content": [{"type": "text", "text": b} for b in blocks]},
    }


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    ("quote", "fabricated"),
    [
        pytest.param("Refunds are issued within 14 days.Store credit never expires.", False,
                     id="the-blocks-as-the-api-joins-them"),
        pytest.param("Refunds are issued within 3 days.Store credit never expires.", True,
                     id="a-quote-the-blocks-do-not-hold"),
    ],
)  # fmt: skip
def test_a_quote_across_content_blocks_is_compared_as_the_document_holds_it(
    tmp_path: Path, command: str, quote: str, fabricated: bool
) -> None:
    blocks = ["Refunds are issued within 14 days.", "Store credit never expires."]
    citation = types.CitationContentBlockLocation(
        type="content_block_location",
        cited_text=quote,
        document_index=0,
        document_title="Policy",
        start_block_index=0,
        end_block_index=2,
    )
    record = anthropic_exchange([_cites(POLICY, citation)], documents=[_content_document(blocks)])
    [evaluation], _ = evaluate(tmp_path, command, "anthropic_messages", record)
    assert bool(findings(evaluation, "fabricated_quote")) is fabricated


def _pdf(data: str) -> DocumentBlockParam:
    return {
        "type": "document",
        "title": "Contract",
        "citations": {"enabled": True},
        "source": {"type": "base64", "media_type": "application/pdf", "data": data},
    }


_FILE: DocumentBlockParam = {
    "type": "document",
    "title": "Manual",
    "citations": {"enabled": True},
    "source": {"type": "file", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"},
}


@pytest.mark.parametrize("command", COMMANDS)
def test_the_envelope_gives_the_text_of_file_and_pdf_documents(
    tmp_path: Path, command: str
) -> None:
    manual = "The device runs for 12 hours on one charge."
    record = anthropic_exchange(
        [
            _cites("Refunds are issued within 14 days.", _char(POLICY[:34], 0)),
            types.TextBlock(type="text", text=" "),
            _cites("It runs for 12 hours.", _char("runs for 12 hours", 1)),
        ],
        documents=[_pdf("JVBERi0xLjQK"), _FILE],
        sources=[
            {"id": "D1", "text": POLICY},
            {"file_id": "file_011CNha8iCJcU1wXNR6q4V8w", "text": manual},
            {"id": "kb-9", "title": "Retrieved, not sent", "text": "Shipping is free."},
        ],
    )
    [evaluation], _ = evaluate(tmp_path, command, "anthropic_messages", record)
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("Refunds are issued within 14 days.", ["D1"]),
        ("It runs for 12 hours.", ["D2"]),
    ]
    assert findings(evaluation, "quote_unverifiable") == []
    assert findings(evaluation, "fabricated_quote") == []
    assert findings(evaluation, "uncited_source") == [("kb-9", "")]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_long_document_is_kept_up_to_the_limit_with_a_finding(
    tmp_path: Path, command: str
) -> None:
    long_text = POLICY + " Section text." * 6000  # about 90,000 characters
    record = anthropic_exchange(
        [_cites("Refunds are issued within 14 days.", _char(POLICY[:34]))],
        documents=[text_document(long_text)],
    )
    [evaluation], letters = evaluate(tmp_path, command, "anthropic_messages", record)
    assert letters == []
    assert findings(evaluation, "source_truncated") == [
        ("D1", f"{len(long_text)} characters kept to 65536")
    ]
    assert findings(evaluation, "fabricated_quote") == []


@pytest.mark.parametrize("command", COMMANDS)
def test_a_base64_pdf_is_dropped_before_the_size_check(tmp_path: Path, command: str) -> None:
    pdf = base64.b64encode(b"%PDF-1.4\n" + bytes(range(256)) * 6000).decode()  # 2 MB
    record = anthropic_exchange(
        [_cites("The contract runs for two years.", _char("The term is two years.", 1))],
        documents=[text_document(POLICY), _pdf(pdf)],
    )
    assert len(record) > 1_048_576 + 900_000
    [evaluation], letters = evaluate(tmp_path, command, "anthropic_messages", record)
    assert letters == []
    assert [s.source_id for s in evaluation.cited_sources] == ["D2"]
    assert findings(evaluation, "quote_unverifiable") == [("D2", "cited document has no text")]
