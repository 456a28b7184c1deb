"""How the claim's words are linked in the cited text: when every word is there but the text
links them otherwise than the claim does.

- A word the claim writes on both sides of its verb ("Light is evoked by light") is in
  the matched text once: one side of the claim is not there.
- The claim's verb and what follows it are found, but what follows sits in a relative
  clause of the text with a verb of its own ("Alamgir joined ... as a judge on the show
  which aired on ARY Digital TV" for "Alamgir joined ARY Digital TV"): the claim's object
  belongs to another verb.
- The claim's verb ("it can be colored as ...") is in the text only in its bare form
  before another word ("color printing", "color systems"): a noun's modifier, not the
  claim's verb.
- The claim puts in the past what the text puts in the present, or the reverse ("it was
  held on memorial day weekend" against "the event is held over memorial day weekend"; "X
  is the chairman" against "X was the chairman"): a recurring or current state is not one
  past occurrence, and a past state is not the present one.
- The claim stands an action in for "do that", "did so" ("they can do that, but ..."):
  nothing in any text can be matched for it (:func:`pro_verb`, read on the claim alone).

Each is a reason to abstain, never a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sidecar.judge._screen_roles import predicates
from sidecar.judge._screen_text import Token

__all__ = ["pro_verb", "unlinked"]


def unlinked(
    claim_tokens: Sequence[Token],
    claim_text: str,
    units: frozenset[str],
    span: Sequence[tuple[int, Token]],
    text: str,
    splitters: frozenset[str],
) -> str:
    """Why the matched ``span`` of ``text`` does not link the words of a claim's clause
    (``claim_tokens`` of ``claim_text``, content ``units``) as the claim does, or ""."""
    if not span or not claim_text:
        return ""
    if _repeated_once(claim_tokens, claim_text, span):
        return "abstained: a word the claim writes twice is in the cited text once"
    if _object_in_relative(claim_tokens, claim_text, units, span, text, splitters):
        return "abstained: what the claim says after its verb belongs to another verb in the text"
    if _verb_as_modifier(claim_tokens, claim_text, span, text):
        return "abstained: the claim's verb is only a noun's modifier in the cited text"
    if _tense_differs(claim_tokens, claim_text, span, text):
        return "abstained: the claim and the cited text put it in different tenses"
    return ""


def _repeated_once(
    claim_tokens: Sequence[Token], claim_text: str, span: Sequence[tuple[int, Token]]
) -> bool:
    """Whether a content word the claim writes on both sides of its verb, in one clause
    ("Light is evoked by light"), is in ``span`` fewer times than the claim writes it."""
    verbs = predicates(claim_tokens, claim_text)
    if not verbs:
        return False
    first = verbs[0]
    sent = claim_tokens[first].sent
    before = {t.key for t in claim_tokens[:first] if t.kind == "w" and t.sent == sent}
    after = set()
    for tok in claim_tokens[first + 1 :]:
        if tok.kind == "b" or tok.sent != sent:
            break  # another clause may name the thing again
        if tok.kind == "w":
            after.add(tok.key)
    twice = before & after
    if not twice:
        return False
    found: dict[str, int] = {}
    for _, tok in span:
        if tok.key in twice and tok.kind == "w":
            found[tok.key] = found.get(tok.key, 0) + 1
    return any(found.get(key, 0) < 2 for key in twice)


_RELATIVE = frozenset({"which", "who", "whom", "whose"})


def _clause_ends(tok: Token, splitters: frozenset[str]) -> bool:
    return tok.kind == "b" or tok.key in splitters


def _claim_verb(claim_tokens: Sequence[Token], claim_text: str) -> int | None:
    """The index of the claim's first content verb ("joined"), or None."""
    return next(
        (k for k in predicates(claim_tokens, claim_text) if claim_tokens[k].kind == "w"), None
    )


def _relative_parts(
    plain: Sequence[Token], text: str, units: frozenset[str], splitters: frozenset[str]
) -> list[bool]:
    """Per token, whether it lies in a relative clause ("which aired on ...") whose content
    verb is not one of ``units``, up to the end of that clause."""
    verbs = set(predicates(plain, text))
    inside = [False] * len(plain)
    k = 0
    while k < len(plain):
        tok = plain[k]
        if tok.kind == "s" and text[tok.start : tok.end].casefold() in _RELATIVE:
            verb = next(
                (
                    j
                    for j in range(k + 1, min(len(plain), k + 4))
                    if j in verbs and plain[j].kind == "w" and plain[j].sent == tok.sent
                ),
                None,
            )
            if verb is not None and plain[verb].key not in units:
                j = k
                while (
                    j < len(plain)
                    and plain[j].sent == tok.sent
                    and not (j > k and _clause_ends(plain[j], splitters))
                ):
                    inside[j] = True
                    j += 1
                k = j
                continue
        k += 1
    return inside


def _object_in_relative(
    claim_tokens: Sequence[Token],
    claim_text: str,
    units: frozenset[str],
    tokens: Sequence[tuple[int, Token]],
    text: str,
    splitters: frozenset[str],
) -> bool:
    """Whether a word after the claim's verb is in ``tokens`` only inside a relative clause
    ("which aired on ...") whose verb the claim does not have, while the claim's verb is
    found outside it. A claim with a relative clause of its own is left alone."""
    if not tokens or any(
        t.kind == "s" and claim_text[t.start : t.end].casefold() in _RELATIVE for t in claim_tokens
    ):
        return False
    at = _claim_verb(claim_tokens, claim_text)
    if at is None:
        return False
    verb = claim_tokens[at].key
    objects = {t.key for t in claim_tokens[at + 1 :] if t.kind == "w"} - {verb}
    plain = [tok for _, tok in tokens]
    inside = _relative_parts(plain, text, units, splitters)
    if not any(tok.key == verb and not inside[j] for j, tok in enumerate(plain)):
        return False
    for key in objects:
        where = [inside[j] for j, tok in enumerate(plain) if tok.key == key and tok.kind == "w"]
        if where and all(where):
            return True
    return False


_PRO_VERB = re.compile(r"\b(?:do|does|did|doing|done)\s+(?:that|this|it|so)\b", re.IGNORECASE)


def pro_verb(claim: str) -> bool:
    """Whether the claim stands an action in for "do that", "did so", "does it"."""
    return _PRO_VERB.search(claim) is not None


def _verb_as_modifier(
    claim_tokens: Sequence[Token],
    claim_text: str,
    tokens: Sequence[tuple[int, Token]],
    text: str,
) -> bool:
    """Whether the claim's inflected verb ("colored") is in ``tokens`` only in its bare form
    right before another content word ("color printing"), a noun's modifier."""
    for k in predicates(claim_tokens, claim_text):
        tok = claim_tokens[k]
        raw = claim_text[tok.start : tok.end].casefold()
        if tok.kind != "w" or not raw.endswith(("ed", "en")) or raw == tok.key:
            continue
        seen = [j for j, (_, t) in enumerate(tokens) if t.key == tok.key and t.kind == "w"]
        if not seen:
            continue
        if all(
            text[tokens[j][1].start : tokens[j][1].end].casefold() == tok.key
            and j + 1 < len(tokens)
            and tokens[j + 1][1].kind == "w"
            and tokens[j + 1][1].sent == tokens[j][1].sent
            for j in seen
        ):
            return True
    return False


_PAST = frozenset({"was", "were"})
_PRESENT = frozenset({"is", "are", "am"})
_ARTICLES = frozenset({"a", "an", "the"})


def _tenses(tokens: Sequence[Token], text: str) -> dict[str, set[str]]:
    """The tenses ("past", "present") of "be" before each content word it leads to (past
    an article: "was an American actor")."""
    out: dict[str, set[str]] = {}
    for k, tok in enumerate(tokens):
        raw = text[tok.start : tok.end].casefold()
        if raw not in _PAST and raw not in _PRESENT:
            continue
        j = k + 1
        while j < len(tokens) and tokens[j].key in _ARTICLES:
            j += 1
        if j < len(tokens) and tokens[j].kind == "w" and tokens[j].sent == tok.sent:
            out.setdefault(tokens[j].key, set()).add("past" if raw in _PAST else "present")
    return out


def _tense_differs(
    claim_tokens: Sequence[Token], claim_text: str, span: Sequence[tuple[int, Token]], text: str
) -> bool:
    """Whether a word the claim puts after "was" or "were" is in ``span`` only after "is",
    "are" or "am", or the reverse."""
    claimed = _tenses(claim_tokens, claim_text)
    found = _tenses([t for _, t in span], text)
    for key, tenses in claimed.items():
        if key in found and not (found[key] & tenses):
            return True
    return False
