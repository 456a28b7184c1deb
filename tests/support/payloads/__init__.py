"""Records of each input format, built with the SDKs' own models (openai, anthropic,
google-genai, botocore's service model, opentelemetry-sdk and opentelemetry-proto),
serialised as the wire carries them."""

from __future__ import annotations

from tests.support.payloads._base import LINK, RETURNS_TEXT, WARRANTY_TEXT, WARRANTY_URL
from tests.support.payloads.anthropic import (
    anthropic_exchange,
    anthropic_record,
    text_document,
    web_search_blocks,
)
from tests.support.payloads.openai import (
    OWN_MARKERS,
    POLICY_SOURCES,
    chat_exchange,
    chat_record,
    responses_exchange,
    responses_record,
)
from tests.support.payloads.otlp import (
    openinference_spans,
    otlp_json_record,
    otlp_proto_record,
    record_rag_requests,
)

__all__ = [
    "LINK",
    "OWN_MARKERS",
    "POLICY_SOURCES",
    "RETURNS_TEXT",
    "WARRANTY_TEXT",
    "WARRANTY_URL",
    "anthropic_exchange",
    "anthropic_record",
    "chat_exchange",
    "chat_record",
    "openinference_spans",
    "otlp_json_record",
    "otlp_proto_record",
    "record_rag_requests",
    "responses_exchange",
    "responses_record",
    "text_document",
    "web_search_blocks",
]
