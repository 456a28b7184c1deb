"""Judge backends over the openai client: the Responses API and Chat Completions.

Both send the rubric as instructions and the packet as the user message, ask for the
:class:`JudgeResult` JSON schema (structured outputs), temperature 0, and a pinned model.
One client (:mod:`sidecar.judge._openai_http`: no client retries, one connection pool,
bounded replies, no redirects) serves every call of a backend.

Each call goes through the client's own request path (``client.post``: its base URL, auth,
headers, timeout and error classes; ``_openai_http.post_json`` says how each client
version takes the body) with a request body that is mostly pre-serialised
(:mod:`sidecar.judge._openai_request`). The typed ``create`` methods would rebuild and
re-encode all of it on every call and walk it through the client's parameter transform;
that, with the client's full response models, was most of the client's CPU per judged trace
(bench/judge_concurrency.py). Replies are read raw and validated by the lean models of
``_openai_reply`` in one pydantic pass, and their reasons and evidence quotes held to their
limits (``_openai_reply.check_bounds``).
"""

from __future__ import annotations

import openai
import pydantic

from schemas import JudgeBackendName, JudgeResult
from schemas.vocabulary import JudgeErrorKind
from sidecar.config import JudgeSettings
from sidecar.judge._openai_http import (
    BoundedTransport,
    ReplyTooLargeError,
    api_key_configured,
    make_client,
    post_json,
    translate_error,
)
from sidecar.judge._openai_reply import ChatReply, ReplyLimits, ResponsesReply, check_bounds
from sidecar.judge._openai_request import (
    CHAT_RESPONSE_FORMAT,
    JUDGE_SCHEMA,
    RESPONSES_TEXT_FORMAT,
    RequestBody,
)
from sidecar.judge.backend import BackendReply, JudgeCallError
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rubric import Rubric

__all__ = [
    "CHAT_RESPONSE_FORMAT",
    "BoundedTransport",
    "ReplyTooLargeError",
    "JUDGE_SCHEMA",
    "RESPONSES_TEXT_FORMAT",
    "OpenAIChatBackend",
    "OpenAIResponsesBackend",
    "RequestBody",
    "api_key_configured",
    "make_client",
    "translate_error",
]


class _OpenAIBackend:
    """Shared client handling of the two OpenAI-API backends."""

    metered = True

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        self._client = client if client is not None else make_client(settings)
        self._model = settings.model
        self._max_output_tokens = settings.max_output_tokens
        self._limits = ReplyLimits(settings.max_reason_chars, settings.max_quote_chars)

    @property
    def model(self) -> str:
        """The pinned judge model."""
        return self._model

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self._client.close()


class OpenAIResponsesBackend(_OpenAIBackend):
    """A Responses API call with :class:`JudgeResult`'s schema as the text format, its
    final output text parsed as ``client.responses.parse`` would."""

    name: JudgeBackendName = "openai-responses"

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        super().__init__(settings, client)
        self.body = RequestBody(
            {
                "model": self._model,
                "temperature": 0,
                "max_output_tokens": self._max_output_tokens,
                "store": False,
                "text": {"format": RESPONSES_TEXT_FORMAT},
            },
            (',"instructions":', ',"input":', "}"),
        )

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Responses API call; raises :class:`JudgeCallError`."""
        try:
            response = await post_json(
                self._client, "/responses", self.body.encode(rubric, packet), timeout=timeout
            )
            reply = ResponsesReply.model_validate_json(response.content)
            # As the client's parse: every final output text is parsed (a bad one fails the
            # call), and the first is the result.
            parsed = [
                JudgeResult.model_validate_json(content.text or "")
                for item in reply.output or ()
                if item.type == "message"
                for content in item.content or ()
                if content.type == "output_text"
                and (item.phase is None or item.phase == "final_answer")
            ]
        except (
            openai.OpenAIError,
            pydantic.ValidationError,
            ValueError,
            TimeoutError,
            ReplyTooLargeError,
        ) as exc:
            raise translate_error(exc) from exc
        usage = reply.usage
        input_tokens = usage.input_tokens if usage is not None else 0
        output_tokens = usage.output_tokens if usage is not None else 0
        for item in reply.output or ():
            if item.type != "message":
                continue
            for content in item.content or ():
                if content.type == "refusal":
                    raise JudgeCallError(
                        "judge refused",
                        kind="refusal",
                        input_tokens=input_tokens,
                        output_tokens=output_tokens,
                    )
        if not parsed:
            raise JudgeCallError(
                "judge reply has no structured output",
                kind="parse_error",
                input_tokens=input_tokens,
                output_tokens=output_tokens,
            )
        check_bounds(
            parsed[0], self._limits, input_tokens=input_tokens, output_tokens=output_tokens
        )
        return BackendReply(parsed[0], input_tokens, output_tokens)


class OpenAIChatBackend(_OpenAIBackend):
    """A Chat Completions call with the JSON-schema response format, for OpenAI-compatible
    servers without the Responses API.

    The reply is parsed into :class:`JudgeResult` here, as ``chat.completions.parse``
    would. A reply that is not a chat completion (not JSON, wrong shapes) is a
    ``parse_error``.
    """

    name: JudgeBackendName = "openai-chat"

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        super().__init__(settings, client)
        self.body = RequestBody(
            {
                "model": self._model,
                "temperature": 0,
                "max_completion_tokens": self._max_output_tokens,
                "response_format": CHAT_RESPONSE_FORMAT,
            },
            (',"messages":[{"role":"system","content":', '},{"role":"user","content":', "}]}"),
        )

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Chat Completions call; raises :class:`JudgeCallError`."""
        try:
            response = await post_json(
                self._client, "/chat/completions", self.body.encode(rubric, packet), timeout=timeout
            )
            completion = ChatReply.model_validate_json(response.content)
        except (openai.OpenAIError, TimeoutError, ReplyTooLargeError) as exc:
            raise translate_error(exc) from exc
        except pydantic.ValidationError:
            raise JudgeCallError(
                "judge reply is not a chat completion", kind="parse_error"
            ) from None
        usage = completion.usage
        input_tokens = usage.prompt_tokens if usage is not None else 0
        output_tokens = usage.completion_tokens if usage is not None else 0

        def failed(message: str, kind: JudgeErrorKind) -> JudgeCallError:
            return JudgeCallError(
                message, kind=kind, input_tokens=input_tokens, output_tokens=output_tokens
            )

        if not completion.choices:
            raise failed("judge reply has no choices", "parse_error")
        choice = completion.choices[0]
        if choice.message.refusal:
            raise failed("judge refused", "refusal")
        if choice.finish_reason == "content_filter":
            raise failed("judge reply stopped by a content filter", "refusal")
        if choice.finish_reason == "length":
            raise failed("judge reply cut at the token limit", "parse_error")
        if not choice.message.content:
            raise failed("judge reply has no structured output", "parse_error")
        try:
            result = JudgeResult.model_validate_json(choice.message.content)
        except pydantic.ValidationError:
            raise failed("judge reply does not match the verdict schema", "parse_error") from None
        check_bounds(result, self._limits, input_tokens=input_tokens, output_tokens=output_tokens)
        return BackendReply(result, input_tokens, output_tokens)
