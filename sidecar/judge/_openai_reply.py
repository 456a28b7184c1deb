"""The parts of an OpenAI API reply the judge reads, validated in one pydantic pass.

The openai client turns every reply into its full response models (every field of a
``Response`` or ``ChatCompletion``, field by field in Python) before the judge looks at
three of them; at 32 calls in flight that was most of the client's CPU per judged trace.
The backends take the raw reply instead and validate only the output items, the message
contents and the usage here, with the same leniency as the client (missing fields default,
unknown ones are ignored).

The typed result is then held to the reply limits (:func:`check_bounds`): a reason or an
evidence quote over its limit makes the whole reply a ``reply_too_large`` judge error, never
a verdict, so what a judge sends cannot grow a record or a cache.
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from schemas import JudgeResult
from sidecar.judge.backend import JudgeCallError

__all__ = ["ChatReply", "ReplyLimits", "ResponsesReply", "check_bounds"]


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


class ReplyLimits(NamedTuple):
    """The bounds of one verdict's text (``judge.max_reason_chars``, ``max_quote_chars``)."""

    reason_chars: int
    quote_chars: int


def check_bounds(
    result: JudgeResult, limits: ReplyLimits, *, input_tokens: int = 0, output_tokens: int = 0
) -> None:
    """Raise ``reply_too_large`` when a verdict's reason or evidence quote is over its limit.

    A quote within the limit but longer than every cited passage cannot be a quote of one:
    the quote check finds it in none (``quote_not_found``, as any fabricated quote), so it is
    never accepted either; it is not a judge error, because a fabricated quote is a fact
    about the answer that pages, not a failure of the judge."""
    for verdict in result.verdicts:
        problem = ""
        if len(verdict.reason) > limits.reason_chars:
            problem = f"a reason of {len(verdict.reason)} characters (limit {limits.reason_chars})"
        elif len(verdict.evidence_quote) > limits.quote_chars:
            problem = (
                f"an evidence quote of {len(verdict.evidence_quote)} characters "
                f"(limit {limits.quote_chars})"
            )
        if problem:
            raise JudgeCallError(
                f"judge reply has {problem}",
                kind="reply_too_large",
                input_tokens=input_tokens,
                output_tokens=output_tokens,
            )
