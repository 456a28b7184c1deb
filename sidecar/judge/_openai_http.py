"""The openai client of the judge backends, and its errors as judge errors.

The client is built with ``max_retries=0`` (the judge stage retries, so it can bound and
count every attempt) and one connection pool sized for the configured concurrency. What a
judge endpoint sends is bounded before it is believed: the client's transport
(:class:`BoundedTransport`) refuses a reply whose declared length is over
``judge.max_reply_bytes`` before reading its body, and stops reading one that grows past it
(so a flood is never held whole in memory); redirects are not followed (the redacted packet
goes to the configured endpoint only), and a redirect is the judge error ``redirect``.

A request body goes out through the client's own ``post`` (:func:`post_json`): as the raw
bytes it was encoded to, where ``post`` takes them (``content=``, openai 2.x and later); as
a mapping the client encodes itself on the 1.x clients, whose ``post`` has no such argument
(and whose earlier releases JSON-encode whatever ``body`` holds).
"""

from __future__ import annotations

import email.utils
import importlib
import inspect
import json
import time
from typing import Any, Final

import openai
import pydantic

from sidecar.config import JudgeSettings
from sidecar.judge._api_key import api_key_configured
from sidecar.judge.backend import JudgeCallError

__all__ = [
    "HTTP_LIBRARY",
    "HTTP_RESPONSE",
    "BoundedTransport",
    "ReplyTooLargeError",
    "api_key_configured",
    "make_client",
    "post_json",
    "translate_error",
]

_RETRIABLE_STATUS = frozenset({408, 409})


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
HTTP_RESPONSE: Final = _HTTP.Response
"""The client's raw response class: ``client.post`` hands one back when cast to it."""
HTTP_LIBRARY: Final = _HTTP
"""The HTTP library under the openai client (its transports, requests and responses)."""
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
        return _HTTP.Response(
            response.status_code,
            headers=response.headers,
            stream=_BoundedStream(response.stream, self._limit),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


def _post_takes_content() -> bool:
    """Whether the client's ``post`` takes a raw request body as ``content=``."""
    try:
        parameters = inspect.signature(openai.AsyncOpenAI.post).parameters
    except (TypeError, ValueError):  # not introspectable: the argument every client has
        return False
    return "content" in parameters


POST_TAKES_CONTENT: Final = _post_takes_content()
"""Whether :func:`post_json` hands the client the encoded bytes (else a mapping)."""


async def post_json(client: openai.AsyncOpenAI, path: str, body: bytes, *, timeout: float) -> Any:
    """POST the JSON ``body`` to ``path`` through the client's own request path (base URL,
    auth, headers, timeout, error classes) and return the raw response.

    Raises what the client raises (``openai.OpenAIError`` and its subclasses).
    """
    if POST_TAKES_CONTENT:
        return await client.post(
            path, cast_to=HTTP_RESPONSE, content=body, options={"timeout": timeout}
        )
    # A 1.x client: only ``body=``, which it encodes as JSON itself (bytes there are sent
    # as they are by late 1.x releases and refused by early ones, so a mapping for all).
    return await client.post(
        path, cast_to=HTTP_RESPONSE, body=json.loads(body), options={"timeout": timeout}
    )


def make_client(settings: JudgeSettings, *, transport: Any = None) -> openai.AsyncOpenAI:
    """An async client for the configured endpoint, without the client's own retries, with
    one connection pool that keeps ``settings.concurrency`` connections alive, replies
    bounded to ``settings.max_reply_bytes`` and no redirects followed. ``transport``
    replaces the pool (the start-up self-test answers in process)."""
    key = settings.api_key.get_secret_value() if settings.api_key is not None else None
    kwargs: dict[str, Any] = {}
    if settings.base_url is not None:
        kwargs["base_url"] = settings.base_url
    if transport is None:
        transport = _HTTP.AsyncHTTPTransport(limits=_pool_limits(settings.concurrency))
    transport = BoundedTransport(transport, settings.max_reply_bytes)
    return openai.AsyncOpenAI(
        api_key=key,
        timeout=settings.timeout_seconds,
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=transport, follow_redirects=False),
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
        return JudgeCallError(
            "judge rate limited (429)",
            kind="rate_limited",
            retriable=True,
            retry_after=_retry_after(exc.response.headers),
        )
    if isinstance(exc, openai.APIStatusError) and 300 <= exc.status_code < 400:
        return JudgeCallError(
            f"judge endpoint answered a redirect ({exc.status_code}), which is not followed",
            kind="redirect",
        )
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        retriable = status >= 500 or status in _RETRIABLE_STATUS
        return JudgeCallError(
            f"judge endpoint answered {status}",
            kind="api_error",
            retriable=retriable,
            retry_after=_retry_after(exc.response.headers) if retriable else None,
        )
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return JudgeCallError("judge reply stopped by a content filter", kind="refusal")
    if isinstance(exc, openai.LengthFinishReasonError):
        return JudgeCallError("judge reply cut at the token limit", kind="parse_error")
    if isinstance(exc, pydantic.ValidationError | ValueError):
        return JudgeCallError("judge reply does not match the verdict schema", kind="parse_error")
    return JudgeCallError(f"judge call failed: {type(exc).__name__}", kind="api_error")
