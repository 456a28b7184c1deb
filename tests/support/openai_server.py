"""A local HTTP server speaking the OpenAI Responses and Chat Completions APIs, for tests and
benchmarks.

Replies are scripted: queued actions are used first, in order, then the ``responder`` (by
default: every requested claim supported, quoting its first passage). Every request is
recorded with its path, headers, JSON body and client address (one per connection). A reply
goes out ``latency`` seconds after its request arrived, whatever the server's own work.
Latency and faults (HTTP statuses with headers, hangs longer than the client's timeout) can
be injected. Prompt tokens are counted the same way for every client (word and punctuation
tokens of all message text), so different frameworks can be compared on one server.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "FakeOpenAI",
    "Hang",
    "Recorded",
    "Reply",
    "Status",
    "not_found",
    "packet_of",
    "parse_packet",
    "prompt_text",
    "supported_everything",
    "verdicts_reply",
]

# A word, a punctuation mark, or a datamark (U+02C6, a modifier letter, which \w would join
# to the words around it): a mark between words costs a token, as it does in the BPE
# vocabularies where it is its own token.
_TOKEN = re.compile(r"[^\W\u02c6]+|[^\w\s]|\u02c6")


@dataclass(frozen=True)
class Reply:
    """A 200 reply whose output text is ``text`` (or a refusal)."""

    text: str = ""
    refusal: str | None = None
    output_tokens: int | None = None
    delay: float = 0.0
    finish_reason: str = "stop"
    """Chat Completions only: e.g. "length" for a reply cut at the token limit."""


@dataclass(frozen=True)
class Status:
    """An error status with headers, e.g. 429 with Retry-After."""

    code: int
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class Hang:
    """Answer nothing for ``seconds`` (the client times out first)."""

    seconds: float = 30.0


Action = Reply | Status | Hang


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    peer: tuple[str, int] = ("", 0)
    """The client's address and port: one per connection."""

    @property
    def text(self) -> str:
        """All message text of the request (instructions, input, chat messages)."""
        return prompt_text(self.body)


def prompt_text(body: dict[str, Any]) -> str:
    """The text a model would read: instructions and input, or every chat message."""
    parts: list[str] = []

    def collect(content: Any) -> None:
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for item in content:
                if isinstance(item, dict):
                    collect(item.get("text") or item.get("content"))
                else:
                    collect(item)

    if "instructions" in body and body["instructions"]:
        parts.append(str(body["instructions"]))
    if "input" in body:
        collect(body["input"])
    for message in body.get("messages", []):
        collect(message.get("content"))
    return "\n".join(parts)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def parse_packet(text: str) -> dict[str, Any] | None:
    """A citewatch packet (one JSON object ``{"question", "passages": [{"id", "text"}],
    "claims": [{"claim_id", "cites", "text"}]}``, nothing else) as ``{"question",
    "passages": [{"passage_id", "text"}], "claims": [{"claim_id", "claim", "passage_ids"}]}``;
    None when ``text`` is not exactly one. Independent of the renderer's code and strict
    about its shape (no other keys, every value a string), so tests check what was sent.
    The question and passage texts come back as a model reads them: their datamarks
    (U+02C6 between words) as spaces."""
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if not isinstance(document, dict) or set(document) != {"question", "passages", "claims"}:
        return None
    question, passages, claims = document["question"], document["passages"], document["claims"]
    if (
        not isinstance(question, str)
        or not isinstance(passages, list)
        or not isinstance(claims, list)
    ):
        return None
    out_passages, out_claims = [], []
    for passage in passages:
        if (
            not isinstance(passage, dict)
            or set(passage) != {"id", "text"}
            or not _strings([passage["id"], passage["text"]])
        ):
            return None
        out_passages.append(
            {"passage_id": passage["id"], "text": passage["text"].replace("\u02c6", " ")}
        )
    for claim in claims:
        if (
            not isinstance(claim, dict)
            or set(claim) != {"claim_id", "cites", "text"}
            or not _strings([claim["claim_id"], claim["text"]])
            or not _strings(claim["cites"])
        ):
            return None
        out_claims.append(
            {
                "claim_id": claim["claim_id"],
                "claim": claim["text"],
                "passage_ids": list(claim["cites"]),
            }
        )
    return {
        "question": question.replace("\u02c6", " "),
        "passages": out_passages,
        "claims": out_claims,
    }


def packet_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The citewatch packet (the user message) inside a request, if it is one."""
    candidates: list[Any] = [body.get("input")]
    candidates += [m.get("content") for m in body.get("messages", [])]
    for candidate in reversed(candidates):
        if isinstance(candidate, str):
            packet = parse_packet(candidate)
            if packet is not None:
                return packet
    return None


def verdicts_reply(verdicts: list[dict[str, str]], **kwargs: Any) -> Reply:
    """A reply carrying these verdicts as the structured output."""
    return Reply(text=json.dumps({"verdicts": verdicts}), **kwargs)


def supported_everything(body: dict[str, Any]) -> Action:
    """Every requested claim supported, quoting its first cited passage whole."""
    packet = packet_of(body)
    if packet is None:
        return Reply(text="{}")
    texts = {p["passage_id"]: p["text"] for p in packet["passages"]}
    return verdicts_reply(
        [
            {
                "claim_id": c["claim_id"],
                "verdict": "supported",
                "evidence_quote": texts[c["passage_ids"][0]] if c["passage_ids"] else "",
                "reason": "The passage states it.",
            }
            for c in packet["claims"]
        ]
    )


def not_found(body: dict[str, Any]) -> Action:
    """404 for every request: a judge at the wrong address (serve it at any path with
    :meth:`FakeOpenAI.url`)."""
    return Status(404)


def count_tokens(text: str) -> int:
    """Word and punctuation tokens: one rule for every client on this server."""
    return len(_TOKEN.findall(text))


class _Server(ThreadingHTTPServer):
    # Many clients connect at once in the benchmarks; the default backlog of 5 would make
    # connection attempts wait for SYN retransmits.
    request_queue_size = 256


class FakeOpenAI:
    """The server; use as a context manager, or call :meth:`start` and :meth:`close`."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        responder: Callable[[dict[str, Any]], Action] = supported_everything,
    ) -> None:
        self.latency = latency
        self.responder = responder
        self.requests: list[Recorded] = []
        self.active = 0
        self.max_active = 0
        self._script: list[Action] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def base_url(self) -> str:
        """The API's base URL, as clients are configured with it."""
        return self.url("/v1")

    def url(self, path: str) -> str:
        """The server's address with ``path``: every path gets the same answers."""
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{path}"

    # -- scripting ---------------------------------------------------------------------------

    def script(self, *actions: Action) -> None:
        """Queue actions; each request takes the next one, then the responder answers."""
        with self._lock:
            self._script.extend(actions)

    def recorded(self) -> list[Recorded]:
        with self._lock:
            return list(self.requests)

    def prompt_tokens(self) -> int:
        """Prompt tokens of every request so far."""
        return sum(count_tokens(r.text) for r in self.recorded())

    def _next(self, body: dict[str, Any]) -> Action:
        with self._lock:
            if self._script:
                return self._script.pop(0)
        return self.responder(body)

    # -- HTTP --------------------------------------------------------------------------------

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes; with Nagle on, keep-alive clients
            # would wait for a delayed ACK (~40 ms) on every reply.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                with server._lock:
                    server.requests.append(
                        Recorded(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            (str(self.client_address[0]), int(self.client_address[1])),
                        )
                    )
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                try:
                    self._answer(body)
                finally:
                    with server._lock:
                        server.active -= 1

            def _answer(self, body: dict[str, Any]) -> None:
                received = time.monotonic()
                action = server._next(body)
                # The reply is built before waiting, so the latency is from receipt to
                # reply and does not grow with the server's own work.
                payload: dict[str, Any] | None = None
                if isinstance(action, Reply):
                    payload = self._payload(body, action)
                delay = server.latency + getattr(action, "delay", 0.0)
                if isinstance(action, Hang):
                    delay = action.seconds
                remaining = delay - (time.monotonic() - received)
                if remaining > 0 and server._stop.wait(remaining):
                    return
                try:
                    if isinstance(action, Status):
                        self._send(
                            action.code,
                            {"error": {"message": "scripted fault", "type": "server_error"}},
                            action.headers,
                        )
                    elif payload is not None:
                        self._send(200, payload, {})
                    else:
                        self._send(500, {"error": {"message": "hung"}}, {})
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _payload(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
                prompt = count_tokens(prompt_text(body))
                completion = (
                    reply.output_tokens
                    if reply.output_tokens is not None
                    else count_tokens(reply.text)
                )
                model = body.get("model", "unknown")
                if self.path.endswith("/chat/completions"):
                    return {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": model,
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": reply.finish_reason,
                                "logprobs": None,
                                "message": {
                                    "role": "assistant",
                                    "content": None if reply.refusal else reply.text,
                                    "refusal": reply.refusal,
                                },
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": completion,
                            "total_tokens": prompt + completion,
                        },
                    }
                content: dict[str, Any] = (
                    {"type": "refusal", "refusal": reply.refusal}
                    if reply.refusal
                    else {"type": "output_text", "text": reply.text, "annotations": []}
                )
                return {
                    "id": "resp_test",
                    "object": "response",
                    "created_at": 0,
                    "status": "completed",
                    "model": model,
                    "error": None,
                    "incomplete_details": None,
                    "instructions": body.get("instructions"),
                    "metadata": {},
                    "parallel_tool_calls": True,
                    "temperature": 0,
                    "tool_choice": "auto",
                    "tools": [],
                    "top_p": 1,
                    "output": [
                        {
                            "type": "message",
                            "id": "msg_test",
                            "role": "assistant",
                            "status": "completed",
                            "content": [content],
                        }
                    ],
                    "usage": {
                        "input_tokens": prompt,
                        "output_tokens": completion,
                        "total_tokens": prompt + completion,
                        "input_tokens_details": {"cached_tokens": 0},
                        "output_tokens_details": {"reasoning_tokens": 0},
                    },
                }

            def _send(self, code: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler


def main() -> None:
    """Serve until stdin closes: ``python -m tests.support.openai_server --latency 0.5``.

    Prints the base URL on the first line of stdout. Benchmarks run the server in its own
    process so its threads do not compete with the client for the interpreter lock.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Local OpenAI-compatible test server.")
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    with FakeOpenAI(latency=args.latency) as server:
        sys.stdout.write(server.base_url + "\n")
        sys.stdout.flush()
        sys.stdin.read()


if __name__ == "__main__":
    main()
