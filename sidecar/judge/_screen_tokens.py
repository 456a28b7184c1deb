"""The screen's units of meaning (tokens and quantities) and the reach of negations and
hedges over them."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Quantity", "Token", "mark_scopes"]

_NEG_SCOPE = 4  # tokens a negation cue reaches
_HEDGE_SCOPE = 5  # tokens a hedge reaches
_NEGATED_BOUND = {"GT": "LE", "LT": "GE", "MORE": "LE", "LESS": "GE"}


class Token(NamedTuple):
    """One unit of meaning: a lemma or concept key, its kind and where it came from."""

    key: str
    kind: str  # w content, s stop, n negation, h hedge, t stale, q quantity, b break
    start: int
    end: int
    sent: int
    neg: bool = False
    hedged: bool = False
    compound: bool = False
    """Part of a hyphenated compound ("Harvard-trained", "low-cost"): matched as a word,
    never read as a verb with two sides or as an opposite."""


class Quantity(NamedTuple):
    """A number with its dimension (or none), value in the base unit and what follows it."""

    value: float
    dim: str  # "" for a bare count
    heads: frozenset[str]
    qualifier: str  # a comparator or approximation attached to it, or ""
    sent: int
    start: int
    end: int


def mark_scopes(tokens: list[Token]) -> list[Token]:
    """Mark tokens inside a negation's or a hedge's reach (same clause, a few tokens on)."""
    out = []
    neg_left = hedge_left = 0
    last_sent = -1
    bounds: set[int] = set()
    for k, tok in enumerate(tokens):
        if tok.sent != last_sent or tok.kind == "b":
            neg_left = hedge_left = 0
            last_sent = tok.sent
        if k in bounds:
            # "not more than 8" is "at most 8": the negation is absorbed by the bound
            tok = tok._replace(key=_NEGATED_BOUND[tok.key])
        if tok.kind == "n":
            bound = _bound_after(tokens, k)
            if bound is None:
                # the prefix "non-" negates the word it is attached to, nothing further
                neg_left = 1 if tok.key == "non" else _NEG_SCOPE
            else:
                bounds.add(bound)
        elif tok.kind == "h":
            hedge_left = _HEDGE_SCOPE
        negated = neg_left > 0 and tok.kind != "n"
        hedged = hedge_left > 0 and tok.kind != "h"
        out.append(tok._replace(neg=negated, hedged=hedged) if negated or hedged else tok)
        if tok.kind != "n" and neg_left:
            neg_left -= 1
        if tok.kind != "h" and hedge_left:
            hedge_left -= 1
    return out


def _bound_after(tokens: list[Token], cue: int) -> int | None:
    """The comparator a negation cue turns around ("not more than"), if one follows it."""
    for k in range(cue + 1, min(len(tokens), cue + 1 + _NEG_SCOPE)):
        tok = tokens[k]
        if tok.sent != tokens[cue].sent or tok.kind in ("b", "n"):
            return None
        if tok.key in _NEGATED_BOUND:
            # only a bound on a number ("not more than 8"), not "not accepted under any..."
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            return k if nxt is not None and nxt.kind == "q" else None
    return None
