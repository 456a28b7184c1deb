"""A corpus of hostile records, each with what every runtime must make of it.

Each case is one record (one JSON Lines line, one Kafka value) and its expected outcome:
``EVALUATED`` (read, perhaps after cleaning) or the dead-letter reason. :func:`interleaved`
puts a good trace before the first case and after every case, so tests can check that the
neighbours of each hostile record are evaluated.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, NamedTuple

from tests.support.factories import claim, trace_dict

EVALUATED = "evaluated"


class Case(NamedTuple):
    name: str
    value: bytes
    expected: str
    trace_id: str


def _id(name: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"hostile/{name}").hex


def _dump(data: dict[str, Any]) -> bytes:
    return json.dumps(data).encode()


def _with(name: str, **overrides: Any) -> dict[str, Any]:
    return trace_dict(trace_id=_id(name), **overrides)


def _raw(name: str, old: bytes, new: bytes, **overrides: Any) -> bytes:
    """A trace whose JSON text has ``old`` replaced by raw ``new`` (for what json.dumps
    cannot write: invalid UTF-8, escapes of lone surrogates, duplicate keys)."""
    text = _dump(_with(name, **overrides))
    assert old in text, old
    return text.replace(old, new, 1)


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def cases() -> list[Case]:
    """Every hostile case; the byte-order mark case comes first (it matters on line 1)."""
    raw: list[tuple[str, bytes, str]] = [
        ("bom", b"\xef\xbb\xbf" + _dump(_with("bom")), EVALUATED),
        (
            "integer-5000-digits",
            _raw(
                "integer-5000-digits",
                b'"schema_version"',
                b'"n": ' + b"7" * 5000 + b', "schema_version"',
            ),
            "number_too_long",
        ),
        (
            "lone-surrogate-in-claim",
            _raw(
                "lone-surrogate-in-claim",
                b"PLACEHOLDER",
                b"\\udc80",
                claims=[claim("c1", "PLACEHOLDER", ["S1"])],
            ),
            "lone_surrogate",
        ),
        (
            "invalid-utf8-in-string",
            _raw("invalid-utf8-in-string", b"PLACEHOLDER", b"caf\xe9", question="PLACEHOLDER"),
            "not_utf8",
        ),
        (
            "answer-500kb-of-ones",
            _dump(_with("answer-500kb-of-ones", answer="1 " * 250_000)),
            "text_too_long",
        ),
        (
            "claims-20000",
            _dump(
                _with(
                    "claims-20000",
                    claims=[{"id": f"c{i}", "text": "x", "importance": 1} for i in range(20_000)],
                )
            ),
            "too_many_claims",
        ),
        ("deep-known-field", _dump(_with("deep-known-field", sources=_deep(40))), "too_deep"),
        ("deep-unknown-field", _dump(_with("deep-unknown-field", meta=_deep(40))), "too_deep"),
        ("huge-unknown-array", _dump(_with("huge-unknown-array", meta=[0] * 200_000)), EVALUATED),
        (
            "huge-citation-array",
            _dump(
                _with(
                    "huge-citation-array",
                    claims=[claim("c1", "x", [f"S{i}" for i in range(50_000)])],
                )
            ),
            "too_many_citations",
        ),
        (
            "nul-escaped",
            _dump(_with("nul-escaped", answer="Refunds\u0000 in 30 days [S1].")),
            EVALUATED,
        ),
        ("nul-raw", _raw("nul-raw", b"Can I get", b"Can\x00I get"), "not_json"),
        (
            "control-characters",
            _dump(_with("control-characters", question="a\u0001b\u000bc\u001bd\u007f")),
            EVALUATED,
        ),
        (
            "number-as-claim-id",
            _dump(
                _with(
                    "number-as-claim-id",
                    claims=[{"id": 1, "text": "x", "citation_ids": [], "importance": 1}],
                )
            ),
            "invalid_trace",
        ),
        (
            "number-as-trace-id",
            _dump({**_with("number-as-trace-id"), "trace_id": 12345}),
            "invalid_trace",
        ),
        (
            "duplicate-key",
            _raw("duplicate-key", b'"app": "support"', b'"app": "support", "app": "billing"'),
            "duplicate_key",
        ),
        (
            "float-importance-whole",
            _dump(_with("float-importance-whole", claims=[claim("c1", "x", ["S1"], 3.0)])),  # type: ignore[arg-type]
            EVALUATED,
        ),
        (
            "float-importance-fraction",
            _dump(_with("float-importance-fraction", claims=[claim("c1", "x", ["S1"], 2.5)])),  # type: ignore[arg-type]
            "invalid_trace",
        ),
        ("nan", _raw("nan", b'"schema_version"', b'"score": NaN, "schema_version"'), "not_json"),
        ("top-level-array", b"[1, 2, 3]", "invalid_trace"),
        ("truncated", _dump(_with("truncated"))[:40], "not_json"),
    ]
    return [Case(name, value, expected, _id(name)) for name, value, expected in raw]


def good(index: int) -> Case:
    """A plain valid trace (the neighbours)."""
    name = f"good-{index}"
    return Case(name, _dump(_with(name)), EVALUATED, _id(name))


def interleaved() -> list[Case]:
    """Every case followed by a good trace. The byte-order mark case leads: it only means
    something on the first line of a file."""
    out: list[Case] = []
    for index, case in enumerate(cases()):
        out.append(case)
        out.append(good(index))
    return out
