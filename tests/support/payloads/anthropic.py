"""Anthropic Messages records, built with the anthropic SDK's own models."""

from __future__ import annotations

import json
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
