"""Adapters from what RAG apps already emit to trace v1, one per input format.

Every adapter (:class:`InputAdapter`) turns one raw record into a trace v1 object that
:func:`sidecar.decode.decode_trace` validates under the usual limits, so an adapted record
takes the one path of every trace (derivation, checks, redaction, judge, scoring). Adding a
format is one module and one line in :func:`adapter_for`.
"""

from __future__ import annotations

from schemas import InputFormat
from sidecar.inputs._adapt import adapted_object
from sidecar.inputs._findings import ADAPTER_FINDINGS, AdapterFindingCode
from sidecar.inputs.anthropic_messages import CITED_TEXTS, AnthropicMessagesAdapter
from sidecar.inputs.base import InputAdapter, InputError
from sidecar.inputs.bedrock import BedrockAdapter
from sidecar.inputs.gemini import GeminiAdapter
from sidecar.inputs.openai_chat import OpenAIChatAdapter
from sidecar.inputs.openai_responses import OpenAIResponsesAdapter
from sidecar.inputs.otlp import OtlpAdapter

__all__ = [
    "ADAPTER_FINDINGS",
    "AdapterFindingCode",
    "CITED_TEXTS",
    "LINE_FORMATS",
    "AnthropicMessagesAdapter",
    "BedrockAdapter",
    "GeminiAdapter",
    "InputAdapter",
    "InputError",
    "OpenAIChatAdapter",
    "OpenAIResponsesAdapter",
    "OtlpAdapter",
    "adapted_object",
    "adapter_for",
]

LINE_FORMATS: frozenset[InputFormat] = frozenset(
    {
        "trace_v1",
        "openai_responses",
        "openai_chat",
        "anthropic_messages",
        "gemini",
        "bedrock",
        "otlp_json",
    }
)
"""The formats a JSON Lines file can hold (protobuf records come from Kafka only)."""


def adapter_for(input_format: InputFormat) -> InputAdapter | None:
    """The adapter of ``input_format``; None for trace v1, which needs none."""
    if input_format == "trace_v1":
        return None
    if input_format == "openai_responses":
        return OpenAIResponsesAdapter()
    if input_format == "openai_chat":
        return OpenAIChatAdapter()
    if input_format == "anthropic_messages":
        return AnthropicMessagesAdapter()
    if input_format == "gemini":
        return GeminiAdapter()
    if input_format == "bedrock":
        return BedrockAdapter()
    return OtlpAdapter(input_format)
