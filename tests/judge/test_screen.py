"""The offline screen: normalisations, conflict classes, abstentions and the labelled set."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sidecar.judge import _lexicon as lx
from sidecar.judge._screen_text import prepare
from sidecar.judge.screen import ScreenVerdict, find_support, prepare_passage, screen_claim

LABELLED = Path(__file__).parents[1] / "fixtures" / "screen" / "labelled.jsonl"


def _code(result: ScreenVerdict) -> str:
    return result.reason.split(":", 1)[0]


# -- the tutorial's worked example ---------------------------------------------------------


def test_worked_example_c1_twelve_months_is_supported() -> None:
    passage = "The warranty lasts twelve months from the date of purchase."
    result = screen_claim("The warranty lasts 12 months.", [passage])
    assert result == ScreenVerdict("supported", result.reason, passage)
    assert _code(result) == "found"


def test_worked_example_c2_paraphrased_condition_is_supported() -> None:
    passage = (
        "Customers may request a refund within 30 days if the account used fewer "
        "than 100 API requests."
    )
    result = screen_claim(
        "Refunds are available within 30 days when usage is below 100 requests.", [passage]
    )
    assert result.verdict in ("supported", None)
    assert result.verdict == "supported"
    assert result.evidence_quote == passage


# -- normalisations that must find support ---------------------------------------------------


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        pytest.param("The war lasted six years.", "The war lasted 6 years.", id="number-word"),
        pytest.param(
            "The emperor reigned for forty-one years.",
            "The emperor reigned for 41 years.",
            id="compound-number-word",
        ),
        pytest.param("The box holds a dozen eggs.", "The box holds 12 eggs.", id="dozen"),
        pytest.param(
            "The firm employs twelve thousand people.",
            "The firm employs 12,000 people.",
            id="thousands",
        ),
        pytest.param(
            "Net income was $1.2 billion.", "Net income was $1,200 million.", id="money-multiplier"
        ),
        pytest.param("The trail is 1.2 km long.", "The trail is 1,200 m long.", id="km-m"),
        pytest.param("The laptop weighs 1.4 kg.", "The laptop weighs 1,400 g.", id="kg-g"),
        pytest.param(
            "Each dose contains 0.5 g of the drug.",
            "Each dose contains 500 mg of the drug.",
            id="g-mg",
        ),
        pytest.param("Links expire after one day.", "Links expire after 24 hours.", id="day-hours"),
        pytest.param("The course lasts two weeks.", "The course lasts 14 days.", id="weeks-days"),
        pytest.param(
            "Infusions run over 30 minutes.", "Infusions run over 0.5 hours.", id="minutes-hours"
        ),
        pytest.param(
            "The account pays 4.1 percent interest.",
            "The account pays 4.1% interest.",
            id="percent",
        ),
        pytest.param("Prices rose 3 per cent.", "Prices rose 3%.", id="per-cent"),
        pytest.param("The fee is $5.", "The fee is 5 dollars.", id="usd"),
        pytest.param("The fee is 5 US dollars.", "The fee is USD 5.", id="us-dollars"),
        pytest.param("The annual fee is €120.", "The annual fee is 120 euros.", id="eur"),
        pytest.param("The jug holds 1,500 ml.", "The jug holds 1.5 L.", id="ml-l"),
        pytest.param("The drive holds 2 TB.", "The drive holds 2,000 GB.", id="tb-gb"),
        pytest.param(
            "Refund requests were approved.", "The refund request was approved.", id="inflection"
        ),
        pytest.param(
            "Acme acquired Beta in 2019.", "Beta was acquired by Acme in 2019.", id="passive"
        ),
        pytest.param("Acme bought Beta in 2019.", "In 2019 Acme acquired Beta.", id="buy-acquire"),
        pytest.param(
            "The plan costs $20 per month.", "The plan costs $20 a month.", id="per-month"
        ),
        pytest.param("Interest is paid annually.", "Interest is paid every year.", id="annually"),
        pytest.param(
            "Orders below $50 pay shipping.", "Orders under $50 pay shipping.", id="below-under"
        ),
        pytest.param(
            "Accounts with fewer than 100 requests qualify.",
            "Accounts with less than 100 requests qualify.",
            id="fewer-less-than",
        ),
        pytest.param(
            "Take no more than 8 tablets a day.",
            "Do not take more than 8 tablets a day.",
            id="negated-comparator",
        ),
        pytest.param(
            "Refunds are available within 30 days.",
            "Customers can request a refund within 30 days.",
            id="refund-phrase",
        ),
        pytest.param(
            "The cathedral was begun in 1163 and completed in 1345.",
            "Construction of the cathedral began in 1163. It was completed in 1345.",
            id="two-sentences",
        ),
    ],
)
def test_normalisation_finds_support(claim: str, passage: str) -> None:
    result = screen_claim(claim, [passage])
    assert (result.verdict, _code(result)) == ("supported", "found")
    assert result.evidence_quote and result.evidence_quote in passage


_GROUPS = [(c, words) for c, words in lx._GROUPS.items() if len(words) > 1]


@pytest.mark.parametrize(("concept", "words"), _GROUPS, ids=[c for c, _ in _GROUPS])
def test_each_curated_equivalence_matches_its_group(concept: str, words: tuple[str, ...]) -> None:
    for other in words[1:]:
        result = screen_claim(f"Alpha is {words[0]} beta gamma.", [f"Alpha is {other} beta gamma."])
        assert result.verdict == "supported", (concept, words[0], other)


_PAIRS = sorted(
    {
        tuple(sorted((a, b)))
        for a, bs in lx.ANTONYMS.items()
        for b in bs
        if a in lx._GROUPS and b in lx._GROUPS
    }
)


@pytest.mark.parametrize(("a", "b"), _PAIRS, ids=[f"{a}-{b}" for a, b in _PAIRS])
def test_each_curated_antonym_pair_conflicts(a: str, b: str) -> None:
    first, second = lx._GROUPS[a][0], lx._GROUPS[b][0]
    result = screen_claim(f"Alpha is {first} beta gamma.", [f"Alpha is {second} beta gamma."])
    assert (result.verdict, _code(result)) == ("unsupported", "conflict_antonym"), (first, second)


# -- conflicts: unsupported, with the class in the reason ---------------------------------


@pytest.mark.parametrize(
    ("claim", "passage", "code"),
    [
        pytest.param(
            "Recovery takes six weeks.",
            "Recovery takes eight weeks.",
            "conflict_number",
            id="number-words",
        ),
        pytest.param(
            "Each dose contains 5 g of the drug.",
            "Each dose contains 500 mg of the drug.",
            "conflict_number",
            id="converted-but-different",
        ),
        pytest.param(
            "The cable is 20 metres long.",
            "The cable is 200 cm long.",
            "conflict_number",
            id="cm-m-different",
        ),
        pytest.param("The fee is €120.", "The fee is £120.", "conflict_number", id="currency"),
        pytest.param(
            "The museum opened in 2003.", "The museum opened in 2001.", "conflict_date", id="year"
        ),
        pytest.param(
            "The museum opened in March 2001.",
            "The museum opened in April 2001.",
            "conflict_date",
            id="month",
        ),
        pytest.param(
            "The ship sank in May 1912.",
            "The ship sank in April 1912.",
            "conflict_date",
            id="may-the-month",
        ),
        pytest.param(
            "Refunds are available for annual plans.",
            "Refunds are not available for annual plans.",
            "conflict_negation",
            id="negation",
        ),
        pytest.param(
            "Deleted workspaces cannot be restored.",
            "Deleted workspaces can be restored.",
            "conflict_negation",
            id="negation-reverse",
        ),
        pytest.param(
            "Refunds are available after 30 days.",
            "Refunds are no longer available after 30 days.",
            "conflict_negation",
            id="no-longer",
        ),
        pytest.param(
            "Late submissions are accepted.",
            "Late submissions are not accepted under any circumstances.",
            "conflict_negation",
            id="negation-before-a-comparator-word",
        ),
        pytest.param(
            "Sales increased in 2023.",
            "Sales decreased in 2023.",
            "conflict_antonym",
            id="direction",
        ),
        pytest.param(
            "Revenue rose 8% last year.",
            "Revenue fell 8% last year.",
            "conflict_antonym",
            id="rise-fall",
        ),
        pytest.param(
            "Free shipping applies to orders under $50.",
            "Free shipping applies to orders over $50.",
            "conflict_antonym",
            id="condition",
        ),
        pytest.param(
            "Acme acquired Beta in 2019.",
            "Beta acquired Acme in 2019.",
            "conflict_role",
            id="role-swap",
        ),
        pytest.param(
            "Beta was acquired by Acme.",
            "Beta acquired Acme.",
            "conflict_role",
            id="role-swap-passive",
        ),
        pytest.param(
            "Italy beat Spain 2-1 in the final.",
            "Spain beat Italy 2-1 in the final.",
            "conflict_role",
            id="role-swap-with-context",
        ),
    ],
)
def test_conflict_is_unsupported(claim: str, passage: str, code: str) -> None:
    result = screen_claim(claim, [passage])
    assert (result.verdict, _code(result), result.evidence_quote) == ("unsupported", code, "")


# -- hard negatives: neither supported nor a false conflict -----------------------------------


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        pytest.param(
            "The drug eliminates migraines.",
            "The drug may reduce migraines.",
            id="hedge-weaker-verb",
        ),
        pytest.param("The drug reduces migraines.", "The drug may reduce migraines.", id="hedge"),
        pytest.param(
            "Children under 2 fly free.",
            "Children under 2 used to fly free. Infants now pay 10% of the fare.",
            id="stale-used-to",
        ),
        pytest.param(
            "Refunds are available within 60 days.",
            "Until March 2024, refunds were available within 60 days.",
            id="stale-until",
        ),
        pytest.param(
            "The Pro plan includes SSO.", "The Pro plan costs $20 a month.", id="same-topic"
        ),
        pytest.param(
            "The battery lasts 18 hours.",
            "The battery lasts up to 18 hours.",
            id="qualified-number",
        ),
        pytest.param(
            "Interest is paid annually.",
            "Interest of 4% per year is paid monthly.",
            id="opposite-also-present",
        ),
        pytest.param(
            "The Pro model has 1 TB of storage.",
            "The base model has 256 GB; the Pro model has 512 GB and the Max 1 TB.",
            id="nearer-rival-number",
        ),
        pytest.param(
            "The buyer must deliver the goods.",
            "The seller shall deliver the goods to the buyer.",
            id="subject-after-verb",
        ),
        pytest.param(
            "The probation period is six months.",
            "Probation lasts 26 weeks.",
            id="months-vs-weeks-close",
        ),
    ],
)
def test_not_supported(claim: str, passage: str) -> None:
    assert screen_claim(claim, [passage]).verdict != "supported"


@pytest.mark.parametrize(
    ("claim", "passage"),
    [
        pytest.param(
            "The probation period is six months.",
            "The probation period is 26 weeks.",
            id="months-vs-weeks-close",
        ),
        pytest.param(
            "The Reformation began after the printing press was invented.",
            "The printing press was invented before the Reformation began.",
            id="opposite-relation-swapped-roles",
        ),
        pytest.param(
            "Refunds are available within 30 days.",
            "Refunds are available within 30 days, excluding shipping costs.",
            id="negation-on-other-words",
        ),
        pytest.param(
            "Refunds are available within 14 days.",
            "Refunds are available no later than 14 days after the order.",
            id="within-and-after",
        ),
        pytest.param(
            "Card payments abroad carry a 2.75% fee.",
            "Card payments abroad carry a 2.75% non-sterling transaction fee.",
            id="non-prefix-negates-one-word",
        ),
    ],
)
def test_no_false_conflict(claim: str, passage: str) -> None:
    assert screen_claim(claim, [passage]).verdict != "unsupported"


def test_compound_claim_with_one_half_absent_is_partial() -> None:
    passage = "Refunds are available within 30 days."
    result = screen_claim(
        "Refunds are available within 30 days and exchanges within 60 days.", [passage]
    )
    assert result == ScreenVerdict("partial", result.reason, passage)


def test_compound_claim_with_one_half_contradicted_is_unsupported() -> None:
    result = screen_claim(
        "Refunds are available within 30 days and exchanges within 60 days.",
        ["Refunds are available within 30 days. Exchanges are accepted within 90 days."],
    )
    assert (result.verdict, _code(result)) == ("unsupported", "conflict_number")


def test_halves_may_come_from_two_cited_passages() -> None:
    result = screen_claim(
        "The loan is 10 years long and has a fixed rate of 5.2%.",
        ["The loan is 10 years long.", "It has a fixed rate of 5.2%."],
    )
    assert result.verdict == "supported"


@pytest.mark.parametrize("passages", [[], [""], ["   "]], ids=["none", "empty", "blank"])
def test_abstains_without_passage_text(passages: list[str]) -> None:
    assert screen_claim("The fee is $5.", passages) == ScreenVerdict(
        None, "abstained: no cited passage text"
    )


def test_abstains_on_a_claim_with_too_little_content() -> None:
    assert screen_claim("Yes.", ["Yes, it is."]).verdict is None


def test_prepared_passages_give_the_same_verdicts() -> None:
    text = "Verified students receive 50 percent off the Pro plan for 12 months."
    claim = "Students get 50% off the Pro plan."
    assert screen_claim(claim, [prepare_passage(text)]) == screen_claim(claim, [text])


def test_find_support_names_the_first_supporting_other_source() -> None:
    sources = [
        ("S1", "The Pro plan costs $20 a month."),
        ("S2", "Verified students receive 50% off the Pro plan for 12 months."),
        ("S3", "Students get 50% off the Pro plan."),
    ]
    assert find_support("Students get 50% off the Pro plan.", sources) == "S2"
    assert find_support("Students get 70% off the Pro plan.", sources) is None


# -- the labelled set ----------------------------------------------------------------------


def _labelled() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def judged() -> list[tuple[dict[str, Any], ScreenVerdict]]:
    return [(pair, screen_claim(pair["claim"], pair["passages"])) for pair in _labelled()]


def test_labelled_set_shape() -> None:
    pairs = _labelled()
    assert len(pairs) >= 300
    assert sum(p["origin"] == "hand" for p in pairs) * 2 >= len(pairs)
    traps = Counter(p["trap"] for p in pairs)
    for trap in (
        "other_number",
        "other_date",
        "condition",
        "direction",
        "negation",
        "antonym",
        "role_swap",
        "hedge",
        "stale_policy",
        "compound_half",
        "same_topic",
        "paraphrase",
        "unit_conversion",
        "two_sentences",
    ):
        assert traps[trap] >= 3, trap
    assert {p["split"] for p in pairs} == {"dev", "test"}
    assert all(p["label"] in ("supported", "partial", "unsupported") for p in pairs)


def test_quotes_are_verbatim_and_reasons_carry_no_trace_text(
    judged: list[tuple[dict[str, Any], ScreenVerdict]],
) -> None:
    reasons = set()
    for pair, result in judged:
        if result.verdict in ("supported", "partial"):
            assert any(result.evidence_quote in p for p in pair["passages"]), pair["id"]
            assert result.evidence_quote
        else:
            assert result.evidence_quote == ""
        reasons.add(result.reason)
        words = str(pair["claim"]).split()
        for k in range(len(words) - 3):
            assert " ".join(words[k : k + 4]) not in result.reason, pair["id"]
    codes = {r.split(":", 1)[0] for r in reasons}
    assert codes <= {
        "found",
        "partial",
        "abstained",
        "conflict_number",
        "conflict_date",
        "conflict_negation",
        "conflict_antonym",
        "conflict_role",
    }
    # a fixed vocabulary of explanations: nothing is copied from a claim or a passage
    assert len(reasons) <= 36  # 30, and the binding classes' six reasons


# Floors, from bench/screen.py on the labelled set (figures in docs/screen.md):
#   dev  (478 pairs; the rules were developed on them): unsupported->supported 0, precision
#        supported 1.00 (128/128), partial 1.00 (17/17), unsupported 1.00 (165/165),
#        abstained 35.1%.
#   Held-out batches, each measured once on text written after the last rule change:
#     batch 1 (82): u->s 1, precision supported 0.944 (17/18), unsupported 0.968 (30/31);
#     batch 2 (51): u->s 1, supported 0.933 (14/15), unsupported 1.00 (17/17);
#     batch 3 (41): u->s 0, supported 1.00 (7/7), unsupported 0.929 (13/14);
#     batch 4 (41, the test split): u->s 0, supported 1.00 (12/12), unsupported 1.00
#       (15/15), abstained 29.3%.
#   Batches 1-3 each exposed a rule error that was then fixed, and joined dev. Pooled over
#   the four first measurements: supported 0.962 (50/52), unsupported 0.974 (75/77). So the
#   supported floor of 0.97 holds on dev and on the test split, not on every fresh batch.
# The abstention ceilings sit about ten points above the measured rates: a screen that
# answered nothing would pass every precision floor, so coverage is held too.
_FLOORS = {
    "dev": {"u2s": 0, "supported": 0.97, "unsupported": 0.97, "abstain": 0.45},
    "test": {"u2s": 0, "supported": 0.97, "unsupported": 0.97, "abstain": 0.40},
}


@pytest.mark.parametrize("split", ["dev", "test"])
def test_labelled_floors(judged: list[tuple[dict[str, Any], ScreenVerdict]], split: str) -> None:
    rows = [(p["label"], r.verdict) for p, r in judged if p["split"] == split]
    floors = _FLOORS[split]
    u2s = sum(1 for human, screen in rows if human == "unsupported" and screen == "supported")
    assert u2s <= floors["u2s"]
    for label in ("supported", "unsupported"):
        given = [human for human, screen in rows if screen == label]
        assert given and sum(h == label for h in given) / len(given) >= floors[label], label
    abstained = sum(1 for _, screen in rows if screen is None) / len(rows)
    assert abstained <= floors["abstain"]


# -- robustness ----------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(claim=st.text(max_size=300), passages=st.lists(st.text(max_size=600), max_size=3))
def test_never_raises_and_quotes_are_verbatim(claim: str, passages: list[str]) -> None:
    result = screen_claim(claim, passages)
    assert result.verdict in ("supported", "partial", "unsupported", None)
    if result.verdict in ("supported", "partial"):
        assert any(result.evidence_quote in p for p in passages)


_WORDS = st.sampled_from(
    "the not no may fee refund 30 days twelve 1,200 m km $ € % , ; . and when over under "
    "acquired by was increased decreased until previously a dozen hundred".split()
)


@settings(max_examples=300, deadline=None)
@given(
    claim=st.lists(_WORDS, max_size=40).map(" ".join),
    passage=st.lists(_WORDS, max_size=120).map(" ".join),
)
def test_never_raises_on_dense_vocabulary(claim: str, passage: str) -> None:
    result = screen_claim(claim, [passage])
    if result.verdict in ("supported", "partial"):
        assert result.evidence_quote in passage


@pytest.mark.parametrize(
    "hostile",
    [
        "1," * 50_000 + "x",
        "a'" * 50_000 + "!",
        "not " * 20_000,
        "twenty " * 20_000,
        ("The fee is $5 and " * 5_000) + ".",
    ],
    ids=["separators", "apostrophes", "negations", "number-words", "one-long-sentence"],
)
def test_hostile_passages_finish(hostile: str) -> None:
    result = screen_claim("The fee is $5 and not twenty.", [hostile])
    assert result.verdict in ("supported", "partial", "unsupported", None)


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        pytest.param("fewer than 100 users", ["LT", "user"], id="fewer-than"),
        pytest.param("less than 100 users", ["LT", "user"], id="less-than"),
        pytest.param("lower than 100 users", ["LT", "user"], id="lower-than"),
        pytest.param("more than 100 users", ["GT", "user"], id="more-than"),
        pytest.param("greater than 100 users", ["GT", "user"], id="greater-than"),
        pytest.param("in excess of 100 users", ["GT", "user"], id="in-excess-of"),
        pytest.param("at least 100 users", ["GE", "user"], id="at-least"),
        pytest.param("no fewer than 100 users", ["GE", "user"], id="no-fewer-than"),
        pytest.param("100 users or more", ["user", "GE"], id="or-more"),
        pytest.param("at most 100 users", ["LE", "user"], id="at-most"),
        pytest.param("up to 100 users", ["LE", "user"], id="up-to"),
        pytest.param("no more than 100 users", ["LE", "user"], id="no-more-than"),
        pytest.param("a maximum of 100 users", ["LE", "user"], id="a-maximum-of"),
        pytest.param("prior to renewal", ["BEFORE", "renewal"], id="prior-to"),
        pytest.param("returns are free of charge", ["return", "FREE"], id="free-of-charge"),
        pytest.param("returns at no cost", ["return", "FREE"], id="at-no-cost"),
        pytest.param("billed per month", ["bill", "MONTH_UNIT"], id="per-month"),
        pytest.param("billed each year", ["bill", "YEAR_UNIT"], id="each-year"),
        pytest.param(
            "customers may request a refund",
            ["CUSTOMER", "refund", "AVAILABLE"],
            id="may-request-a-refund",
        ),
        pytest.param(
            "users are eligible for a refund",
            ["user", "refund", "AVAILABLE"],
            id="eligible-for-a-refund",
        ),
        pytest.param("refunds are no longer offered", ["refund", "offer"], id="no-longer"),
    ],
)
def test_each_curated_phrase_becomes_its_concepts(text: str, keys: list[str]) -> None:
    assert [t.key for t in prepare(text).tokens if t.kind == "w"] == keys
