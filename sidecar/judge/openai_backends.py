"""Judge backends over the openai client: the Responses API and Chat Completions.

Both send the rubric as instructions and the packet as the user message, ask for the
:class:`JudgeResult` JSON schema (structured outputs), temperature 0, and a pinned model.
The client is built with ``max_retries=0``: the judge stage retries, so it can bound and
count every attempt.

The schema sent is the strict schema of :class:`JudgeResult` without titles and field
descriptions (the rubric says what each field holds; a provider bills the schema as prompt
tokens), built once per process. One client, with one connection pool sized for the
configured concurrency, serves every call of a backend.

Each call goes through the client's own request path (``client.post``: its base URL, auth,
headers, timeout and error classes) with a request body that is mostly pre-serialised: the
model, the rubric, the schema and the sampling options are JSON-encoded once per rubric
(:class:`RequestBody`), and a call only appends its packet. The typed ``create`` methods
would rebuild and re-encode all of that on every call and walk it through the client's
parameter transform; that, with the client's full response models, was most of the client's
CPU per judged trace (bench/judge_concurrency.py). The request JSON is the same as what
``create`` sends. Replies are read raw and validated by the lean models of ``_openai_reply``
in one pydantic pass.

What a judge endpoint sends is bounded before it is believed: the client's transport
(:class:`BoundedTransport`) refuses a reply whose declared length is over
``judge.max_reply_bytes`` before reading its body, and stops reading one that grows past it
(so a flood is never held whole in memory); redirects are not followed (the redacted packet
goes to the configured endpoint only), and a redirect is the judge error ``redirect``; the
reply's reasons and evidence quotes are held to their limits (``_openai_reply.check_bounds``).
"""

from __future__ import annotations

import email.utils
import importlib
import json
import os
import time
from collections.abc import Mapping
from typing import Any, Final

import openai
import pydantic
from openai.types.shared_params import ResponseFormatJSONSchema

from schemas import JudgeBackendName, JudgeResult
from schemas.vocabulary import JudgeErrorKind
from sidecar.config import JudgeSettings
from sidecar.judge._openai_reply import ChatReply, ReplyLimits, ResponsesReply, check_bounds
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

_RETRIABLE_STATUS = frozenset({408, 409})


def api_key_configured(settings: JudgeSettings) -> bool:
    """Whether an API key comes from the settings or OPENAI_API_KEY."""
    return settings.api_key is not None or bool(os.environ.get("OPENAI_API_KEY"))


def _pool_limits(concurrency: int) -> Any:
    """The client's default connection limits, raised to keep ``concurrency`` connections
    alive (the default keeps 100; more calls in flight would reconnect on every call)."""
    from openai._constants import DEFAULT_CONNECTION_LIMITS as default

    return type(default)(
        max_connections=max(concurrency, default.max_connections or 0),
        max_keepalive_connections=max(concurrency, default.max_keepalive_connections or 0),
        keepalive_expiry=default.keepalive_expiry,
    )


def _http_library() -> Any:
    """The HTTP library under the openai client (httpx2 or httpx, depending on the client's
    version): its transports and its Response class (``client.post`` hands back the raw
    response when asked to cast to it)."""
    for base in openai.DefaultAsyncHttpxClient.__mro__:
        package = base.__module__.partition(".")[0]
        if package in ("openai", "builtins"):
            continue
        library = importlib.import_module(package)
        if isinstance(getattr(library, "Response", None), type):
            return library
    raise ImportError("the openai client's HTTP library has no Response class")


_HTTP: Final = _http_library()
_HTTP_RESPONSE: Final = _HTTP.Response
_ByteStream: Any = _HTTP.AsyncByteStream
_BaseTransport: Any = _HTTP.AsyncBaseTransport


class ReplyTooLargeError(Exception):
    """A judge reply over ``judge.max_reply_bytes``, refused while it was read."""


class _BoundedStream(_ByteStream):  # type: ignore[misc]
    """A response body that raises once more than ``limit`` bytes have arrived."""

    def __init__(self, stream: Any, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> Any:
        received = 0
        async for chunk in self._stream:
            received += len(chunk)
            if received > self._limit:
                raise ReplyTooLargeError(f"judge reply over {self._limit} bytes")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


class BoundedTransport(_BaseTransport):  # type: ignore[misc]
    """An HTTP transport whose responses are at most ``limit`` bytes: a larger declared
    Content-Length is refused before the body is read, a body that grows past it while
    read (chunked, or lying about its length) is cut there with :class:`ReplyTooLargeError`."""

    def __init__(self, inner: Any, limit: int) -> None:
        self._inner = inner
        self._limit = limit

    async def handle_async_request(self, request: Any) -> Any:
        response = await self._inner.handle_async_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self._limit:
            await response.aclose()
            raise ReplyTooLargeError(f"judge reply of {declared} bytes, over {self._limit}")
        return _HTTP.Response(response.status_code, headers=response.headers,
                              stream=_BoundedStream(response.stream, self._limit),
                              extensions=response.extensions)

    async def aclose(self) -> None:
        await self._inner.aclose()


def make_client(settings: JudgeSettings) -> openai.AsyncOpenAI:
    """An async client for the configured endpoint, without the client's own retries, with
    one connection pool that keeps ``settings.concurrency`` connections alive, replies
    bounded to ``settings.max_reply_bytes`` and no redirects followed."""
    key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    kwargs: dict[str, Any] = {}
    if settings.base_url is not None:
        kwargs["base_url"] = settings.base_url
    transport = BoundedTransport(
        _HTTP.AsyncHTTPTransport(limits=_pool_limits(settings.concurrency)),
        settings.max_reply_bytes)
    return openai.AsyncOpenAI(
        api_key=key,
        timeout=settings.timeout_seconds,
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=transport,
                                                   follow_redirects=False),
        **kwargs,
    )


def _too_large(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    for _ in range(8):  # the client wraps transport errors; the chain is short
        if seen is None:
            return False
        if isinstance(seen, ReplyTooLargeError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


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
    if _too_large(exc):
        return JudgeCallError("judge reply over judge.max_reply_bytes", kind="reply_too_large")
    if isinstance(exc, openai.APITimeoutError | TimeoutError):
        return JudgeCallError("judge call timed out", kind="timeout", retriable=True)
    if isinstance(exc, openai.APIConnectionError):
        return JudgeCallError("judge endpoint unreachable", kind="api_error", retriable=True)
    if isinstance(exc, openai.RateLimitError):
        return JudgeCallError("judge rate limited (429)", kind="rate_limited", retriable=True,
                              retry_after=_retry_after(exc.response.headers))
    if isinstance(exc, openai.APIStatusError) and 300 <= exc.status_code < 400:
        return JudgeCallError(f"judge endpoint answered a redirect ({exc.status_code}), "
                              "which is not followed", kind="redirect")
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
        self._limits = ReplyLimits(settings.max_reason_chars, settings.max_quote_chars)

    @property
    def model(self) -> str:
        """The pinned judge model."""
        return self._model

    async def aclose(self) -> None:
        """Close the client's connections."""
        await self._client.close()


_ANNOTATIONS = frozenset({"title", "description"})


def _lean(node: Any, defs: Mapping[str, Any]) -> Any:
    """``node`` without titles and descriptions, with ``$ref``s to ``defs`` inlined."""
    if isinstance(node, list):
        return [_lean(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _lean(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS or key == "$defs":
            continue
        if key == "properties":
            # Property names are data here, not annotations: keep every one.
            out[key] = {name: _lean(sub, defs) for name, sub in value.items()}
        else:
            out[key] = _lean(value, defs)
    return out


def _judge_schema() -> dict[str, Any]:
    from openai.lib._pydantic import to_strict_json_schema

    strict = to_strict_json_schema(JudgeResult)
    lean: dict[str, Any] = _lean(strict, strict.get("$defs", {}))
    return lean


JUDGE_SCHEMA: dict[str, Any] = _judge_schema()
"""The strict JSON schema of :class:`JudgeResult` as sent: no titles or descriptions."""

RESPONSES_TEXT_FORMAT: dict[str, Any] = {
    "type": "json_schema", "name": "JudgeResult", "strict": True, "schema": JUDGE_SCHEMA,
}
"""``text.format`` of a Responses API judge call."""

CHAT_RESPONSE_FORMAT: ResponseFormatJSONSchema = {
    "type": "json_schema",
    "json_schema": {"name": "JudgeResult", "strict": True, "schema": JUDGE_SCHEMA},
}
"""``response_format`` of a Chat Completions judge call."""




def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class RequestBody:
    """The JSON body of one backend's judge calls, encoded once per rubric.

    ``fixed`` holds every field that does not change from call to call (model, sampling
    options, the output format with its schema); ``template`` says where the rubric and the
    packet go, as ``(before_rubric, between, after_packet)`` JSON fragments. A call encodes
    only its packet (as a JSON string value) and joins the pieces.
    """

    __slots__ = ("_before", "_between", "_after", "_rubric", "_head")

    def __init__(self, fixed: Mapping[str, Any], template: tuple[str, str, str]) -> None:
        # fixed's object without its closing brace, then the template's fragments.
        self._before = _json(dict(fixed))[:-1] + template[0].encode("utf-8")
        self._between = template[1].encode("utf-8")
        self._after = template[2].encode("utf-8")
        self._rubric: Rubric | None = None
        self._head = b""

    def encode(self, rubric: Rubric, packet: JudgePacket) -> bytes:
        """The body for ``packet`` under ``rubric`` (the rubric's part is encoded once)."""
        if rubric is not self._rubric:
            self._head = self._before + _json(rubric.text) + self._between
            self._rubric = rubric
        return b"".join((self._head, _json(packet.render()), self._after))


class OpenAIResponsesBackend(_OpenAIBackend):
    """A Responses API call with :class:`JudgeResult`'s schema as the text format, its
    final output text parsed as ``client.responses.parse`` would."""

    name: JudgeBackendName = "openai-responses"

    def __init__(self, settings: JudgeSettings, client: openai.AsyncOpenAI | None = None) -> None:
        super().__init__(settings, client)
        self.body = RequestBody(
            {"model": self._model, "temperature": 0,
             "max_output_tokens": self._max_output_tokens, "store": False,
             "text": {"format": RESPONSES_TEXT_FORMAT}},
            (',"instructions":', ',"input":', "}"),
        )

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Responses API call; raises :class:`JudgeCallError`."""
        try:
            response = await self._client.post(
                "/responses", cast_to=_HTTP_RESPONSE, content=self.body.encode(rubric, packet),
                options={"timeout": timeout},
            )
            reply = ResponsesReply.model_validate_json(response.content)
            # As the client's parse: every final output text is parsed (a bad one fails the
            # call), and the first is the result.
            parsed = [
                JudgeResult.model_validate_json(content.text or "")
                for item in reply.output or () if item.type == "message"
                for content in item.content or () if content.type == "output_text"
                and (item.phase is None or item.phase == "final_answer")
            ]
        except (openai.OpenAIError, pydantic.ValidationError, ValueError, TimeoutError,
                ReplyTooLargeError) as exc:
            raise translate_error(exc) from exc
        usage = reply.usage
        input_tokens = usage.input_tokens if usage is not None else 0
        output_tokens = usage.output_tokens if usage is not None else 0
        for item in reply.output or ():
            if item.type != "message":
                continue
            for content in item.content or ():
                if content.type == "refusal":
                    raise JudgeCallError("judge refused", kind="refusal",
                                         input_tokens=input_tokens, output_tokens=output_tokens)
        if not parsed:
            raise JudgeCallError("judge reply has no structured output", kind="parse_error",
                                 input_tokens=input_tokens, output_tokens=output_tokens)
        check_bounds(parsed[0], self._limits, input_tokens=input_tokens,
                     output_tokens=output_tokens)
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
            {"model": self._model, "temperature": 0,
             "max_completion_tokens": self._max_output_tokens,
             "response_format": CHAT_RESPONSE_FORMAT},
            (',"messages":[{"role":"system","content":', '},{"role":"user","content":',
             "}]}"),
        )

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        """One Chat Completions call; raises :class:`JudgeCallError`."""
        try:
            response = await self._client.post(
                "/chat/completions", cast_to=_HTTP_RESPONSE,
                content=self.body.encode(rubric, packet), options={"timeout": timeout},
            )
            completion = ChatReply.model_validate_json(response.content)
        except (openai.OpenAIError, TimeoutError, ReplyTooLargeError) as exc:
            raise translate_error(exc) from exc
        except pydantic.ValidationError:
            raise JudgeCallError("judge reply is not a chat completion",
                                 kind="parse_error") from None
        usage = completion.usage
        input_tokens = usage.prompt_tokens if usage is not None else 0
        output_tokens = usage.completion_tokens if usage is not None else 0

        def failed(message: str, kind: JudgeErrorKind) -> JudgeCallError:
            return JudgeCallError(message, kind=kind, input_tokens=input_tokens,
                                  output_tokens=output_tokens)

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
            raise failed("judge reply does not match the verdict schema",
                         "parse_error") from None
        check_bounds(result, self._limits, input_tokens=input_tokens,
                     output_tokens=output_tokens)
        return BackendReply(result, input_tokens, output_tokens)
