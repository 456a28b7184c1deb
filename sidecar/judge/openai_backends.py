"""Judge backends over the openai client: the Responses API and Chat Completions.

Both send the rubric as instructions and the packet as the user message, ask for the
:class:`JudgeResult` JSON schema (structured outputs), temperature 0, and a pinned model.
The client is built with ``max_retries=0``: the judge stage retries, so it can bound and
count every attempt.
"""

from __future__ import annotations

import email.utils
import inspect
import os
import time
from typing import Any

import openai
import pydantic

from schemas import JudgeResult
from sidecar.config import JudgeSettings
from sidecar.judge.backend import BackendReply, JudgeCallError
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rubric import Rubric

__all__ = [
    "OpenAIChatBackend",
    "OpenAIResponsesBackend",
    "api_key_configured",
    "make_client",
    "translate_error",
]

_RETRIABLE_STATUS = frozenset({408, 409})


def api_key_configured(settings: JudgeSettings) -> bool:
    """Whether an API key comes from the settings or OPENAI_API_KEY."""
    return settings.api_key is not None or bool(os.environ.get("OPENAI_API_KEY"))


def make_client(settings: JudgeSettings) -> openai.AsyncOpenAI:
    """An async client for the configured endpoint, without the client's own retries."""
    key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    kwargs: dict[str, Any] = {}
    if settings.base_url is not None:
        kwargs["base_url"] = settings.base_url
    return openai.AsyncOpenAI(
        api_key=key,
        timeout=settings.timeout_seconds,
        max_retries=0,
        **kwargs,
    )


def _retry_after(headers: Any) -> float | None:
    """Seconds from Retry-After-Ms or Retry-After (seconds or an HTTP date)."""
    if headers is None:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000.0)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def translate_error(exc: BaseException) -> JudgeCallError:
    """The judge error for an exception raised by the openai client or its parsing."""
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return JudgeCallError("judge call timed out", kind="timeout", retriable=True)
    if isinstance(exc, openai.APIConnectionError):
        return JudgeCallError("judge endpoint unreachable", kind="api_error", retriable=True)
    if isinstance(exc, openai.RateLimitError):
        return JudgeCallError("judge rate limited (429)", kind="rate_limited", retriable=True,
                              retry_after=_retry_after(exc.response.headers))
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retriable = status >= 500 or status in _RETRIABLE_STATUS
        return JudgeCallError(f"judge endpoint answered {status}", kind="api_error",
                              retriable=retriable,
                              retry_after=_retry_after(exc.response.headers) if retriable else None)
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return JudgeCallError("judge reply stopped by a content filter", kind="refusal")
    if isinstance(exc, openai.LengthFinishReasonError):
        return JudgeCallError("judge reply cut at the token limit", kind="parse_error")
    if isinstance(exc, pydantic.ValidationError | ValueError):
        return JudgeCallError("judge reply does not match the verdict schema",
                              kind="parse_error")
    return JudgeCallError(f"judge call failed: {type(exc).__name__}", kind="api_error")


class _OpenAIBackend:
    """Shared client handling of the two OpenAI-API backends."""

    metered = True

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        self._client = client if client is not None else make_client(settings)
        self._model = settings.model
        self._max_output_tokens = settings.max_output_tokens

    @property
    def model(self) -> str:
        """The pinned judge model."""
        return self._model

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self._client.close()


def _has_parse_as() -> bool:
    from openai.resources.responses import AsyncResponses

    return "parse_as" in inspect.signature(AsyncResponses.parse).parameters


_HAS_PARSE_AS = _has_parse_as()


def _strict_text_format() -> dict[str, Any]:
    """The Responses API ``text.format`` for :class:`JudgeResult`, built once.

    ``responses.parse(text_format=...)`` rebuilds the strict schema on every call (several
    ms of CPU); sending the same format with ``parse_as`` keeps the typed parsing.
    """
    from openai.lib._parsing._responses import type_to_text_format_param

    return dict(type_to_text_format_param(JudgeResult))


class OpenAIResponsesBackend(_OpenAIBackend):
    """``client.responses.parse`` with :class:`JudgeResult` as the text format."""

    name = "openai-responses"

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        super().__init__(settings, client)
        # Clients before 3.x have no ``parse_as``: they get ``text_format`` (same request).
        self._format_args: dict[str, Any] = (
            {"text": {"format": _strict_text_format()}, "parse_as": JudgeResult}
            if _HAS_PARSE_AS else {"text_format": JudgeResult}
        )

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Responses API call; raises :class:`JudgeCallError`."""
        try:
            response = await self._client.responses.parse(
                model=self._model,
                instructions=rubric.text,
                input=packet.render(),
                **self._format_args,
                temperature=0,
                max_output_tokens=self._max_output_tokens,
                store=False,
                timeout=timeout,
            )
        except (openai.OpenAIError, pydantic.ValidationError, ValueError, TimeoutError) as exc:
            raise translate_error(exc) from exc
        usage = response.usage
        input_tokens = usage.input_tokens if usage is not None else 0
        output_tokens = usage.output_tokens if usage is not None else 0
        for item in response.output:
            if item.type != "message":
                continue
            for content in item.content:
                if content.type == "refusal":
                    raise JudgeCallError("judge refused", kind="refusal",
                                         input_tokens=input_tokens, output_tokens=output_tokens)
        parsed = response.output_parsed
        if parsed is None:
            raise JudgeCallError("judge reply has no structured output", kind="parse_error",
                                 input_tokens=input_tokens, output_tokens=output_tokens)
        return BackendReply(parsed, input_tokens, output_tokens)


class OpenAIChatBackend(_OpenAIBackend):
    """``client.chat.completions.parse`` with a JSON-schema response format, for
    OpenAI-compatible servers without the Responses API."""

    name = "openai-chat"

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Chat Completions call; raises :class:`JudgeCallError`."""
        try:
            completion = await self._client.chat.completions.parse(
                model=self._model,
                messages=[
                    {"role": "system", "content": rubric.text},
                    {"role": "user", "content": packet.render()},
                ],
                response_format=JudgeResult,
                temperature=0,
                max_completion_tokens=self._max_output_tokens,
                timeout=timeout,
            )
        except (openai.OpenAIError, pydantic.ValidationError, ValueError, TimeoutError) as exc:
            raise translate_error(exc) from exc
        usage = completion.usage
        input_tokens = usage.prompt_tokens if usage is not None else 0
        output_tokens = usage.completion_tokens if usage is not None else 0
        if not completion.choices:
            raise JudgeCallError("judge reply has no choices", kind="parse_error",
                                 input_tokens=input_tokens, output_tokens=output_tokens)
        message = completion.choices[0].message
        if message.refusal:
            raise JudgeCallError("judge refused", kind="refusal",
                                 input_tokens=input_tokens, output_tokens=output_tokens)
        if message.parsed is None:
            raise JudgeCallError("judge reply has no structured output", kind="parse_error",
                                 input_tokens=input_tokens, output_tokens=output_tokens)
        return BackendReply(message.parsed, input_tokens, output_tokens)
