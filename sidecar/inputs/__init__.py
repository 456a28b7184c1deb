"""Adapters from what RAG apps already emit to trace v1, one per input format.

Every adapter (:class:`InputAdapter`) turns one raw record into a trace v1 object that
:func:`sidecar.decode.decode_trace` validates under the usual limits, so an adapted record
takes the one path of every trace (derivation, checks, redaction, judge, scoring). Adding a
format is one module, one entry in :data:`_LAZY` and one line in :func:`adapter_for`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas import InputFormat
from sidecar import lazy_names
from sidecar.inputs._adapt import adapted_object
from sidecar.inputs._findings import ADAPTER_FINDINGS, CITED_TEXTS, AdapterFindingCode
from sidecar.inputs.base import InputAdapter, InputError

if TYPE_CHECKING:
    from sidecar.inputs.anthropic_messages import AnthropicMessagesAdapter
    from sidecar.inputs.bedrock import BedrockAdapter
    from sidecar.inputs.gemini import GeminiAdapter
    from sidecar.inputs.openai_chat import OpenAIChatAdapter
    from sidecar.inputs.openai_responses import OpenAIResponsesAdapter
    from sidecar.inputs.otlp import OtlpAdapter

# Each adapter is imported from its module on first use: a run reads one format, and the
# OTLP adapter alone brings the protobuf runtime (about 25 ms of start-up) with it.
_LAZY: dict[str, str] = {
    "AnthropicMessagesAdapter": "sidecar.inputs.anthropic_messages",
    "BedrockAdapter": "sidecar.inputs.bedrock",
    "GeminiAdapter": "sidecar.inputs.gemini",
    "OpenAIChatAdapter": "sidecar.inputs.openai_chat",
    "OpenAIResponsesAdapter": "sidecar.inputs.openai_responses",
    "OtlpAdapter": "sidecar.inputs.otlp",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


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
    """The adapter of ``input_format``; None for trace v1, which needs none. Only the
    adapter's own module is imported."""
    if input_format == "trace_v1":
        return None
    if input_format == "openai_responses":
        from sidecar.inputs.openai_responses import OpenAIResponsesAdapter

        return OpenAIResponsesAdapter()
    if input_format == "openai_chat":
        from sidecar.inputs.openai_chat import OpenAIChatAdapter

        return OpenAIChatAdapter()
    if input_format == "anthropic_messages":
        from sidecar.inputs.anthropic_messages import AnthropicMessagesAdapter

        return AnthropicMessagesAdapter()
    if input_format == "gemini":
        from sidecar.inputs.gemini import GeminiAdapter

        return GeminiAdapter()
    if input_format == "bedrock":
        from sidecar.inputs.bedrock import BedrockAdapter

        return BedrockAdapter()
    from sidecar.inputs.otlp import OtlpAdapter

    return OtlpAdapter(input_format)
