"""Decoding raw record bytes into a validated trace, with errors fit for dead letters.

Decoding accepts what it can and refuses the rest with a reason code (the dead-letter
reason); every step is linear in the record's size:

    byte-order mark at the start     dropped (a UTF-8 BOM is an encoding marker, not text)
    record over max_bytes            too_large
    invalid UTF-8                    not_utf8
    not JSON, NaN/Infinity           not_json
    a key twice in one object        duplicate_key (parsers disagree on which one wins)
    a number literal too long        number_too_long
    nesting over max_depth           too_deep
    a lone surrogate (\\udc80)        lone_surrogate (it cannot be written as UTF-8)
    a string over max_text_chars     text_too_long
    too many claims/sources/cites    too_many_claims, too_many_sources, too_many_citations
    control characters in a string   replaced by a space (tab, newline, CR are kept)
    valid JSON but not a trace v1    invalid_trace
    an adapted input it cannot read  unreadable_input (``input.format`` other than trace_v1:
                                     the adapter of sidecar.inputs builds the trace object,
                                     which is then validated like any other; base64
                                     documents are dropped before the size check and
                                     sources cut to max_text_chars with a finding)

A trace that decodes can therefore always be written back as UTF-8 JSON.

Two ways to the same result. The strict way parses with json's hooks (a Python call per
object for duplicate keys, per NaN/Infinity, and per number when a long one may be present),
walks every string, then validates. The fast way takes a record only when cheap tests prove
none of those hooks or walks could change anything:

- no run of 16 digits in the bytes (looked for in every 8th byte first): no number literal
  can be over the limit (the strict parser's number hook would not be installed either);
- jiter parses it with duplicate keys and NaN/Infinity refused: the same value json would
  build, with no hook firing (any refusal of jiter's, or any other doubt, sends the record
  the strict way, which names the reason);
- no escape that decodes to a control character (\\b, \\f, \\u0000-\\u001f, \\u007f), no
  raw DEL byte, and no more characters in the record than a string may hold: the string walk
  would change nothing and refuse nothing (jiter refuses lone surrogates);
- the validated trace nests at most 4 deep outside ``extra`` and unknown fields, which are
  walked for depth.

Whatever fails one of these tests goes the strict way from the start, so refusals keep
their reasons and messages exactly; tests compare both ways on hostile and random records.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jiter
from pydantic import ValidationError

from schemas import Claim, Generator, InputFormat, Source, Trace
from sidecar.errors import (
    TraceDecodeError,
    TraceError,
    TraceInvalidError,
    describe_validation_error,
)
from sidecar.inputs import adapted_object, adapter_for

if TYPE_CHECKING:
    from sidecar.config import Settings

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_DEPTH",
    "DecodeLimits",
    "decode_trace",
    "parse_trace_object",
]

DEFAULT_MAX_BYTES = 1_048_576
DEFAULT_MAX_DEPTH = 32

_BOM_BYTES = b"\xef\xbb\xbf"
_BOM = "\ufeff"
_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_DIGIT_RUN = re.compile("[0-9]{16}")
_DIGIT_MASK = bytes(
    ord("0") if chr(byte).isdigit() and byte < 128 else ord(" ") for byte in range(256)
)
_SIXTEEN_DIGITS = b"0" * 16
"""A 16-digit run in translated bytes (a regex tried at every position costs several times
the parse)."""
_STRIDE = 8
"""16 consecutive positions hold two multiples of 8: a run of 16 digits shows as two digits
in a row among every 8th byte, and starts at most 7 bytes before the first of the two."""
_MAX_WINDOWS = 4
_CONTROL_ESCAPE = re.compile(rb"\\(?:[bf]|u00[01][0-9a-fA-F]|u007[fF])")
"""JSON escapes that decode to a character the string walk would replace (an escaped
backslash before b, f or u only makes this match more often, never less)."""
_UNUSUAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
"""Either of the above: one search per string in the common case of plain text."""


@dataclass(frozen=True, slots=True, kw_only=True)
class DecodeLimits:
    """How one record is decoded: its input format and the bounds it is decoded under (see
    :class:`sidecar.config.LimitsSettings`)."""

    max_bytes: int = DEFAULT_MAX_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    max_claims: int = 1_000
    max_sources: int = 1_000
    max_citations_per_claim: int = 100
    max_text_chars: int = 65_536
    max_number_chars: int = 64
    """At least 49: a longer literal always holds a run of 16 digits, which is what is
    looked for before literals are measured."""
    input_format: InputFormat = "trace_v1"
    """What the records are (``input.format``): trace v1, or a format an adapter reads."""

    def __post_init__(self) -> None:
        if self.max_number_chars < 49:
            raise ValueError("max_number_chars must be at least 49")

    @classmethod
    def from_settings(cls, settings: Settings) -> DecodeLimits:
        """The limits configured in ``settings.checks`` and ``settings.limits``."""
        limits = settings.limits
        return cls(
            max_bytes=settings.checks.max_record_bytes,
            max_depth=settings.checks.max_json_depth,
            max_claims=limits.max_claims,
            max_sources=limits.max_sources,
            max_citations_per_claim=limits.max_citations_per_claim,
            max_text_chars=limits.max_text_chars,
            max_number_chars=limits.max_number_chars,
            input_format=settings.input.format,
        )


_DEFAULT_LIMITS = DecodeLimits()


def decode_trace(value: bytes | str, *, limits: DecodeLimits | None = None) -> Trace:
    """Decode one record into a :class:`Trace` under ``limits`` (the defaults without).

    Raises :class:`TraceDecodeError` or :class:`TraceInvalidError`, each with the
    ``reason`` listed in this module's docstring; never any other exception for any input.
    """
    limits = limits or _DEFAULT_LIMITS
    byte_limit = limits.max_bytes
    if limits.input_format != "trace_v1":
        return _decode_adapted(value, limits)
    size = len(value)
    if size > byte_limit:
        raise TraceDecodeError(f"record of {size} bytes exceeds {byte_limit}", reason="too_large")
    text: str | None = None
    if isinstance(value, bytes):
        data = value[len(_BOM_BYTES) :] if value.startswith(_BOM_BYTES) else value
        if not data.isascii():  # ASCII is UTF-8 already, one character a byte
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TraceDecodeError(
                    f"not UTF-8 at byte {exc.start}", reason="not_utf8"
                ) from None
        chars = len(data) if text is None else len(text)
    else:
        text = value[1:] if value.startswith(_BOM) else value
        if _SURROGATE.search(text):
            # A str read with errors="surrogateescape" carries bad bytes as lone surrogates.
            raise TraceDecodeError("not UTF-8 (a lone surrogate in the text)", reason="not_utf8")
        data = text.encode("utf-8")
        chars = len(text)
    obj = _fast_loads(data)
    if obj is None:
        obj = _loads(data.decode("ascii") if text is None else text, limits.max_number_chars)
    elif _clean_is_noop(data, chars, limits):
        trace = _validate_fast(obj, limits.max_depth, limits)
        if trace is not None:
            return trace
    return parse_trace_object(obj, limits=limits)


def _decode_adapted(value: bytes | str, limits: DecodeLimits) -> Trace:
    """A record of an adapted input: its adapter's trace object, validated as any other."""
    adapter = _adapter(limits.input_format)
    if adapter is None:  # pragma: no cover - trace_v1 never comes here
        raise TraceInvalidError("trace_v1 needs no adapter")
    trace = adapted_object(
        value, adapter, max_bytes=limits.max_bytes, max_text_chars=limits.max_text_chars
    )
    return parse_trace_object(trace, limits=limits)


_adapter = functools.cache(adapter_for)
"""Adapters hold no state: one of each format serves every record."""


def _fast_loads(data: bytes) -> Any:
    """The value json.loads would build, or None when it may differ or a hook may fire."""
    if _has_digit_run(data):
        return None
    try:
        return jiter.from_json(data, allow_inf_nan=False, catch_duplicate_keys=True)
    except Exception:  # whatever jiter refuses, and however: the strict way says why
        return None


def _has_digit_run(data: bytes) -> bool:
    """Whether ``data`` holds 16 ASCII digits in a row. Every 8th byte is translated first
    (an eighth of the work); the record itself only around two digits in a row among those,
    and all of it when there are many such places (then it costs what one search does)."""
    sampled = data[::_STRIDE].translate(_DIGIT_MASK)
    pair = sampled.find(b"00")
    for _ in range(_MAX_WINDOWS):
        if pair < 0:
            return False
        first = pair * _STRIDE
        window = data[max(0, first - _STRIDE + 1) : first + 2 * _STRIDE]
        if _SIXTEEN_DIGITS in window.translate(_DIGIT_MASK):
            return True
        pair = sampled.find(b"00", pair + 1)
    return pair >= 0 and _SIXTEEN_DIGITS in data.translate(_DIGIT_MASK)


def _clean_is_noop(data: bytes, chars: int, limits: DecodeLimits) -> bool:
    """Whether :func:`_clean` would change and refuse nothing but depth: no string can
    be too long, hold a control character or a lone surrogate (the parser refuses those)."""
    if chars > limits.max_text_chars or b"\x7f" in data:
        return False
    return b"\\" not in data or _CONTROL_ESCAPE.search(data) is None


_STRUCTURED_DEPTH = 4
"""How deep a validated trace nests outside ``extra`` (trace, claims, claim, citation_ids)."""


def _validate_fast(obj: Any, max_depth: int, limits: DecodeLimits) -> Trace | None:
    """The trace :func:`parse_trace_object` would return, or None when it might raise.

    Only for a value whose strings the walk would leave alone (:func:`_clean_is_noop`):
    then what is left of the walk is depth, bounded by validation except in the fields a
    trace keeps as they come.
    """
    if type(obj) is not dict or max_depth < _STRUCTURED_DEPTH:
        return None
    try:
        _check_counts(obj, limits)
        if not _STRUCTURED.issuperset(obj):
            loose = {key: item for key, item in obj.items() if key not in _STRUCTURED}
            _clean(loose, limits, max_depth)
        return _validate_trace(obj)
    except (TraceError, ValidationError, ValueError, TypeError, RecursionError):
        return None


def _loads(text: str, max_number_chars: int) -> Any:
    def number(literal: str, kind: type[int] | type[float]) -> int | float:
        if len(literal) > max_number_chars:
            raise TraceDecodeError(
                f"a number of {len(literal)} characters exceeds {max_number_chars}",
                reason="number_too_long",
            )
        return kind(literal)

    def constant(name: str) -> Any:
        raise TraceDecodeError(f"not JSON: {name} is not a JSON value", reason="not_json")

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            raise TraceDecodeError("an object has the same key twice", reason="duplicate_key")
        return obj

    # A number literal longer than the limit has a long run of digits; without such a run
    # (the common case) json's own C number parsing is used.
    checked: dict[str, Any] = {}
    if _DIGIT_RUN.search(text) is not None:
        checked = {"parse_int": lambda s: number(s, int), "parse_float": lambda s: number(s, float)}
    try:
        return json.loads(text, parse_constant=constant, object_pairs_hook=pairs, **checked)
    except RecursionError:
        raise TraceDecodeError("JSON nested too deeply", reason="too_deep") from None
    except json.JSONDecodeError as exc:
        raise TraceDecodeError(
            f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", reason="not_json"
        ) from None
    except (ValueError, OverflowError) as exc:
        # json's own limits (e.g. integer digits) surface as plain ValueError.
        raise TraceDecodeError(f"not JSON: {type(exc).__name__}", reason="not_json") from None


def _clean(obj: dict[str, Any], limits: DecodeLimits, max_depth: int) -> None:
    """Check depth, surrogates and string sizes in one pass; replace control characters.

    Iterative, so a deep value cannot exhaust the stack; linear in the number of values.
    Plain strings cost one length test and one regex search.
    """
    max_chars = limits.max_text_chars
    unusual = _UNUSUAL.search
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        container, depth = stack.pop()
        if depth > max_depth:
            raise TraceDecodeError("JSON nested too deeply", reason="too_deep")
        if type(container) is dict:
            for key, item in container.items():
                if len(key) > max_chars or unusual(key):
                    _check_string(key, limits)
                kind = type(item)
                if kind is str:
                    if len(item) > max_chars or unusual(item):
                        container[key] = _clean_string(item, limits)
                elif kind is dict or kind is list:
                    stack.append((item, depth + 1))
        else:
            for index, item in enumerate(container):
                kind = type(item)
                if kind is str:
                    if len(item) > max_chars or unusual(item):
                        container[index] = _clean_string(item, limits)
                elif kind is dict or kind is list:
                    stack.append((item, depth + 1))


def _check_string(text: str, limits: DecodeLimits) -> None:
    if len(text) > limits.max_text_chars:
        raise TraceDecodeError(
            f"a string of {len(text)} characters exceeds {limits.max_text_chars}",
            reason="text_too_long",
        )
    if _UNUSUAL.search(text) and _SURROGATE.search(text):
        raise TraceDecodeError(
            "a string holds a lone surrogate (\\ud800-\\udfff), which is not Unicode text",
            reason="lone_surrogate",
        )


def _clean_string(text: str, limits: DecodeLimits) -> str:
    _check_string(text, limits)
    return _CONTROL.sub(" ", text)


def _check_counts(obj: dict[str, Any], limits: DecodeLimits) -> None:
    claims = obj.get("claims")
    if isinstance(claims, list) and len(claims) > limits.max_claims:
        raise TraceDecodeError(
            f"{len(claims)} claims exceed {limits.max_claims}", reason="too_many_claims"
        )
    sources = obj.get("sources")
    if isinstance(sources, list) and len(sources) > limits.max_sources:
        raise TraceDecodeError(
            f"{len(sources)} sources exceed {limits.max_sources}", reason="too_many_sources"
        )
    if not isinstance(claims, list):
        return
    max_cites = limits.max_citations_per_claim
    for claim in claims:
        cites = claim.get("citation_ids") if isinstance(claim, dict) else None
        if isinstance(cites, list) and len(cites) > max_cites:
            raise TraceDecodeError(
                f"a claim cites {len(cites)} sources, more than {max_cites}",
                reason="too_many_citations",
            )


def parse_trace_object(obj: Any, *, limits: DecodeLimits | None = None) -> Trace:
    """Validate an already-parsed JSON value as a trace under ``limits`` (the defaults
    without). Raises :class:`TraceError`.

    Strings of ``obj`` are cleaned in place (control characters become spaces).
    """
    limits = limits or _DEFAULT_LIMITS
    if not isinstance(obj, dict):
        raise TraceInvalidError(f"a trace is a JSON object, got {type(obj).__name__}")
    _clean(obj, limits, limits.max_depth)
    _check_counts(obj, limits)
    try:
        return _validate_trace(obj)
    except ValidationError as exc:
        # Unknown keys came from the record: they are not repeated.
        raise TraceInvalidError(
            describe_validation_error(exc, root="trace", limit=5, known_names=_KNOWN_NAMES)
        ) from None
    except (ValueError, TypeError, RecursionError) as exc:
        # A validator that trips over an odd value outside pydantic's own error handling.
        raise TraceInvalidError(f"not a trace v1: {type(exc).__name__}") from None


_validate_trace: Callable[[Any], Trace] = Trace.__pydantic_validator__.validate_python
"""``Trace.model_validate`` without the keyword arguments it passes on (about 1 us a trace)."""

_STRUCTURED = frozenset(Trace.model_fields) - {"extra"}
"""Top-level fields whose validated types bound their depth; any other key is walked."""

_KNOWN_NAMES = frozenset(
    name for model in (Trace, Source, Claim, Generator) for name in model.model_fields
)
