"""Text preparation for the offline screen: tokens, lemmas, concepts, quantities, scopes.

One pass over the text's words (:mod:`sidecar.judge._screen_words`), in time linear in its
length: dictionary look-ups and a bounded look-ahead (at most five tokens) for phrases and
number runs. Each token keeps its character offsets in the original text, so an evidence
quote is always a verbatim slice of the passage as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_numbers import is_year, number_at
from sidecar.judge._screen_tokens import Quantity, Token, mark_scopes
from sidecar.judge._screen_words import SENTENCE_END as _SENTENCE_END
from sidecar.judge._screen_words import Word, phrase_at, read_words
from sidecar.judge._screen_words import unit as _unit

__all__ = ["Prepared", "Quantity", "Token", "prepare"]

_BREAK = frozenset(",:") | {"but"}


def _joined_sentences(text: str, dot: int) -> bool:
    """Whether the dot at ``dot`` ends a sentence run into the next without a space
    ("founded in 1987.Hot Rod is", as scraped text often joins them): a lower-case letter
    or digit before it, a capital and a lower-case letter after it."""
    return (
        (text[dot - 1].islower() or text[dot - 1].isdigit())
        and dot + 2 < len(text)
        and text[dot + 1].isupper()
        and text[dot + 2].islower()
    )


_MAX_SENTENCE_TOKENS = 160  # a longer run without a sentence end is cut into sentences
# measured with tracemalloc on encyclopedic and number-dense text (bench.screen_cost)
_BYTES_PER_CHAR = 2
_BYTES_PER_TOKEN = 460
_BYTES_PER_QUANTITY = 450


@dataclass(slots=True)
class Prepared:
    """A text prepared once: its tokens, sentence spans, content index and quantities."""

    text: str
    tokens: list[Token]
    sentences: list[tuple[int, int]]
    index: dict[str, list[int]] = field(default_factory=dict)
    quantities: list[Quantity] = field(default_factory=list)
    sentence_tokens: list[int] = field(default_factory=list)
    """Index of each sentence's first token (and one past the last token at the end)."""
    token_at: dict[int, int] = field(default_factory=dict)
    """Token index by start offset in the text."""
    sent_keys: list[frozenset[str]] = field(default_factory=list)
    """Content keys of each sentence."""
    sent_plain: list[frozenset[str]] = field(default_factory=list)
    """Content keys of each sentence that no negation reaches (compounds left out)."""
    key_sents: dict[str, list[int]] = field(default_factory=dict)
    """Sentences (ascending, each once) where each content key occurs."""
    sent_quantities: list[list[Quantity]] = field(default_factory=list)
    """Quantities of each sentence."""
    by_value: dict[tuple[str, float], list[Quantity]] = field(default_factory=dict)
    """Quantities by dimension and value."""

    def nbytes(self) -> int:
        """A close estimate of the memory this preparation holds (for the cache's bound)."""
        return (
            _BYTES_PER_CHAR * len(self.text)
            + _BYTES_PER_TOKEN * len(self.tokens)
            + _BYTES_PER_QUANTITY * len(self.quantities)
            + 4096
        )

    def tokens_of(self, first: int, last: int) -> list[tuple[int, Token]]:
        """(index, token) of sentences ``first`` to ``last``."""
        lo, hi = self.sentence_tokens[first], self.sentence_tokens[last + 1]
        return list(enumerate(self.tokens[lo:hi], start=lo))

    def units(self) -> set[str]:
        """Content keys of the whole text."""
        return set(self.index)


def prepare(text: str) -> Prepared:
    """Tokens, sentences, content index and quantities of ``text``."""
    words = read_words(text)
    plain = [w.word for w in words]
    tokens: list[Token] = []
    quantities: list[Quantity] = []
    sentences: list[tuple[int, int]] = []
    sent, sent_start = 0, None
    pending_currency = ""
    i = 0
    n = len(words)
    # equal sets of keys held once: number-dense text repeats a few (heads of quantities,
    # sentences of the same words), and fewer live objects mean fewer full collections
    shared: dict[frozenset[str], frozenset[str]] = {}

    def add(key: str, kind: str, start: int, end: int) -> None:
        nonlocal sent_start
        if sent_start is None:
            sent_start = start
        compound = (start > 1 and text[start - 1] == "-" and text[start - 2].isalnum()) or (
            end + 1 < len(text) and text[end] == "-" and text[end + 1].isalpha()
        )
        tokens.append(Token(key, kind, start, end, sent, compound=compound))

    sent_first = 0
    while i < n:
        w = words[i]
        if sent_start is not None and len(tokens) - sent_first >= _MAX_SENTENCE_TOKENS:
            sentences.append((sent_start, tokens[-1].end))
            sent += 1
            sent_start = None
        if sent_start is None:
            sent_first = len(tokens)
        if w.word in _SENTENCE_END:
            if (
                w.word == "."
                and 0 < w.start
                and w.end < len(text)
                and text[w.start - 1].isalnum()
                and text[w.end].isalnum()
                and not _joined_sentences(text, w.start)
            ):
                i += 1  # a dot inside a word (an address, a domain, a file name) ends nothing
                continue
            if sent_start is not None:
                sentences.append((sent_start, w.end))
                sent += 1
                sent_start = None
            i += 1
            continue
        if w.word in lx.CURRENCY_PREFIX and i + 1 < n and words[i + 1].word[0].isdigit():
            pending_currency = lx.CURRENCY_PREFIX[w.word]
            add(w.word, "q", w.start, w.end)
            i += 1
            continue
        number = number_at(plain, i)
        if number is not None:
            if sent_start is None:
                sent_start = w.start
            i = _take_quantity(words, i, number, pending_currency, tokens, quantities, sent, shared)
            pending_currency = ""
            continue
        pending_currency = ""
        phrase = phrase_at(words, i)
        if phrase is not None:
            length, keys = phrase
            end = words[i + length - 1].end
            for key in keys:
                add(key, _kind(key), w.start, end)
            i += length
            continue
        key = lx.CONCEPTS.get(w.lem, lx.CONCEPTS.get(w.word, w.lem))
        add(key, _kind(key, w.word), w.start, w.end)
        i += 1
    if sent_start is not None and tokens:
        sentences.append((sent_start, tokens[-1].end))
    tokens = mark_scopes(tokens)
    index: dict[str, list[int]] = {}
    first_of = [0] * (len(sentences) + 1)
    first_of[len(sentences)] = len(tokens)
    token_at: dict[int, int] = {}
    for pos in range(len(tokens) - 1, -1, -1):
        tok = tokens[pos]
        first_of[tok.sent] = pos
        token_at[tok.start] = pos
    sent_keys: list[set[str]] = [set() for _ in sentences]
    sent_plain: list[set[str]] = [set() for _ in sentences]
    key_sents: dict[str, list[int]] = {}
    for pos, tok in enumerate(tokens):
        if tok.kind == "w" and tok.sent < len(sent_keys):
            index.setdefault(tok.key, []).append(pos)
            sent_keys[tok.sent].add(tok.key)
            if not tok.neg and not tok.compound:
                sent_plain[tok.sent].add(tok.key)
            found = key_sents.setdefault(tok.key, [])
            if not found or found[-1] != tok.sent:
                found.append(tok.sent)
    quantities = _with_qualifiers(quantities, tokens)
    sent_quantities: list[list[Quantity]] = [[] for _ in sentences]
    by_value: dict[tuple[str, float], list[Quantity]] = {}
    for q in quantities:
        if q.sent < len(sentences):
            sent_quantities[q.sent].append(q)
        by_value.setdefault((q.dim, q.value), []).append(q)
    return Prepared(
        text,
        tokens,
        sentences,
        index,
        quantities,
        first_of,
        token_at,
        [_one(frozenset(k), shared) for k in sent_keys],
        [_one(frozenset(k), shared) for k in sent_plain],
        key_sents,
        sent_quantities,
        by_value,
    )


def _kind(key: str, word: str = "") -> str:
    if key in lx.NEGATIONS or key == "STALE_NEG":
        return "n"
    if key in lx.STALE:
        return "t"
    if key in lx.HEDGES or word in lx.HEDGES:
        return "h"
    if key in _BREAK or word in _BREAK:
        return "b"
    if key in lx.STOPWORDS or word in lx.STOPWORDS:
        return "s"
    return "w"


def _one(keys: frozenset[str], shared: dict[frozenset[str], frozenset[str]]) -> frozenset[str]:
    """``keys``, or the equal set already in ``shared``."""
    return shared.setdefault(keys, keys)


def _take_quantity(
    words: list[Word],
    i: int,
    number: tuple[float, int],
    currency: str,
    tokens: list[Token],
    quantities: list[Quantity],
    sent: int,
    shared: dict[frozenset[str], frozenset[str]],
) -> int:
    value, j = number
    start = words[i].start
    dim = ""
    if currency:
        dim = currency
        if (
            j < len(words)
            and words[j].word in lx.MONEY_MULTIPLIERS
            and words[j - 1].word not in lx.MULTIPLIERS
        ):
            value *= lx.MONEY_MULTIPLIERS[words[j].word]
            j += 1
    elif j < len(words):
        if words[j].word == "us" and j + 1 < len(words) and _unit(words[j + 1]) == ("usd", 1.0):
            j += 1  # "5 US dollars"
        unit = _unit(words[j])
        if (
            unit is None
            and words[j].word == "per"
            and j + 1 < len(words)
            and words[j + 1].word == "cent"
        ):
            unit, j = ("percent", 1.0), j + 1
        if unit is not None:
            dim, factor = unit
            value *= factor
            j += 1
    before = words[i - 1].word if i else ""
    after = words[j].word if j < len(words) else "."
    if not dim and value <= 31 and j == i + 1 and (before in lx.MONTHS or after in lx.MONTHS):
        dim = "day_of_month"
    elif (
        not dim
        and j == i + 1
        and is_year([w.word for w in words[max(0, i - 3) : i + 3]], min(i, 3), before, after)
    ):
        dim = "year"
    heads: list[str] = []
    k = j
    while k < len(words) and len(heads) < 2 and k < j + 3:
        if (
            words[k].word in _SENTENCE_END
            or words[k].word in _BREAK
            or words[k].word in lx.SPLITTERS
        ):
            break
        lem = lx.CONCEPTS.get(words[k].lem, words[k].lem)
        if _kind(lem, words[k].word) == "w" and not lem[0].isdigit():
            heads.append(lem)
        k += 1
    for w in words[i:j]:
        tokens.append(Token("#", "q", w.start, w.end, sent))
    quantities.append(
        Quantity(
            round(value, 9), dim, _one(frozenset(heads), shared), "", sent, start, words[j - 1].end
        )
    )
    return j


def _with_qualifiers(quantities: list[Quantity], tokens: list[Token]) -> list[Quantity]:
    """Attach the comparator or approximation word written just before each quantity."""
    if not quantities:
        return quantities
    starts = {tok.start: pos for pos, tok in enumerate(tokens) if tok.kind == "q"}
    out = []
    for q in quantities:
        pos = starts.get(q.start)
        qualifier = ""
        if pos is not None:
            back = pos - 1
            if back >= 0 and tokens[back].kind == "q" and tokens[back].key != "#":
                back -= 1  # currency sign
            if _part_of(tokens, back, q.sent):
                out.append(q._replace(qualifier="PART"))
                continue
            steps = 0
            while back >= 0 and steps < 2 and tokens[back].sent == q.sent:
                key = tokens[back].key
                if key in lx.QUALIFIERS:
                    qualifier = key
                    break
                if tokens[back].kind not in ("s", "h"):
                    break
                back -= 1
                steps += 1
        # quantities are made without a qualifier: a new one only for those that have one
        out.append(q._replace(qualifier=qualifier) if qualifier != q.qualifier else q)
    return out


def _part_of(tokens: list[Token], back: int, sent: int) -> bool:
    """A number written as the whole of which another is a part: "five of the six",
    "five out of six"."""
    keys: list[str] = []
    while back >= 0 and len(keys) < 4 and tokens[back].sent == sent:
        keys.append(tokens[back].key)
        if tokens[back].kind == "q":
            break
        back -= 1
    keys = [k for k in keys if k != "the"]
    return (
        len(keys) >= 2
        and keys[-1] == "#"
        and keys[0] == "of"
        and (len(keys) == 2 or (len(keys) == 3 and keys[1] == "out"))
    )
