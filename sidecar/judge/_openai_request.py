"""The request bodies of the judge backends, mostly serialised once.

The schema sent is the strict schema of :class:`JudgeResult` without titles and field
descriptions (the rubric says what each field holds; a provider bills the schema as prompt
tokens), built once per process. The model, the rubric, the schema and the sampling options
are JSON-encoded once per rubric (:class:`RequestBody`), and a call only appends its packet.
The request JSON is the same as what the client's typed ``create`` methods send.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from openai.types.shared_params import ResponseFormatJSONSchema

from schemas import JudgeResult
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rubric import Rubric

__all__ = ["CHAT_RESPONSE_FORMAT", "JUDGE_SCHEMA", "RESPONSES_TEXT_FORMAT", "RequestBody"]


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
    "type": "json_schema",
    "name": "JudgeResult",
    "strict": True,
    "schema": JUDGE_SCHEMA,
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
