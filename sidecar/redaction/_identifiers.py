"""Identifiers: whether one holds a value to redact, and the identifiers the checks read
from the raw trace rewritten as its redaction hashed them."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from schemas import Trace

__all__ = ["holds_nothing", "rewrite_ids"]

_Model = TypeVar("_Model", bound=BaseModel)

_GLUE_AFTER_WORD = re.compile(r"(?<=[^\W\d_])[-_]|_")
"""A hyphen after a letter, or any underscore: where an ID glues a word to a value
(``cust-0151-555-0142``, ``user_jane@example.com``, ``doc_+49 30 1234567``)."""
_SEPARATORS = re.compile(r"[-_]")


def holds_nothing(value: str, detect: Callable[[str], Sequence[object] | None]) -> bool:
    """Whether ``detect`` finds nothing in the identifier ``value``, nor in it with the
    hyphens and underscores that glue it together read as spaces (a detector sees a
    value glued to a word as part of that word). None from ``detect`` (a detector
    failed) is not nothing."""
    if detect(value) != []:
        return False
    if "-" not in value and "_" not in value:
        return True
    loosened = _GLUE_AFTER_WORD.sub(" ", value)
    if loosened != value and detect(loosened) != []:
        return False
    glue = _GLUE_AFTER_WORD.search(value)
    if glue is not None and glue.end() < len(value) and detect(value[glue.end() :]) != []:
        return False  # the value alone, without the word a detector reads as its context
    spaced = _SEPARATORS.sub(" ", value)
    return spaced == loosened or detect(spaced) == []


def rewrite_ids(record: _Model, raw: Trace, redacted: Trace) -> _Model:
    """``record`` with each source, claim and citation ID of ``raw`` that differs in
    ``redacted`` replaced by its redacted form, as a whole string or inside one."""
    if redacted is raw:  # the redaction found nothing: no identifier changed
        return record
    mapping: dict[str, str] = {}
    pairs = [(old.id, new.id) for old, new in zip(raw.sources, redacted.sources, strict=True)]
    pairs += [(old.id, new.id) for old, new in zip(raw.claims, redacted.claims, strict=True)]
    mapping.update((old_id, new_id) for old_id, new_id in pairs if old_id != new_id)
    for old_claim, new_claim in zip(raw.claims, redacted.claims, strict=True):
        for old_id, new_id in zip(old_claim.citation_ids, new_claim.citation_ids, strict=True):
            if old_id != new_id:
                mapping[old_id] = new_id
    if not mapping:
        return record
    longest_first = sorted(mapping, key=len, reverse=True)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            if value in mapping:
                return mapping[value]
            for raw_id in longest_first:
                if raw_id in value:
                    value = value.replace(raw_id, mapping[raw_id])
            return value
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    return type(record).model_validate(walk(record.model_dump(mode="json")))
