"""Types of the compiled redaction engine (native/src/lib.rs)."""

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Literal, overload

from sidecar.redaction._base import Entity

class Detector:
    """The built-in detectors of ``types`` and configured ``patterns`` (name, regex in the
    regex crate's syntax); ``detect`` returns instances of ``entity``."""

    def __init__(
        self,
        types: Sequence[str],
        *,
        country_code: int,
        email_obfuscations: bool,
        entity: type[Entity],
        patterns: Sequence[tuple[str, str]] = (),
    ) -> None: ...
    def detect(self, text: str) -> list[Entity]: ...
    def detect_kept(self, text: str) -> list[Entity]: ...

class DetectorError(RuntimeError):
    """A detector failed on a text (the message names it and the exception's class)."""

class Replacer:
    """Whole-text redaction: ``detector``'s entities and those of ``detectors`` (each called
    as ``detect(text)`` on every pass, except the one at ``engine_at``, which ``detector``
    serves), ``allow`` case-folded (see native/src/replacer/)."""

    def __init__(
        self,
        detector: Detector,
        *,
        modes: Mapping[str, str],
        default_mode: str,
        hmac_token: Callable[[str, str], str] | None,
        allow: Sequence[str] = (),
        detectors: Sequence[object] = (),
        engine_at: int | None = None,
    ) -> None: ...
    @overload
    def redact(
        self,
        text: str,
        tokens: dict[tuple[str, str], str],
        numbers: Counter[str],
        counts: Counter[str],
        with_entities: Literal[False] = False,
    ) -> str: ...
    @overload
    def redact(
        self,
        text: str,
        tokens: dict[tuple[str, str], str],
        numbers: Counter[str],
        counts: Counter[str],
        with_entities: Literal[True],
    ) -> tuple[str, tuple[Entity, ...]]: ...
    def redact_many(
        self,
        texts: list[str],
        tokens: dict[tuple[str, str], str],
        numbers: Counter[str],
        counts: Counter[str],
    ) -> tuple[list[str], list[str]]: ...
    def kept(self, text: str) -> list[Entity]: ...
    def token(
        self,
        type: str,
        key: str,
        tokens: dict[tuple[str, str], str],
        numbers: Counter[str],
        counts: Counter[str],
    ) -> str: ...

TYPES: tuple[str, ...]
"""The built-in entity types (native/src/types.rs), in the engine's order."""

def luhn_valid(digits: str) -> bool: ...
def iban_key(candidate: str) -> str | None: ...
def ip_key(candidate: str) -> str | None: ...
def jwt_ok(candidate: str) -> bool: ...
def entropy(value: str) -> float: ...
def _panic_in_engine() -> None:
    """Raises RuntimeError from a panic inside the engine's guard (for the tests)."""

PLACEHOLDER: str
"""The pattern of what the redactor writes (native/src/replace/keep.rs), never detected again."""
