"""Citation IDs as answers write them: their canonical form, the per-trace resolver, and the
automaton that finds a trace's declared source IDs in brackets.

Two spellings of an ID are the same ID when they are equal after removing format
characters (Unicode category Cf: zero-width spaces and joiners, the byte-order mark, soft
hyphens, bidirectional controls) and NFKC normalisation: ``café1`` in NFC and NFD, ``Ｓ１``
and ``S1``. Case matters for identity, but a written ID that matches a declared one only
when case is ignored resolves to it and is reported as such (``how == "case"``), never as
another source.

The automaton is Aho-Corasick over the patterns ``[`` + ID + ``]`` of the declared IDs, on
a case-folded, decomposed key of the text: it finds every bracketed occurrence of any of
them, whatever characters an ID holds, in one pass over the text (time linear in the text
plus the IDs' length, whatever the IDs).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Literal, NamedTuple

__all__ = [
    "FORMAT_CHARS",
    "OPENERS",
    "SHAPED",
    "DeclaredIds",
    "Found",
    "IdResolver",
    "Match",
    "canonical",
]

_FORMAT_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD),
    (0x070F, 0x070F), (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064), (0x2066, 0x206F),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
    (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)  # fmt: skip
"""Every code point of category Cf (Unicode 14, Python 3.11; a test holds it to
``unicodedata``)."""

FORMAT_CHARS = re.compile("[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in _FORMAT_RANGES) + "]")
"""One format character (category Cf)."""

_OPEN = "\u3010\u3014\u3016\u3018"  # 【 〔 〖 〘
_CLOSE = "\u3011\u3015\u3017\u3019"  # 】 〕 〗 〙
_CLOSERS = "]\uff3d\ufe48" + _CLOSE
_BRACKETS = str.maketrans(_OPEN + _CLOSE, "[" * len(_OPEN) + "]" * len(_CLOSE))
OPENERS = re.compile(r"[\[\uff3b\ufe47" + _OPEN + "]")
"""A character that opens a marker: ``[`` and its full-width and CJK forms."""
_SHAPE_ID = r"(?:[A-Za-z][A-Za-z_-]{0,15}[0-9][0-9A-Za-z_-]{0,15}|[0-9]{1,6})"
_ALL_SHAPED = re.compile(rf"(?:{_SHAPE_ID}\n)*{_SHAPE_ID}")
SHAPED = re.compile(_SHAPE_ID)
"""An ID the built-in marker pattern finds by its shape alone (``S1``, ``doc-7``, ``12``)."""


def canonical(written: str) -> str:
    """``written`` without format characters, in NFKC: the form IDs are compared in."""
    if written.isascii():
        return written
    return unicodedata.normalize("NFKC", FORMAT_CHARS.sub("", written))


def _folded(written: str) -> str:
    if written.isascii():
        return written.lower()
    return unicodedata.normalize("NFKC", canonical(written).casefold())


How = Literal["exact", "normalised", "case"]


class Found(NamedTuple):
    """A bracketed occurrence of declared IDs: its span, the canonical form of what is
    written between the brackets, and the declared IDs whose key it matched."""

    start: int
    end: int
    written: str
    candidates: tuple[str, ...]


class Match(NamedTuple):
    """A bracketed declared ID found in the text: its span and what it resolved to."""

    start: int
    end: int
    source_id: str
    """The declared ID, or the canonical form of what is written when it matched several
    declared IDs only by case (``how`` None: ambiguous, so unknown)."""
    how: How | None


_KEYS: dict[str, str] = {chr(i): chr(i).lower() for i in range(128)}
_BOUNDARY: dict[str, bool] = {chr(i): True for i in range(128)}
_MAX_CACHED = 1 << 16


def _boundary(char: str) -> bool:
    """Whether a key cluster starts at ``char``: a character whose decomposition starts
    with a starter and that is not a format character (marks and format characters stay
    with the character before them, so that reordering never crosses a cluster)."""
    known = _BOUNDARY.get(char)
    if known is None:
        decomposed = unicodedata.normalize("NFKD", char)
        known = (
            FORMAT_CHARS.match(char) is None
            and bool(decomposed)
            and unicodedata.combining(decomposed[0]) == 0
        )
        if len(_BOUNDARY) < _MAX_CACHED:
            _BOUNDARY[char] = known
    return known


def _cluster_key(cluster: str) -> str:
    """The matching key of one cluster: format characters removed, decomposed (NFKD),
    case-folded, decomposed again, CJK brackets as ``[`` and ``]``."""
    key = _KEYS.get(cluster)
    if key is None:
        stripped = FORMAT_CHARS.sub("", cluster)
        key = unicodedata.normalize(
            "NFKD", unicodedata.normalize("NFKD", stripped).casefold()
        ).translate(_BRACKETS)
        if len(cluster) == 1 and len(_KEYS) < _MAX_CACHED:
            _KEYS[cluster] = key
    return key


def _cluster_end(text: str, start: int, end: int) -> int:
    position = start + 1
    while position < end and not _boundary(text[position]):
        position += 1
    return position


def _key(text: str) -> str:
    """The matching key of a whole string, cluster by cluster as the text is walked."""
    if text.isascii():
        # Every ASCII character is a cluster of its own, keyed by its lower case.
        return text.lower()
    parts = []
    position = 0
    while position < len(text):
        after = _cluster_end(text, position, len(text))
        parts.append(_cluster_key(text[position:after]))
        position = after
    return "".join(parts)


class DeclaredIds:
    """The Aho-Corasick automaton over ``[ID]`` for a set of declared IDs."""

    __slots__ = ("_goto", "_fail", "_best", "_lengths", "_ids")

    def __init__(self, ids: Iterable[str]) -> None:
        goto: list[dict[str, int]] = [{}]
        terminal: list[int] = [-1]
        by_key: dict[str, list[str]] = {}
        for source_id in ids:
            key = _key(f"[{source_id}]")
            if len(key) <= 2 or key[0] != "[" or key[-1] != "]":
                continue  # nothing visible between the brackets: no marker to find
            by_key.setdefault(key, []).append(source_id)
        self._ids: list[tuple[str, ...]] = []
        self._lengths: list[int] = []
        for key, found in by_key.items():
            node = 0
            for char in key:
                following = goto[node].get(char)
                if following is None:
                    following = goto[node][char] = len(goto)
                    goto.append({})
                    terminal.append(-1)
                node = following
            terminal[node] = len(self._ids)
            self._ids.append(tuple(found))
            self._lengths.append(len(key))
        fail = [0] * len(goto)
        best = list(terminal)
        queue = list(goto[0].values())
        for node in queue:  # breadth first: a node's fail link is set before its children's
            for char, child in goto[node].items():
                link = fail[node]
                while link and char not in goto[link]:
                    link = fail[link]
                target = goto[link].get(char, 0)
                fail[child] = target if target != child else 0
                if best[child] < 0:
                    best[child] = best[fail[child]]
                queue.append(child)
        self._goto, self._fail, self._best = goto, fail, best

    def __bool__(self) -> bool:
        return bool(self._ids)

    def find(self, text: str) -> list[Found]:
        """Non-overlapping bracketed occurrences in ``text``, leftmost first, the longest
        where two start together. The walk jumps from one opening bracket to the next
        while no pattern is under way, so text between markers costs a C-level search."""
        goto, fail, best, lengths = self._goto, self._fail, self._best, self._lengths
        found: list[tuple[int, int, int]] = []  # (start, -end, pattern)
        origins: list[int] = []  # where each key character of the current run comes from
        state = 0
        position, end = 0, len(text)
        while position < end:
            if state == 0:
                opener = OPENERS.search(text, position)
                if opener is None:
                    break
                position = opener.start()
                origins.clear()
            after = _cluster_end(text, position, end)
            for char in _cluster_key(text[position:after]):
                origins.append(position)
                while state and char not in goto[state]:
                    state = fail[state]
                state = goto[state].get(char, 0)
                pattern = best[state]
                if pattern >= 0:
                    found.append((origins[len(origins) - lengths[pattern]], -after, pattern))
            position = after
        found.sort()
        matches: list[Found] = []
        reach = 0
        for start, negative_end, pattern in found:
            if start < reach:
                continue
            reach = -negative_end
            matches.append(self._written(text, start, reach, pattern))
        return matches

    def _written(self, text: str, start: int, end: int, pattern: int) -> Found:
        inner = text[start + 1 : end]
        closer = max(inner.rfind(c) for c in _CLOSERS)
        written = canonical(inner[:closer] if closer >= 0 else inner)
        return Found(start, end, written, self._ids[pattern])


_NONE = DeclaredIds(())
_SHAPED_SETS: dict[frozenset[str], bool] = {}
"""Whether the shape finds every ID, for the sets of IDs seen lately."""


def _all_shaped(declared: frozenset[str]) -> bool:
    """Whether the pattern's shape finds every ID of ``declared``; remembered for the
    sets of IDs seen lately (most traces of an app declare the same few: S1, S2, ...)."""
    known = _SHAPED_SETS.get(declared)
    if known is None:
        if len(_SHAPED_SETS) >= 256:
            _SHAPED_SETS.clear()
        known = _SHAPED_SETS[declared] = (
            not declared or _ALL_SHAPED.fullmatch("\n".join(declared)) is not None
        )
    return known


class IdResolver:
    """Resolves written citation IDs to the declared source IDs of one trace.

    Built once per trace; the normalised and case-folded tables, and the automaton, are
    built on first need (most written IDs are exactly a declared one)."""

    __slots__ = ("declared", "_canonical", "_folded", "_automata", "_unshaped_keys")

    def __init__(self, declared: frozenset[str]) -> None:
        self.declared = declared
        self._canonical: dict[str, str | None] | None = None
        self._folded: dict[str, str | None] | None = None
        self._automata: dict[bool, DeclaredIds] = {}
        self._unshaped_keys: list[str] | None = None

    def _tables(self) -> tuple[dict[str, str | None], dict[str, str | None]]:
        """The declared IDs by canonical form (those not in it already) and by case-folded
        form; a key two IDs share maps to None (ambiguous: neither wins)."""
        if self._canonical is None or self._folded is None:
            declared = self.declared
            if "".join(declared).isascii():  # the common case: one comprehension
                ascii_folded: dict[str, str | None] = {i.lower(): i for i in declared}
                if len(ascii_folded) == len(declared):
                    self._canonical, self._folded = {}, ascii_folded
                    return self._canonical, self._folded
            by_canonical: dict[str, str | None] = {}
            by_folded: dict[str, str | None] = {}
            for source_id in declared:
                if source_id.isascii():
                    folded = source_id.lower()
                else:
                    key = canonical(source_id)
                    by_canonical[key] = source_id if key not in by_canonical else None
                    folded = _folded(source_id)
                by_folded[folded] = source_id if folded not in by_folded else None
            self._canonical, self._folded = by_canonical, by_folded
        return self._canonical, self._folded

    def resolve(self, written: str) -> tuple[str, How | None]:
        """``(source ID, how)`` when ``written`` names a declared ID, else
        ``(canonical form, None)``."""
        declared = self.declared
        if written in declared:
            return written, "exact"
        if written.isascii():  # canonical already; folded by lower()
            form, folded = written, written.lower()
        else:
            form = canonical(written)
            if form in declared:
                return form, "normalised"
            folded = _folded(form)
        by_canonical, by_folded = self._tables()
        if form in by_canonical:
            found = by_canonical[form]
            return (found, "normalised") if found is not None else (form, None)
        found = by_folded.get(folded)
        if found is not None:
            return found, "case"
        return form, None

    def all_shaped(self) -> bool:
        """Whether the built-in pattern's shape finds every declared ID by itself."""
        known = _SHAPED_SETS.get(self.declared)
        return known if known is not None else _all_shaped(self.declared)

    def automaton(self, *, every_id: bool) -> DeclaredIds:
        """The automaton over the declared IDs the marker pattern's shape cannot find or,
        with ``every_id``, over all of them (for text whose IDs may be written in another
        form than declared)."""
        built = self._automata.get(every_id)
        if built is None:
            if every_id:
                built = DeclaredIds(self.declared)
            elif _all_shaped(self.declared):
                built = _NONE  # the common case
            else:
                built = DeclaredIds([i for i in self.declared if SHAPED.fullmatch(i) is None])
            self._automata[every_id] = built
        return built

    def _none_bracketed(self, text: str) -> bool:
        """Whether ASCII ``text`` surely holds none of the patterns of the automaton over
        the IDs the shape cannot find: when those IDs are ASCII, a pattern's key is its
        lower case, and so is the text's (every ASCII character a cluster of its own), so
        one substring search per ID tells, without building the automaton."""
        keys = self._unshaped_keys
        if keys is None:
            unshaped = [i for i in self.declared if SHAPED.fullmatch(i) is None]
            # Empty when an ID is not ASCII: then only the automaton tells.
            keys = self._unshaped_keys = (
                [f"[{i}]".lower() for i in unshaped] if "".join(unshaped).isascii() else []
            )
        if not keys:
            return False
        lowered = text.lower()
        return not any(key in lowered for key in keys)

    def find(self, text: str, *, every_id: bool) -> list[Match]:
        """Bracketed occurrences of declared IDs in ``text`` (see :meth:`automaton`),
        resolved as :meth:`resolve` does."""
        if not every_id and text.isascii() and self._none_bracketed(text):
            return []
        automaton = self.automaton(every_id=every_id)
        if not automaton:
            return []
        matches = []
        for start, end, written, candidates in automaton.find(text):
            source_id, how = self.resolve(written)
            if how is None and len(candidates) == 1:
                # Equal by the automaton's key (case-folded, decomposed) though not by the
                # tables' (NFKC case folding): a case-only match still.
                source_id, how = candidates[0], "case"
            matches.append(Match(start, end, source_id, how))
        return matches
