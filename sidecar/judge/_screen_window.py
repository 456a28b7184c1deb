"""Where a clause of a claim is found in the cited passages: the window of neighbouring
sentences that holds the most of its content words and quantities."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sidecar.judge._screen_clauses import Clause
from sidecar.judge._screen_text import Prepared, Quantity

__all__ = ["Window", "best_window", "same_quantity"]

_WINDOW = 3  # neighbouring sentences a clause may draw on
_MAX_STARTS = 24  # sentences of one passage where a clause's window may start
_LISTED = 256  # a value stated this often in a passage is looked for sentence by sentence


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """``b`` is the quantity ``a`` states: same dimension and value, and a bare count
    counts the same thing (or neither says what it counts)."""
    if a.dim != b.dim:
        return False
    if abs(a.value - b.value) > 1e-9 * max(1.0, abs(a.value)):
        return False
    # a bare count is the same one only when it counts the same thing (or neither says)
    return a.dim != "" or a.heads == b.heads or bool(a.heads & b.heads)


@dataclass(slots=True)
class Window:
    """Sentences ``first`` to ``last`` of one passage, with the clause's content words and
    the indexes of its quantities found there."""

    passage: Prepared
    first: int
    last: int
    units: set[str]
    qty: set[int]

    @property
    def score(self) -> int:
        return len(self.units) + len(self.qty)

    def sentences(self) -> range:
        return range(self.first, self.last + 1)

    def quote(self) -> str:
        start = self.passage.sentences[self.first][0]
        end = self.passage.sentences[self.last][1]
        return self.passage.text[start:end]


def best_window(clause: Clause, passages: Sequence[Prepared]) -> Window | None:
    """The first window, in passage, start and end order, that finds the most of the
    clause's content; one that finds all of it ends the search, as no later one can beat it.

    The clause's words and quantities are the bits of one mask, so a window's score is
    the popcount of its sentences' OR. A window widened by a sentence that adds nothing
    scores what the narrower one did, so only the widest window of each start is scored
    (and the narrowest one reaching that score kept), and only when the claimed words the
    passage holds and the quantities the window states could beat the best so far."""
    units = sorted(clause.units)
    bit = {unit: 1 << n for n, unit in enumerate(units)}
    total = len(units) + len(clause.quantities)
    best: tuple[Prepared, int, int, int] | None = None
    best_score = -1
    for passage in passages:
        words = sum(1 for unit in units if unit in passage.key_sents)
        if words + len(clause.quantities) <= best_score:
            continue
        found = _Found(clause, passage, bit)
        if words + found.possible <= best_score:
            continue
        count = len(passage.sentences)
        listed, bound = found.listed, words + found.unlisted
        for first in found.starts:
            stop = min(first + _WINDOW, count)
            stated = 0
            for sent in range(first, stop):
                stated |= listed.get(sent, 0)
            if bound + stated.bit_count() <= best_score:
                continue
            got = 0
            for last in range(first, stop):
                got |= found.mask(last)
            score = got.bit_count()
            if score <= best_score:
                continue
            got = 0
            for last in range(first, stop):
                got |= found.mask(last)
                if got.bit_count() == score:
                    break
            best, best_score = (passage, first, last, got), score
            if score == total:
                return _chosen(clause, units, best)
    return None if best is None else _chosen(clause, units, best)


class _Found:
    """Where one clause's content is stated in one passage: the sentences where a window
    may start, the mask of claimed quantities each sentence states, and each sentence's
    mask of claimed words and quantities (computed when first asked)."""

    def __init__(self, clause: Clause, passage: Prepared, bit: dict[str, int]) -> None:
        self._clause = clause
        self._passage = passage
        self._bit = bit
        self._shift = shift = len(bit)
        self._masks: dict[int, int] = {}
        self._by_keys: dict[frozenset[str], int] = {}
        starts = _word_starts(clause, passage)
        self.listed: dict[int, int] = {}
        """The mask of the claimed quantities each sentence states, from the passage's
        value index."""
        self._wanted: dict[tuple[str, float], list[int]] = {}
        """Claimed quantities stated so often that they are matched in the sentences read."""
        self.possible = 0
        """At most this many of the clause's quantities are stated in the passage."""
        listed = self.listed
        for i, cq in enumerate(clause.quantities):
            same = passage.by_value.get((cq.dim, cq.value))
            if not same:
                continue
            many = len(same) > _LISTED
            read = same[:_MAX_STARTS] if many else same
            if cq.dim:
                # the index's dimension and value make it the same quantity
                sents = [pq.sent for pq in read]
                starts.update(sents[:_MAX_STARTS])
            else:
                # a bare count is the same one only when it counts the same thing
                sents = []
                for n, pq in enumerate(read):
                    if same_quantity(cq, pq):
                        sents.append(pq.sent)
                        if n < _MAX_STARTS:
                            starts.add(pq.sent)
            if many:
                self._wanted.setdefault((cq.dim, cq.value), []).append(i)
                self.possible += 1
                continue
            self.possible += bool(sents)
            flag = 1 << (shift + i)
            for sent in sents:
                listed[sent] = listed.get(sent, 0) | flag
        self.unlisted = sum(len(found) for found in self._wanted.values())
        """How many claimed quantities are matched sentence by sentence."""
        self.starts = sorted(starts)
        while self.starts and self.starts[-1] >= len(passage.sentences):
            self.starts.pop()
        """Sentences holding a claimed word or quantity, in order."""

    def mask(self, sent: int) -> int:
        """The mask of the claimed words and quantities sentence ``sent`` states."""
        mask = self._masks.get(sent)
        if mask is not None:
            return mask
        clause, passage = self._clause, self._passage
        common = clause.units & passage.sent_keys[sent]
        mask = self._by_keys.get(common)
        if mask is None:
            mask = 0
            for unit in common:
                mask |= self._bit[unit]
            self._by_keys[common] = mask
        mask |= self.listed.get(sent, 0)
        if self._wanted:
            for pq in passage.sent_quantities[sent]:
                for i in self._wanted.get((pq.dim, pq.value), ()):
                    if same_quantity(clause.quantities[i], pq):
                        mask |= 1 << (self._shift + i)
        self._masks[sent] = mask
        return mask


def _word_starts(clause: Clause, passage: Prepared) -> set[int]:
    """Sentences holding a claimed word, the rarest words' first: a word found in more
    sentences than the budget left is checked only in the sentences already chosen, so a
    clause costs the same whatever the passage's size."""
    starts: set[int] = set()
    postings = sorted(
        (passage.key_sents[u] for u in clause.units if u in passage.key_sents), key=len
    )
    for found in postings:
        if starts and len(starts) + len(found) > _MAX_STARTS:
            break
        starts.update(found[:_MAX_STARTS])
    return starts


def _chosen(clause: Clause, units: list[str], best: tuple[Prepared, int, int, int]) -> Window:
    passage, first, last, got = best
    return Window(
        passage,
        first,
        last,
        {unit for n, unit in enumerate(units) if got >> n & 1},
        {i for i in range(len(clause.quantities)) if got >> (len(units) + i) & 1},
    )
