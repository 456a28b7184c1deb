"""Aligning one clause of a claim with the cited passages, and the conflicts found there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_binding import (
    list_count_differs,
    modifier_elsewhere,
    name_unbound,
    referent_missing,
    reported_or_asked,
    several_named,
)
from sidecar.judge._screen_clauses import Clause, split_clauses
from sidecar.judge._screen_links import unlinked
from sidecar.judge._screen_numbers import ranked_at
from sidecar.judge._screen_roles import roles, verb_like
from sidecar.judge._screen_text import Prepared, Quantity, Token
from sidecar.judge._screen_window import Window, best_window, same_quantity

__all__ = ["Clause", "ClauseResult", "judge_clause", "split_clauses"]

_ALIGNED = 0.75  # share of a clause's other content that must be found to call a conflict
_ABSENT = 1 / 3  # at most this share found: the clause is absent from the cited text
_MONTHS_AND_DAYS = lx.MONTHS | lx.WEEKDAYS


@dataclass(frozen=True, slots=True)
class ClauseResult:
    """found, conflict, absent or unsure, with the reason and (when found) the quote."""

    outcome: str
    reason: str
    quote: str = ""


# months and days do not convert exactly, currencies not at all, but each is a rival
_FAMILY = {
    "month": "time",
    "usd": "money",
    "eur": "money",
    "gbp": "money",
    "jpy": "money",
    "chf": "money",
}
_MONTH_SECONDS = 30.4375 * 86400


def _rival_quantity(a: Quantity, b: Quantity) -> bool:
    """``b`` states the same kind of quantity as ``a`` with another value."""
    if _FAMILY.get(a.dim, a.dim) != _FAMILY.get(b.dim, b.dim) or same_quantity(a, b):
        return False
    if a.dim != b.dim and _FAMILY.get(a.dim) == "time":
        # 26 weeks and six months are near enough that neither says the other is wrong
        x, y = (q.value * (_MONTH_SECONDS if q.dim == "month" else 1.0) for q in (a, b))
        return abs(x - y) > 0.1 * max(abs(x), abs(y))
    return a.dim != "" or bool(a.heads & b.heads)


@dataclass(slots=True)
class _Hits:
    """Per sentence of a window: antonyms of claimed words and rival quantities found."""

    antonyms: dict[int, set[str]]
    qty_rival: dict[int, set[int]]


def _opposites(clause: Clause, unit: str, passage: Prepared) -> set[str]:
    # an opposite the claim itself states is not a conflict ("at least 4 hours ... no
    # more than 8 tablets")
    opposites = set(lx.ANTONYMS.get(unit, ())) - clause.units
    if unit in _MONTHS_AND_DAYS:
        group = lx.MONTHS if unit in lx.MONTHS else lx.WEEKDAYS
        opposites |= {m for m in group if m != unit and m in passage.key_sents}
    return opposites


def _hits(clause: Clause, passage: Prepared, sents: range) -> _Hits:
    hits = _Hits({}, {})
    for sent in sents:
        plain = passage.sent_plain[sent]
        for unit in clause.units:
            if _opposites(clause, unit, passage) & plain:
                hits.antonyms.setdefault(sent, set()).add(unit)
        for i, cq in enumerate(clause.quantities):
            if any(_rival_quantity(cq, pq) for pq in passage.sent_quantities[sent]):
                hits.qty_rival.setdefault(sent, set()).add(i)
    return hits


def judge_clause(clause: Clause, passages: Sequence[Prepared]) -> ClauseResult:
    """Where ``clause`` stands against ``passages``: found, conflict, absent or unsure."""
    total = len(clause.units) + len(clause.quantities)
    if total == 0:
        return ClauseResult("found", "found: nothing to match in this clause")
    window = best_window(clause, passages)
    if window is None:
        return ClauseResult("absent", "abstained: content not found in the cited text")
    hits = _hits(clause, window.passage, window.sentences())
    share = window.score / total
    conflict = _conflict(clause, window, hits, total)
    if conflict:
        return ClauseResult("conflict", conflict)
    if window.score == total:
        blocked = (
            _blocked(clause, window)
            or _unbound(clause, window)
            or unlinked(
                clause.tokens,
                clause.source,
                clause.units,
                _matched_span(clause, window),
                window.passage.text,
                lx.SPLITTERS,
            )
        )
        if blocked:
            return ClauseResult("unsure", blocked)
        return ClauseResult(
            "found", "found: every part of the claim in the cited text", window.quote()
        )
    if share <= _ABSENT:
        return ClauseResult("absent", "abstained: content not found in the cited text")
    return ClauseResult("unsure", "abstained: content only partly found, no conflict detected")


def _window_tokens(window: Window) -> list[tuple[int, Token]]:
    return window.passage.tokens_of(window.first, window.last)


def _matched_span(clause: Clause, window: Window) -> list[tuple[int, Token]]:
    """The window's tokens from the first to the last of its clauses (split at commas,
    conjunctions and conditions) that hold a claimed word or quantity: a negation or an
    opposite elsewhere in the window belongs to another statement."""
    claimed_at = {
        pq.start
        for pq in _window_quantities(window)
        if any(same_quantity(cq, pq) for cq in clause.quantities)
    }
    tokens = _window_tokens(window)
    pieces: list[list[tuple[int, Token]]] = [[]]
    for item in tokens:
        tok = item[1]
        if pieces[-1] and (
            tok.kind == "b" or tok.key in lx.SPLITTERS or tok.sent != pieces[-1][-1][1].sent
        ):
            pieces.append([])
        pieces[-1].append(item)
    hit = [
        n
        for n, piece in enumerate(pieces)
        if any((t.kind == "w" and t.key in clause.units) or t.start in claimed_at for _, t in piece)
    ]
    if not hit:
        return []
    return [item for piece in pieces[hit[0] : hit[-1] + 1] for item in piece]


def _unbound(clause: Clause, window: Window) -> str:
    """Across sentences, the claim's subject and what it says of it must meet: each word of
    the subject shares a sentence with each word of the predicate, or the words may
    belong to something else ("Hot Rod is a food magazine" against a food magazine, then
    Hot Rod; "A and B are both American" against "A is Canadian. B is American")."""
    if window.first == window.last or not clause.subject or not clause.predicate:
        return ""
    keys = [window.passage.sent_keys[s] for s in window.sentences()]
    present = set().union(*keys)
    for said_of in clause.subject & present:
        for said in clause.predicate & present:
            if not any(said_of in found and said in found for found in keys):
                return "abstained: the claimed words belong to different sentences' subjects"
    return ""


def _window_quantities(window: Window) -> list[Quantity]:
    return [q for s in window.sentences() for q in window.passage.sent_quantities[s]]


def _conflict(clause: Clause, window: Window, hits: _Hits, total: int) -> str:
    """The conflict code and explanation, or "" when the aligned text does not conflict."""
    if total < 2:
        return ""
    sents = window.sentences()
    aligned_without_one = (window.score >= 1) and (window.score / max(1, total - 1) >= _ALIGNED)
    # another number, date or quantity of the same kind where the claimed one is missing
    missing_q = set(range(len(clause.quantities))) - window.qty
    if missing_q and aligned_without_one and window.score >= 1:
        rivals = set().union(*(hits.qty_rival.get(s, set()) for s in sents))
        stated = _window_quantities(window)
        for i in sorted(missing_q & rivals):
            cq = clause.quantities[i]
            if any(pq.dim == cq.dim and pq.value == cq.value for pq in stated):
                continue  # the claimed value is there, said of something else or in part
            if not any(_rival_quantity(cq, pq) and _near(clause, window, pq) for pq in stated):
                continue  # no rival stated of the claim's words: another fact's number
            dim = cq.dim
            code = "conflict_date" if dim in ("year", "day_of_month") else "conflict_number"
            return f"{code}: the cited text gives another {dim or 'number'} in the matched context"
    # an antonym, opposite direction or another month in place of a claimed word
    missing_u = clause.units - window.units
    if missing_u and aligned_without_one and window.score >= 2:
        opposed = set().union(*(hits.antonyms.get(s, set()) for s in sents))
        for unit in sorted(missing_u & opposed):
            if unit in clause.negated:
                continue
            if unit in lx.RELATIONS and _roles(clause, window, anchor=unit, opposite=True) not in (
                "same",
                "one_sided",
            ):
                continue
            code = "conflict_date" if unit in _MONTHS_AND_DAYS else "conflict_antonym"
            return f"{code}: the cited text states the opposite of a claimed word"
    if window.score == total:
        # a claimed word negated in the matched clauses of the cited text, or the reverse
        tokens = _matched_span(clause, window)
        for unit in sorted(clause.units):
            seen = {t.neg for _, t in tokens if t.key == unit}
            claimed = {unit in clause.negated and unit not in clause.plain}
            if seen and not (seen & claimed) and not _opposite_in_claim(clause, unit):
                return "conflict_negation: the matched text negates the claim (or the reverse)"
        for unit in sorted(clause.units & lx.RELATIONS):
            if _roles(clause, window, anchor=unit, opposite=False) == "swapped":
                return "conflict_role: the roles around the relation are swapped"
        # a comparator on the matched number that is the opposite of the claim's
        for cq in clause.quantities:
            for pq in _window_quantities(window):
                if (
                    same_quantity(cq, pq)
                    and cq.qualifier
                    and pq.qualifier in lx.ANTONYMS.get(cq.qualifier, ())
                ):
                    return "conflict_number: the cited text bounds the number the other way"
    return ""


def _opposite_in_claim(clause: Clause, unit: str) -> bool:
    """The claim negates an antonym too: polarity is not comparable word by word."""
    return any(a in clause.units for a in lx.ANTONYMS.get(unit, ()))


def _negated(quantity: Quantity, negated_at: dict[int, bool]) -> bool:
    """Whether a negation reaches the passage's statement of ``quantity``."""
    return any(neg for start, neg in negated_at.items() if quantity.start <= start < quantity.end)


def _blocked(clause: Clause, window: Window) -> str:
    """Why a clause whose content is all found still cannot be called supported."""
    tokens = _window_tokens(window)
    if not clause.hedged:
        for unit in clause.units:
            seen = [t.hedged for _, t in tokens if t.key == unit]
            if seen and all(seen):
                return "abstained: the cited text hedges what the claim states flatly"
    if (
        not clause.stale
        and "END" not in clause.units
        and any(t.kind == "t" or t.key in ("STALE_NEG", "END") for _, t in tokens)
    ):
        return "abstained: the cited text marks a superseded or past state"
    for unit in sorted(clause.units):
        # the claim's subject found only after the verb, or both sides crossed: the text
        # may say who does what the other way round ("the seller delivers to the buyer")
        if verb_like(unit) and _roles(clause, window, anchor=unit, opposite=False) in (
            "swapped",
            "moved",
        ):
            return "abstained: the words around a verb are in another order"
    span = _matched_span(clause, window)
    reported = reported_or_asked(clause.units, span, window.passage)
    if reported:
        return reported
    if clause.unnamed and several_named(span, window.passage):
        return "abstained: the claim's unnamed referent may be any of several the text names"
    if clause.unnamed and referent_missing(clause.pronoun, span, window.passage):
        return "abstained: the claim's pronoun has nothing to refer to in the matched text"
    unbound_name = name_unbound(clause.names, window.passage.text)
    if unbound_name:
        return unbound_name
    if modifier_elsewhere(clause.tokens, clause.units, span, lx.SPLITTERS):
        return "abstained: a modifier of the claim belongs to another head in the cited text"
    for cq in clause.quantities:
        if not cq.dim and any(list_count_differs(cq.value, h, window.passage) for h in cq.heads):
            return "abstained: the cited text lists another number of them than the claim counts"
    for unit in clause.units:
        opposites = lx.ANTONYMS.get(unit, frozenset()) - clause.units
        if opposites and any(t.key in opposites and not t.neg and not t.compound for _, t in span):
            return "abstained: the matched text also states the opposite of a claimed word"
    text = window.passage.text
    if any(
        t.kind == "w" and t.key in clause.units - clause.ranked and ranked_at(text, t.start)
        for _, t in span
    ):
        return "abstained: the cited text ranks what the claim states flatly (one of the, 2nd)"
    if not clause.conditional:
        keys = [t.key for _, t in tokens]
        if any(
            k in lx.CONDITIONS and (k != "provide" or nxt == "that")
            for k, nxt in zip(keys, [*keys[1:], ""], strict=True)
        ):
            return "abstained: the cited text attaches a condition the claim leaves out"
    negated_at = {t.start: t.neg for _, t in tokens if t.kind == "q"}
    for cq in clause.quantities:
        in_window = _window_quantities(window)
        matches = [pq for pq in in_window if same_quantity(cq, pq)]
        if matches and all(pq.qualifier != cq.qualifier for pq in matches):
            return "abstained: the cited text qualifies the number differently"
        claimed_negated = any(
            t.neg for t in clause.tokens if t.kind == "q" and cq.start <= t.start < cq.end
        )
        if matches and all(_negated(pq, negated_at) != claimed_negated for pq in matches):
            # "The fee is not 5 USD": the negation reaches only the number
            return "abstained: the cited text negates the number the claim states (or the reverse)"
        rivals = [pq for pq in in_window if _rival_quantity(cq, pq)]
        if rivals and max(_near(clause, window, q) for q in rivals) >= max(
            _near(clause, window, q) for q in matches
        ):
            return "abstained: another number of the same kind is as close to the claim's words"
    return ""


def _near(clause: Clause, window: Window, quantity: Quantity) -> int:
    """How many of the clause's content keys share the quantity's own clause of the text."""
    tokens = window.passage.tokens
    pos = window.passage.token_at.get(quantity.start)
    if pos is None:
        return 0
    keys = set()
    for step in (-1, 1):
        k = pos + step
        while 0 <= k < len(tokens) and abs(k - pos) <= 30:
            tok = tokens[k]
            if tok.sent != quantity.sent or tok.kind == "b" or tok.key in lx.SPLITTERS:
                break
            if tok.kind == "w":
                keys.add(tok.key)
            k += step
    return len(keys & clause.units)


def _roles(clause: Clause, window: Window, *, anchor: str, opposite: bool) -> str:
    return roles(
        clause.tokens,
        clause.units,
        window.passage,
        window.sentences(),
        anchor=anchor,
        opposite=opposite,
    )
