"""The detector Protocol and the entities detectors report."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Protocol, get_args, runtime_checkable

from schemas import RedactionType
from sidecar.redaction import _native

__all__ = ["BUILTIN_TYPES", "Detector", "Entity", "check_types"]


def check_types(engine: tuple[str, ...], declared: tuple[str, ...]) -> tuple[str, ...]:
    """The engine's built-in types, when they are the record's ``RedactionType``; ImportError
    naming the difference otherwise (an engine built from another native/)."""
    if engine != declared:
        raise ImportError(
            f"the redaction engine's types {list(engine)} differ from schemas.RedactionType "
            f"{list(declared)}: rebuild native/ or update schemas/evaluation.py"
        )
    return engine


BUILTIN_TYPES: tuple[str, ...] = check_types(tuple(_native.TYPES), get_args(RedactionType))
"""The built-in entity types, in the engine's order (native/src/types.rs holds the list)."""


class Entity(NamedTuple):
    """One sensitive value found in a text: its type and character span.

    ``key`` is the value in a canonical form (an e-mail lower-cased, a phone number in E.164,
    a card's digits) so that the same value written two ways gets the same placeholder; None
    means the text of the span itself. An entity holds raw text: never log it.
    """

    type: str
    start: int
    end: int
    key: str | None = None


@runtime_checkable
class Detector(Protocol):
    """Finds sensitive values in one text. The plug-in point for extra detectors (NER...).

    ``detect`` may return overlapping entities; the redactor keeps the earliest, longest one.
    It must not raise on any text and must not log the values it finds.
    """

    name: str

    def detect(self, text: str) -> Iterable[Entity]:
        """Entities found in ``text``, with offsets into it."""
        ...
