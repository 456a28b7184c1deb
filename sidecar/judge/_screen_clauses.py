"""A claim cut into clauses, each with its content keys, quantities, subject and predicate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_numbers import ranked_at
from sidecar.judge._screen_roles import predicates
from sidecar.judge._screen_text import Prepared, Quantity, Token

__all__ = ["Clause", "split_clauses"]


@dataclass(frozen=True, slots=True)
class Clause:
    """A clause of the claim: its tokens, content keys (with polarity) and quantities."""

    tokens: tuple[Token, ...]
    units: frozenset[str]
    negated: frozenset[str]
    plain: frozenset[str]
    quantities: tuple[Quantity, ...]
    hedged: bool
    stale: bool
    subject: frozenset[str] = frozenset()
    """Content keys before the clause's first predicate word (empty when it has none)."""
    predicate: frozenset[str] = frozenset()
    """Content keys from the predicate word on."""
    ranked: frozenset[str] = frozenset()
    """Content keys the claim itself ranks among others ("one of the largest")."""
    conditional: bool = False
    """The claim (any of its clauses) states a condition ("if", "when", "only", ...)."""
    unnamed: bool = False
    """The claim refers by a pronoun or a bare definite description to someone or something
    it never names (:func:`sidecar.judge._screen_binding.unnamed_referent`)."""
    pronoun: str = ""
    """The family of the personal pronoun the claim opens with ("he", "she"), or ""."""
    names: tuple[str, ...] = ()
    """The names the claim writes (:func:`sidecar.judge._screen_binding.claim_names`)."""
    source: str = ""
    """The claim's text, which the tokens' offsets refer to."""


def split_clauses(claim: Prepared) -> list[Clause]:
    """Clauses at conjunctions, conditions and sentence ends; tiny pieces join a neighbour.
    An "and" or "or" splits only between two parts with a verb each: a list ("June, July
    and August") or a joint subject ("Ana and Ben founded") stays one clause."""
    verbs = set(predicates(claim.tokens, claim.text))
    pieces: list[list[Token]] = [[]]
    for k, tok in enumerate(claim.tokens):
        starts_new = tok.key in lx.SPLITTERS or (pieces[-1] and pieces[-1][-1].sent != tok.sent)
        if (
            starts_new
            and tok.key in ("and", "or")
            and not (_verb_follows(claim, verbs, k) and _verb_before(claim, verbs, k))
        ):
            starts_new = False
        if starts_new and pieces[-1]:
            pieces.append([])
        pieces[-1].append(tok)
    merged: list[list[Token]] = []
    for piece in pieces:
        if merged and _size(piece, claim) < 2:
            merged[-1].extend(piece)
        elif merged and _size(merged[-1], claim) < 2:
            merged[-1].extend(piece)
        else:
            merged.append(list(piece))
    if len(merged) > 1 and _size(merged[-1], claim) < 2:
        last = merged.pop()
        merged[-1].extend(last)
    conditional = any(
        t.key in lx.CONDITIONS or t.key in ("when", "while", "provided") for t in claim.tokens
    )
    return [
        replace(_clause(piece, claim, verbs), conditional=conditional) for piece in merged if piece
    ]


def _verb_before(claim: Prepared, verbs: set[int], k: int) -> bool:
    """A predicate word between the previous splitter or sentence start and token ``k``."""
    tokens = claim.tokens
    for j in range(k - 1, -1, -1):
        if tokens[j].sent != tokens[k].sent or tokens[j].key in lx.SPLITTERS:
            return False
        if j in verbs:
            return True
    return False


def _verb_follows(claim: Prepared, verbs: set[int], k: int) -> bool:
    """A predicate word between token ``k`` and the next splitter or sentence end."""
    tokens = claim.tokens
    for j in range(k + 1, len(tokens)):
        if tokens[j].sent != tokens[k].sent or tokens[j].key in lx.SPLITTERS:
            return False
        if j in verbs:
            return True
    return False


def _size(tokens: Sequence[Token], claim: Prepared) -> int:
    starts = {t.start for t in tokens}
    return len({t.key for t in tokens if t.kind == "w"}) + sum(
        1 for q in claim.quantities if q.start in starts
    )


def _clause(tokens: list[Token], claim: Prepared, verbs: set[int]) -> Clause:
    starts = {t.start for t in tokens}
    content = [t for t in tokens if t.kind == "w"]
    verb_starts = {claim.tokens[k].start for k in verbs}
    at = next((n for n, t in enumerate(tokens) if t.start in verb_starts), None)
    subject = frozenset(t.key for t in tokens[:at] if t.kind == "w") if at else frozenset()
    predicate = frozenset(t.key for t in tokens[at:] if t.kind == "w") if at else frozenset()
    return Clause(
        tokens=tuple(tokens),
        units=frozenset(t.key for t in content),
        negated=frozenset(t.key for t in content if t.neg),
        plain=frozenset(t.key for t in content if not t.neg),
        quantities=tuple(q for q in claim.quantities if q.start in starts),
        hedged=any(t.kind == "h" for t in tokens),
        stale=any(t.kind == "t" or t.key == "STALE_NEG" for t in tokens),
        subject=subject - predicate,
        predicate=predicate - subject,
        ranked=frozenset(t.key for t in content if ranked_at(claim.text, t.start)),
        source=claim.text,
    )
