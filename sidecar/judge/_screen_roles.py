"""Who does what: the order of a claim's two sides around a relation word or verb."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from functools import lru_cache

from lemminflect import getAllLemmas

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_text import Prepared, Token

__all__ = ["predicates", "roles", "states_something", "verb_like"]

_MAX_ANCHORS = 16  # occurrences of a word whose two sides are compared


@lru_cache(maxsize=16384)
def verb_like(key: str) -> bool:
    """A key that can be a verb: a relation, a concept or a lemma with a verb reading."""
    return key in lx.RELATIONS or key.isupper() or "VERB" in getAllLemmas(key)


_AUXILIARIES = frozenset(
    "be have do can will shall must would should may might could 's 're 've 'd".split()
)
_PRONOUN_SUBJECTS = frozenset("i you he she it we they there this".split())


def predicates(tokens: Sequence[Token], text: str) -> list[int]:
    """Indexes of ``tokens`` that make a statement of the words before them: a form of
    "be", "have", "do" or a modal, an inflected verb written in lower case ("joined",
    "lives"), or a lower-case word that can be a verb right after another word ("prices
    rise"); a capitalised word ("United", "Club") is taken for part of a name."""
    found = []
    for k, tok in enumerate(tokens):
        raw = text[tok.start : tok.end].casefold()
        if tok.key in _AUXILIARIES or raw in _AUXILIARIES:
            found.append(k)
        elif tok.kind == "w" and not tok.compound and text[tok.start : tok.start + 1].islower():
            verbs = getAllLemmas(raw).get("VERB", ())
            if not verbs:
                continue
            inflected = raw not in verbs and raw.endswith(("ed", "s", "en", "ing"))
            after_word = k > 0 and tokens[k - 1].kind == "w" and tokens[k - 1].sent == tok.sent
            if inflected or after_word:
                found.append(k)
    return found


def states_something(tokens: Sequence[Token], text: str) -> bool:
    """The claim has a predicate, or a pronoun subject, so it states something."""
    if predicates(tokens, text):
        return True
    return any(text[t.start : t.end].casefold() in _PRONOUN_SUBJECTS for t in tokens)


def _other_subject(units: frozenset[str], tokens: Sequence[Token], pos: int) -> bool:
    """A content word the claim does not have stands before ``pos`` in its clause."""
    k = pos - 1
    while k >= 0 and pos - k <= 40 and tokens[k].sent == tokens[pos].sent:
        tok = tokens[k]
        if tok.kind == "b" or tok.key in lx.SPLITTERS:
            break
        if tok.kind == "w" and tok.key not in units:
            return True
        k -= 1
    return False


def _passive(tokens: Sequence[Token], pos: int) -> bool:
    """A form of "be" just before the anchor and "by" a few tokens after it, same clause."""
    before = {tokens[k].key for k in range(max(0, pos - 2), pos)}
    if "be" not in before:
        return False
    for k in range(pos + 1, min(len(tokens), pos + 5)):
        if tokens[k].sent != tokens[pos].sent or tokens[k].kind == "b":
            return False
        if tokens[k].key == "by":
            return True
    return False


def roles(
    ctoks: Sequence[Token],
    units: frozenset[str],
    passage: Prepared,
    sents: range,
    *,
    anchor: str,
    opposite: bool,
) -> str:
    """The order of a claim clause's two sides around ``anchor`` in the cited sentences.

    'same', 'swapped' (both sides crossed), 'moved' (the claim's subject only after the
    anchor, another word before it), 'one_sided' (the claim has words on one side only) or
    'unknown'.

    With ``opposite`` the passage is searched for an antonym of ``anchor`` instead ("A is
    larger than B" against "B is smaller than A" keeps the meaning when the roles swap).
    """
    cpos = next((k for k, t in enumerate(ctoks) if t.key == anchor and not t.compound), None)
    if cpos is None:
        return "unknown"
    left = {t.key for t in ctoks[:cpos] if t.kind == "w"}
    right = {t.key for t in ctoks[cpos + 1 :] if t.kind == "w"}
    left, right = left - right, right - left
    if not left or not right:
        return "one_sided"
    claim_passive = _passive(ctoks, cpos)
    targets = lx.ANTONYMS.get(anchor, frozenset()) if opposite else frozenset({anchor})
    tokens = passage.tokens
    verdicts = set()
    lo_tok = passage.sentence_tokens[sents.start]
    hi_tok = passage.sentence_tokens[sents.stop]
    occurrences: list[int] = []
    for target in targets:
        found = passage.index.get(target, ())
        at = bisect_left(found, lo_tok)
        while at < len(found) and found[at] < hi_tok and len(occurrences) < _MAX_ANCHORS:
            occurrences.append(found[at])
            at += 1
    for pos in occurrences:
        if tokens[pos].compound:
            continue  # "Harvard-trained": an adjective, not a verb with two sides
        sent = tokens[pos].sent
        lo = pos
        while lo > 0 and tokens[lo - 1].sent == sent and pos - lo < 40:
            lo -= 1
        hi = pos
        while hi + 1 < len(tokens) and tokens[hi + 1].sent == sent and hi - pos < 40:
            hi += 1
        before = {t.key for t in tokens[lo:pos] if t.kind == "w"}
        after = {t.key for t in tokens[pos + 1 : hi + 1] if t.kind == "w"}
        l_before, l_after = bool(left & before - after), bool(left & after - before)
        r_before, r_after = bool(right & before - after), bool(right & after - before)
        flipped = claim_passive != _passive(tokens, pos)
        # a claimed left-hand unit after the anchor and a right-hand one before it: the
        # sides crossed, whatever context words stay put
        if l_after and r_before:
            verdicts.add("same" if flipped else "swapped")
        elif l_before and r_after:
            verdicts.add("swapped" if flipped else "same")
        elif l_after and not l_before and not flipped and _other_subject(units, tokens, pos):
            # "the buyer delivers" against "the seller delivers ... to the buyer"
            verdicts.add("moved")
    if "same" in verdicts:
        return "same"
    if "swapped" in verdicts:
        return "swapped"
    return "moved" if "moved" in verdicts else "unknown"
