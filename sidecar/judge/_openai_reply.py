"""The parts of an OpenAI API reply the judge reads, validated in one pydantic pass.

The openai client turns every reply into its full response models (every field of a
``Response`` or ``ChatCompletion``, field by field in Python) before the judge looks at
three of them; at 32 calls in flight that was most of the client's CPU per judged trace.
The backends take the raw reply instead and validate only the output items, the message
contents and the usage here, with the same leniency as the client (missing fields default,
unknown ones are ignored).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ChatReply", "ResponsesReply"]


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Content(_Lenient):
    type: str = ""
    text: str | None = None


class _OutputItem(_Lenient):
    type: str = ""
    phase: str | None = None
    content: list[_Content] | None = None


class _ResponsesUsage(_Lenient):
    input_tokens: int = 0
    output_tokens: int = 0


class ResponsesReply(_Lenient):
    """A Responses API reply: its output items and token usage."""

    output: list[_OutputItem] | None = None
    usage: _ResponsesUsage | None = None


class _Message(_Lenient):
    content: str | None = None
    refusal: str | None = None


class _Choice(_Lenient):
    finish_reason: str | None = None
    message: _Message = Field(default_factory=_Message)


class _ChatUsage(_Lenient):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatReply(_Lenient):
    """A Chat Completions reply: its choices and token usage."""

    choices: list[_Choice] | None = None
    usage: _ChatUsage | None = None
