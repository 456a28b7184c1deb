"""Anthropic Messages records, built with the anthropic SDK's own models."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import anthropic.types as anthropic_types
from anthropic.types import DocumentBlockParam, MessageParam, SearchResultBlockParam


def anthropic_record(
    *, cited_text: str = "Refunds are issued within 14 days.", **envelope: Any
) -> bytes:
    """A Messages API exchange: two documents and a search result in the request, a text
    block citing document 0 with ``cited_text`` (a char_location)."""
    policy = "Refunds are issued within 14 days. Store credit never expires."
    documents: list[DocumentBlockParam] = [
        {
            "type": "document",
            "title": "Refund policy",
            "citations": {"enabled": True},
            "source": {"type": "text", "media_type": "text/plain", "data": policy},
        },
        {
            "type": "document",
            "title": "Shipping",
            "citations": {"enabled": True},
            "source": {
                "type": "text",
                "media_type": "text/plain",
                "data": "Orders ship within two days.",
            },
        },
    ]
    search: SearchResultBlockParam = {
        "type": "search_result",
        "source": "https://shop.example/faq",
        "title": "FAQ",
        "content": [{"type": "text", "text": "Gift cards cannot be refunded."}],
        "citations": {"enabled": True},
    }
    messages: list[MessageParam] = [
        {
            "role": "user",
            "content": [*documents, search, {"type": "text", "text": "When do I get my refund?"}],
        }
    ]
    message = anthropic_types.Message(
        id="msg_0001",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="end_turn",
        stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=120, output_tokens=30),
        content=[
            anthropic_types.TextBlock(type="text", text="According to the policy, "),
            anthropic_types.TextBlock(
                type="text",
                text="refunds are issued within 14 days",
                citations=[
                    anthropic_types.CitationCharLocation(
                        type="char_location",
                        cited_text=cited_text,
                        document_index=0,
                        document_title="Refund policy",
                        start_char_index=0,
                        end_char_index=34,
                    )
                ],
            ),
            anthropic_types.TextBlock(type="text", text=". "),
            anthropic_types.TextBlock(
                type="text",
                text="Gift cards cannot be refunded",
                citations=[
                    anthropic_types.CitationsSearchResultLocation(
                        type="search_result_location",
                        cited_text="Gift cards cannot be refunded.",
                        search_result_index=0,
                        start_block_index=0,
                        end_block_index=1,
                        source="https://shop.example/faq",
                        title="FAQ",
                    )
                ],
            ),
            anthropic_types.TextBlock(type="text", text="."),
        ],
    )
    record = {
        "app": "shop",
        "timestamp": "2026-12-01T10:00:00Z",
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages},
        "response": json.loads(message.model_dump_json()),
        **envelope,
    }
    return json.dumps(record).encode()


def anthropic_exchange(
    content: list[Any],
    *,
    documents: Sequence[Any] = (),
    sources: list[dict[str, str]] | None = None,
) -> bytes:
    """A Messages API exchange: ``documents`` (block params) before the user's question in
    the request, the response's ``content`` (the SDK's content block models)."""
    messages: list[MessageParam] = [
        {
            "role": "user",
            "content": [*documents, {"type": "text", "text": "What does the policy say?"}],
        }
    ]
    message = anthropic_types.Message(
        id="msg_0002",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="end_turn",
        stop_sequence=None,
        usage=anthropic_types.Usage(input_tokens=120, output_tokens=30),
        content=content,
    )
    record: dict[str, Any] = {
        "app": "shop",
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages},
        "response": json.loads(message.model_dump_json()),
    }
    if sources is not None:
        record["sources"] = sources
    return json.dumps(record).encode()


def text_document(text: str, title: str = "Refund policy") -> DocumentBlockParam:
    """A plain-text document block with citations on."""
    return {
        "type": "document",
        "title": title,
        "citations": {"enabled": True},
        "source": {"type": "text", "media_type": "text/plain", "data": text},
    }


def web_search_blocks(results: list[tuple[str, str]]) -> list[Any]:
    """The server tool call and its result blocks, as the web search tool returns them:
    one result per ``(url, title)``."""
    return [
        anthropic_types.ServerToolUseBlock(
            id="srvtoolu_01",
            type="server_tool_use",
            name="web_search",
            input={"query": "refund policy"},
        ),
        anthropic_types.WebSearchToolResultBlock(
            type="web_search_tool_result",
            tool_use_id="srvtoolu_01",
            content=[
                anthropic_types.WebSearchResultBlock(
                    type="web_search_result",
                    url=url,
                    title=title,
                    encrypted_content="EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5",
                    page_age="April 30, 2025",
                )
                for url, title in results
            ],
        ),
    ]
