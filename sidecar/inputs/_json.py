"""JSON parsing for adapters: the same refusals as trace v1 decoding (duplicate keys, NaN)."""

from __future__ import annotations

import re
from typing import Any

import jiter

from sidecar.inputs.base import InputError

__all__ = ["loads"]

_WHERE = re.compile(r"at line \d+ column \d+")


def loads(value: bytes) -> Any:
    """The JSON value of ``value``; :class:`InputError` if it is not strict JSON (a key
    twice in one object and NaN/Infinity refused). The message names a position only:
    jiter's own can quote a key of the record."""
    try:
        return jiter.from_json(value, allow_inf_nan=False, catch_duplicate_keys=True)
    except ValueError as exc:
        where = _WHERE.search(str(exc))
        raise InputError(f"not JSON ({where.group(0) if where else 'unreadable'})") from None
