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
from tests.support.payloads.bedrock import (
    KB_TEXTS,
    RAG_ANSWER,
    converse_record,
    rag_citation,
    retrieve_and_generate_record,
)
from tests.support.payloads.gemini import (
    CAFE_URL,
    GEMINI_ANSWER,
    byte_span,
    gemini_record,
    gemini_response,
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
    RETRIEVED,
    openinference_spans,
    otlp_json_record,
    otlp_proto_record,
    record_rag_requests,
    spans_of,
)

__all__ = [
    "CAFE_URL",
    "GEMINI_ANSWER",
    "KB_TEXTS",
    "LINK",
    "OWN_MARKERS",
    "POLICY_SOURCES",
    "RAG_ANSWER",
    "RETRIEVED",
    "RETURNS_TEXT",
    "WARRANTY_TEXT",
    "WARRANTY_URL",
    "anthropic_exchange",
    "anthropic_record",
    "byte_span",
    "chat_exchange",
    "chat_record",
    "converse_record",
    "gemini_record",
    "gemini_response",
    "openinference_spans",
    "otlp_json_record",
    "otlp_proto_record",
    "rag_citation",
    "record_rag_requests",
    "responses_exchange",
    "responses_record",
    "retrieve_and_generate_record",
    "spans_of",
    "text_document",
    "web_search_blocks",
]
