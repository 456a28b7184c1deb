"""The detector Protocol and the entities detectors report."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, Protocol, runtime_checkable

__all__ = ["BUILTIN_TYPES", "Detector", "Entity"]

BUILTIN_TYPES: tuple[str, ...] = (
    "EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "US_SSN", "IP_ADDRESS", "SECRET", "NATIONAL_ID",
)


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
