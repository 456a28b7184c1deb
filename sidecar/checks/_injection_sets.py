"""The injection rules compiled for matching: RE2 sets, each built the first time it is used.

Compiling the rules is most of what the check costs a process that reads one trace, so
nothing is compiled at import:

- The ASCII set holds the rules that can match ASCII text (every rule but those that need a
  character of another script: the Chinese, Japanese, Russian, Arabic, Hindi and Korean
  ones, found by :func:`needs_non_ascii`) and the raw rules that can. Over an ASCII text it
  says which rules match, and when the text is its own normalised form, which raw rules
  match too, in the same pass.
- The gate is every rule and raw rule with :data:`OBFUSCATION`: one pass of it over a
  trace's ASCII text says whether any text of the trace can match. A trace it passes builds
  nothing else.
- Both sets only ever read ASCII text, so they are built from the patterns as
  :func:`ascii_only` spells them: the same matches on ASCII text, and a fraction of the
  automaton (a class that excludes a few stops, forty times over in a bounded gap, is
  otherwise all of Unicode but those, forty times over). The gate then leaves no rule
  out: a rule of another script is a few bytes of it.
- The full set (every rule) is built on the first normalised text that is not ASCII, the
  raw set (every raw rule) on the first text that is not its own normalised form.
- Each rule is compiled alone the first time a set says it matches (its positions are
  searched for then).

Which patterns a set reports, and so every finding, is the same as one set of all the rules
would give: a rule left out of the ASCII set cannot match a text it is used on.
"""

from __future__ import annotations

import importlib
import re
import threading
from typing import Any

import re2

from sidecar._regex import compile_linear

__all__ = ["OBFUSCATION", "RuleSets", "ascii_only", "needs_non_ascii"]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS.max_mem = 64 << 20  # room for the set's DFA: below this it falls back to the NFA

OBFUSCATION = r"(?i)&[#a-z0-9]{1,33};|<!--|--!?>|</?[a-z]|[*~`_]|-[ \t]{0,8}\r?\n|[a-z0-9+/_-]{20}"
"""Anything in ASCII text that normalising would change, or a possible base64 run: ASCII
text without it is its own normalised form."""

_NEG_GROUP = re.compile(r"\(\?P<neg[0-9]?>")
_PROPERTY = re.compile(r"\\[pP](?:\{\w+\}|\w)")
_FOLDS_TO_ASCII = frozenset((0x17F, 0x212A))
"""The characters past ASCII that RE2's ``(?i)`` matches to an ASCII letter (long s, the
Kelvin sign): a pattern written with them can match ASCII text."""


def _strict(code: int) -> bool:
    return code > 0x7F and code not in _FOLDS_TO_ASCII


def _needs(items: Any, c: Any) -> bool:
    """Whether every match of the parsed sequence ``items`` holds a character past ASCII.
    Anything not understood counts as matching ASCII: the answer errs toward the ASCII set."""
    for op, av in items:
        if op is c.LITERAL:
            found = _strict(av)
        elif op is c.BRANCH:
            found = all(_needs(branch, c) for branch in av[1])
        elif op is c.SUBPATTERN:
            found = _needs(av[-1], c)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            found = av[0] >= 1 and _needs(av[2], c)
        elif op is c.IN:
            found = all(
                (kind is c.LITERAL and _strict(value))
                or (
                    kind is c.RANGE
                    and value[0] > 0x7F
                    and not any(value[0] <= f <= value[1] for f in _FOLDS_TO_ASCII)
                )
                for kind, value in av
            )
        else:
            found = False
        if found:
            return True
    return False


def needs_non_ascii(pattern: str) -> bool:
    """Whether every match of ``pattern`` (RE2 syntax, case-insensitive or not) holds a
    character past ASCII, so that it can never match ASCII text. False when that cannot be
    shown (a pattern Python's parser does not read counts as one that can match ASCII)."""
    if pattern.isascii():
        return False
    parser = importlib.import_module("re._parser")
    constants = importlib.import_module("re._constants")
    try:
        # \pL and the like read as \w: a class that matches ASCII, so never a wrong "needs".
        parsed = parser.parse(_PROPERTY.sub(r"\\w", pattern))
    except re.error:
        return False
    return _needs(parsed, constants)


def _past_ascii() -> str:
    """Every character past ASCII but those ``(?i)`` folds to an ASCII letter, as class
    ranges: excluded from a case-insensitive class, the long s and the Kelvin sign would
    take s and k with them."""
    ranges, start = [], 0x80
    for code in sorted(_FOLDS_TO_ASCII):
        ranges.append(f"\\x{{{start:x}}}-\\x{{{code - 1:x}}}")
        start = code + 1
    return "".join([*ranges, f"\\x{{{start:x}}}-\\x{{10ffff}}"])


_NON_ASCII = _past_ascii()


def ascii_only(pattern: str) -> str:
    r"""``pattern`` (RE2 syntax) with the same matches on ASCII text and none of the
    Unicode it cannot meet there: a negated class also excludes the characters past ASCII
    (``[^.!?]`` reads ``[^\x{80}-...-\x{10ffff}.!?]``, all but the two that fold to ASCII
    letters), and ``\pL`` is ``[A-Za-z]`` (``\PL`` their ASCII complement), the letters
    it matches in ASCII text. Anything else is left as written."""
    out: list[str] = []
    i, end = 0, len(pattern)
    in_class = False
    while i < end:
        c = pattern[i]
        if c == "\\" and i + 1 < end:
            escape = pattern[i : i + 3]
            if escape == r"\pL":
                out.append("A-Za-z" if in_class else "[A-Za-z]")
                i += 3
            elif escape == r"\PL" and not in_class:
                out.append(f"[^A-Za-z{_NON_ASCII}]")
                i += 3
            else:
                out.append(pattern[i : i + 2])
                i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):  # a POSIX class, [:alpha:], inside the class
                close = pattern.find(":]", i + 2)
                close = end if close < 0 else close + 2
                out.append(pattern[i:close])
                i = close
                continue
            in_class = c != "]"
            out.append(c)
            i += 1
            continue
        if c != "[":
            out.append(c)
            i += 1
            continue
        in_class = True
        i += 1
        negated = pattern.startswith("^", i)
        out.append(f"[^{_NON_ASCII}" if negated else "[")
        i += negated
        # A ']' first in a class is a literal; so is a '-', which after the range added
        # above must be escaped to stay one.
        if i < end and (pattern[i] == "]" or (negated and pattern[i] == "-")):
            out.append("\\" + pattern[i])
            i += 1
    return "".join(out)


def _compile(pattern: str) -> Any:
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error:
        compile_linear(pattern)  # raises ValueError saying why RE2 refuses it
        raise


def _set(patterns: list[str]) -> Any:
    built = re2.Set.SearchSet(_OPTIONS)
    for pattern in patterns:
        try:
            built.Add(pattern)
        except re2.error:
            compile_linear(pattern)
            raise
    built.Compile()
    return built


class RuleSets:
    """The rules (matched with ``(?i)`` on normalised text) and the raw rules (matched on
    the text as written), compiled on first use. Safe to share between threads."""

    def __init__(self, rules: tuple[str, ...], raw: tuple[str, ...]) -> None:
        self._rules = tuple("(?i)" + pattern for pattern in rules)
        self._raw = raw
        self._lock = threading.Lock()
        self._gate: Any = None
        self._ascii: Any = None
        self._ascii_rules: tuple[int, ...] = ()
        self._ascii_raw: tuple[int, ...] = ()
        self._full: Any = None
        self._raw_set: Any = None
        self._patterns: list[Any] = [None] * len(rules)
        self._raw_patterns: list[Any] = [None] * len(raw)

    def _ascii_patterns(self) -> list[str]:
        """The ASCII set's patterns (the rules, then the raw rules, that can match ASCII);
        called with the lock held."""
        if not self._ascii_rules and not self._ascii_raw:
            rules = [i for i, p in enumerate(self._rules) if not needs_non_ascii(p)]
            raw = [i for i, p in enumerate(self._raw) if not needs_non_ascii(p)]
            self._ascii_rules, self._ascii_raw = tuple(rules), tuple(raw)
        patterns = [_NEG_GROUP.sub("(?:", self._rules[i]) for i in self._ascii_rules]
        return patterns + [self._raw[i] for i in self._ascii_raw]

    def _ascii_set(self) -> Any:
        with self._lock:
            if self._ascii is None:
                self._ascii = _set([ascii_only(p) for p in self._ascii_patterns()])
            return self._ascii

    def _gate_set(self) -> Any:
        with self._lock:
            if self._gate is None:
                rules = [_NEG_GROUP.sub("(?:", p) for p in self._rules]
                self._gate = _set([ascii_only(p) for p in (*rules, *self._raw, OBFUSCATION)])
            return self._gate

    def gate(self, text: str) -> bool:
        """Whether any rule or raw rule can match ASCII ``text`` or a text normalising it
        gives (false means no text of it needs a closer look)."""
        built = self._gate if self._gate is not None else self._gate_set()
        return bool(built.Match(text))

    def matches(self, normal: str, text: str) -> tuple[list[int], list[int]]:
        """The rules that match ``normal`` (the normalised ``text``) and the raw rules that
        match ``text``, by index."""
        if normal.isascii():
            built = self._ascii if self._ascii is not None else self._ascii_set()
            found = built.Match(normal) or ()
            count, ascii_rules = len(self._ascii_rules), self._ascii_rules
            rules = [ascii_rules[i] for i in found if i < count]
            if normal is text or normal == text:
                raw_at, ascii_raw = count, self._ascii_raw
                return rules, [ascii_raw[i - raw_at] for i in found if i >= raw_at]
        else:
            full = self._full if self._full is not None else self._full_set()
            rules = list(full.Match(normal) or ())
        return rules, self._raw_matches(text)

    def _raw_matches(self, text: str) -> list[int]:
        raw_set = self._raw_set if self._raw_set is not None else self._build_raw()
        return list(raw_set.Match(text) or ())

    def _full_set(self) -> Any:
        with self._lock:
            if self._full is None:
                self._full = _set([_NEG_GROUP.sub("(?:", p) for p in self._rules])
            return self._full

    def _build_raw(self) -> Any:
        with self._lock:
            if self._raw_set is None:
                self._raw_set = _set(list(self._raw))
            return self._raw_set

    def rule(self, index: int) -> Any:
        """Rule ``index`` compiled alone."""
        compiled = self._patterns[index]
        if compiled is None:
            compiled = self._patterns[index] = _compile(self._rules[index])
        return compiled

    def raw_rule(self, index: int) -> Any:
        """Raw rule ``index`` compiled alone."""
        compiled = self._raw_patterns[index]
        if compiled is None:
            compiled = self._raw_patterns[index] = _compile(self._raw[index])
        return compiled

    def compile_all(self) -> None:
        """Every set and every rule compiled now (raises ValueError for a rule RE2 refuses)."""
        self._gate_set()
        self._ascii_set()
        self._full_set()
        self._build_raw()
        for index in range(len(self._rules)):
            self.rule(index)
        for index in range(len(self._raw)):
            self.raw_rule(index)
