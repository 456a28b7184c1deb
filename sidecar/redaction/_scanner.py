"""The built-in detectors: a thin front over the compiled engine (sidecar.redaction._native,
built from native/ in Rust).

One call per text does all of it: each group's candidate pattern runs once over the text
(the regex crate's finite automata: time linear in the text, no backtracking), and each
candidate is validated, typed and keyed from a bounded window of text around it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import cache

from sidecar.redaction._base import BUILTIN_TYPES, Entity
from sidecar.redaction._native import Detector

__all__ = ["PatternDetector", "engine_syntax"]

# RE2's classes are ASCII, the regex crate's Unicode: spelled out, RE2's meaning is kept.
_CLASSES = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": "[0-9A-Za-z_]",
    "W": "[^0-9A-Za-z_]",
    "s": "[\\t\\n\\f\\r ]",
    "S": "[^\\t\\n\\f\\r ]",
}
_BOUNDARIES = {"b": "(?-u:\\b)", "B": "(?-u:\\B)"}


def engine_syntax(pattern: str) -> str:
    """An RE2 pattern in the regex crate's syntax, with the same matches: ``\\d``, ``\\w``,
    ``\\s`` and their negations as the ASCII classes they are in RE2 (nested classes inside
    a class), ``\\b`` and ``\\B`` as ASCII word boundaries; the rest is the same in both.
    A literal ``[`` inside a class is escaped (the regex crate nests classes). What the regex
    crate does not know (``\\Q...\\E``, ``\\C``, octal escapes) is left as written, for the
    engine to refuse; a doubled ``&``, ``~`` or ``-`` inside a class (a set operation there)
    raises ValueError."""
    out: list[str] = []
    depth = 0  # inside how many brackets
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            escaped = pattern[i + 1]
            if escaped in _CLASSES:
                out.append(_CLASSES[escaped])
            elif escaped in _BOUNDARIES and depth == 0:
                out.append(_BOUNDARIES[escaped])
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if depth > 0 and pattern.startswith(("&&", "~~", "--"), i):
            # The regex crate's class set operations; a literal pair in RE2.
            raise ValueError("a doubled &, ~ or - inside a class reads as a set operation")
        if c == "[" and depth > 0 and not pattern.startswith("[:", i):
            out.append("\\[")  # a literal in RE2, a nested class in the regex crate
            i += 1
            continue
        if c == "[" and depth > 0:  # a POSIX class, [:alpha:], the same in both
            end = pattern.find(":]", i + 2)
            end = len(pattern) if end < 0 else end + 2
            out.append(pattern[i:end])
            i = end
            continue
        if c == "[":
            depth += 1
            out.append(c)
            i += 1
            # A ']' right after '[' or '[^' is a literal in both syntaxes.
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("]")
                i += 1
            continue
        if c == "]" and depth > 0:
            depth -= 1
        out.append(c)
        i += 1
    return "".join(out)


DEFAULT_REGION_CODE = ("US", 1)
"""The default phone region (``redaction.phone_region``) and its country code, known here:
the phone metadata (phonenumbers, about 15 ms of a one-line check's start-up) is imported
only to look up another region's."""


@cache
def _country_code(region: str) -> int:
    if region == DEFAULT_REGION_CODE[0]:
        return DEFAULT_REGION_CODE[1]
    from phonenumbers import country_code_for_region

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
    there). ``patterns`` are configured entity types, each a name and an RE2 pattern (group
    1's span when it has a group), run by the engine too (see :func:`engine_syntax`);
    ValueError when the engine cannot compile one, TypeError from an engine built before it
    could run them.
    """

    name = "patterns"

    def __init__(
        self,
        types: Iterable[str] = BUILTIN_TYPES,
        *,
        phone_region: str = "US",
        email_obfuscations: bool = True,
        patterns: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.types = frozenset(types)
        unknown = self.types - set(BUILTIN_TYPES)
        if unknown:
            raise ValueError(f"unknown entity types: {sorted(unknown)}")
        self.phone_region = phone_region.upper()
        self.patterns = tuple(patterns)
        extra = (
            {"patterns": [(name, engine_syntax(p)) for name, p in self.patterns]}
            if self.patterns
            else {}
        )
        engine = Detector(
            sorted(self.types),
            country_code=_country_code(self.phone_region),
            email_obfuscations=email_obfuscations,
            entity=Entity,
            **extra,
        )
        self.engine = engine
        self.detect: Callable[[str], list[Entity]] = engine.detect
        self.detect_kept: Callable[[str], list[Entity]] = engine.detect_kept
