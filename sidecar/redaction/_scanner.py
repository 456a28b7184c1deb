"""The built-in detectors: a thin front over the compiled engine (sidecar.redaction._native,
built from native/ in Rust).

One call per text does all of it: each group's candidate pattern runs once over the text
(the regex crate's finite automata: time linear in the text, no backtracking), and each
candidate is validated, typed and keyed from a bounded window of text around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

from phonenumbers import country_code_for_region

from sidecar.redaction._base import BUILTIN_TYPES, Entity
from sidecar.redaction._native import Detector

__all__ = ["PatternDetector"]


@cache
def _country_code(region: str) -> int:
    return country_code_for_region(region) or 1


class PatternDetector:
    """The built-in entity types (see BUILTIN_TYPES).

    ``types`` selects which of them are reported; ``phone_region`` is the country assumed
    for phone numbers written without a country code (it only shapes their keys: the same
    number with and without +country code gets one placeholder); ``email_obfuscations``
    also finds addresses written "jane at example dot com" or "jane[at]example.com".

    ``detect(text)`` returns the entities of the enabled types in ``text`` (they may overlap),
    as the engine reports them: it is the engine's own method, so a text costs no Python
    frame of its own. ``detect_kept(text)`` returns those a Redactor with this detector
    alone keeps (no overlaps, in text order; it does not know placeholders or an allow-list).
    ``engine`` is the compiled detector itself (a Redactor with it alone redacts whole texts
    there).
    """

    name = "patterns"

    def __init__(self, types: Iterable[str] = BUILTIN_TYPES, *, phone_region: str = "US",
                 email_obfuscations: bool = True) -> None:
        self.types = frozenset(types)
        unknown = self.types - set(BUILTIN_TYPES)
        if unknown:
            raise ValueError(f"unknown entity types: {sorted(unknown)}")
        self.phone_region = phone_region.upper()
        engine = Detector(sorted(self.types), country_code=_country_code(self.phone_region),
                          email_obfuscations=email_obfuscations, entity=Entity)
        self.engine = engine
        self.detect: Callable[[str], list[Entity]] = engine.detect
        self.detect_kept: Callable[[str], list[Entity]] = engine.detect_kept
