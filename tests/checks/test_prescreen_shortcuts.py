from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from sidecar.checks import prescreen


def test_every_negation_word_holds_a_piece_the_shortcut_looks_for() -> None:
    for word in prescreen._NEGATION_WORDS:
        assert any(piece in word for piece in prescreen._NEGATION_PIECES), word


_WORDS = [
    *sorted(prescreen._NEGATION_WORDS),
    *"abnotex'., ;:!?()[]{}\"/\t\n\x1c",
    "NOT",
    "Never",
    "CAN'T",
    "renewal",
    "know",
    "exceed",
    "within",
    "nt",
    "n'",
    "No.",
    "(none)",
    "é",
    "\u2019",
]


@given(st.lists(st.sampled_from(_WORDS), max_size=30).map("".join))
def test_the_negation_pieces_shortcut_agrees_with_the_word_split(text: str) -> None:
    words = text.lower().translate(prescreen._PUNCTUATION).split()
    assert prescreen.has_negation(text) == (not prescreen._NEGATION_WORDS.isdisjoint(words))


_URL_PIECES = [*"/?&=_#%+:.aZ09 ", "%2F", "%C3%A9", "%ZZ", "é", "\ud800"]


@given(st.lists(st.sampled_from(_URL_PIECES), max_size=20).map("".join))
def test_an_ascii_url_reads_as_the_str_translate_reads_it(url: str) -> None:
    import urllib.parse

    from sidecar.checks._injection_decode import _URL_SPACES, url_text

    if "%" in url or "+" in url:
        expected = urllib.parse.unquote_plus(url, errors="replace").translate(_URL_SPACES)
    else:
        expected = url.translate(_URL_SPACES)
    assert url_text(url) == expected


_NUMERIC = st.lists(st.sampled_from([*"0123456789.,0 a", "\u0663", "1,000"]), max_size=12).map(
    "".join
)


@given(_NUMERIC, _NUMERIC, _NUMERIC, st.lists(_NUMERIC, max_size=2))
def test_a_claim_quoted_in_a_passage_is_flagged_as_the_passages_numbers_tell(
    claim_text: str, before: str, after: str, others: list[str]
) -> None:
    # The claim written inside a passage (the quote shortcut's case, when the characters
    # around it allow) against the numbers of the claim and of the passages.
    passages = [*others, f"{before}{claim_text}{after}"]
    available = set().union(*(prescreen.numbers_in(p) for p in passages))
    missing = not available.issuperset(prescreen.numbers_in(claim_text))
    facts = [prescreen.PassageFacts(p) for p in passages]
    flags = prescreen.prescreen_flags(claim_text, facts, negated=False)
    assert ("number_missing" in flags) == missing
