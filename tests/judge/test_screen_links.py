"""How the screen's words are linked in the cited text: a word the claim writes twice, an
object that belongs to a relative clause's verb, a verb found only as a noun's modifier,
another tense, and "do that" standing in for an action. The passages are public text
(Wikipedia via BEGIN and HaluEval QA, ``tests/fixtures/screen/PUBLIC.md``), all from the
dev split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.judge.screen import screen_claim

FIXTURES = Path(__file__).parents[1] / "fixtures" / "screen"


def _row(pair_id: str) -> dict[str, object]:
    for line in (FIXTURES / "public.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == pair_id:
            assert row["split"] == "dev"
            return row  # type: ignore[no-any-return]
    raise LookupError(pair_id)


def _passages(pair_id: str) -> list[str]:
    return [str(p) for p in _row(pair_id)["passages"]]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "pair_id,reason",
    [
        pytest.param(
            "bw0615",
            "abstained: a word the claim writes twice is in the cited text once",
            id="light-by-light",
        ),
        pytest.param(
            "hq0248m",
            "abstained: what the claim says after its verb belongs to another verb in the text",
            id="joined-what-aired",
        ),
        pytest.param(
            "bw0854",
            "abstained: the claim's verb is only a noun's modifier in the cited text",
            id="colored-color-printing",
        ),
        pytest.param(
            "bw1191",
            "abstained: the claim and the cited text put it in different tenses",
            id="was-held-is-held",
        ),
        pytest.param(
            "bw0408",
            "abstained: the claim stands in 'do that' for an action it does not state",
            id="do-that",
        ),
    ],
)
def test_public_pairs_people_reject_are_not_supported(pair_id: str, reason: str) -> None:
    # each was a wrong "supported": people said the text does not support the claim
    row = _row(pair_id)
    found = screen_claim(str(row["claim"]), _passages(pair_id))
    assert row["label"] == "unsupported"
    assert (found.verdict, found.reason) == (None, reason)


@pytest.mark.parametrize(
    "claim,pair_id,reason",
    [
        pytest.param(
            "The cardigan was named after the Charge of the Light Brigade.",
            "bw0534",  # "... a Major General who led the Charge of the Light Brigade"
            "abstained: what the claim says after its verb belongs to another verb in the text",
            id="named-after-what-he-led",
        ),
        pytest.param(
            "Charles Hutchison is an American film actor.",
            "hq0027m",  # "Charles Hutchison (1879 - 1949) was an American film actor"
            "abstained: the claim and the cited text put it in different tenses",
            id="is-for-was",
        ),
        pytest.param(
            "it is colored by a combination of yellow and blue.",
            "bw0854",
            "abstained: the claim's verb is only a noun's modifier in the cited text",
            id="colored-by",
        ),
        pytest.param(
            "they did so, and they have earned two platinum and five gold albums",
            "bw0408",
            "abstained: the claim stands in 'do that' for an action it does not state",
            id="did-so",
        ),
    ],
)
def test_each_class_on_other_public_text(claim: str, pair_id: str, reason: str) -> None:
    found = screen_claim(claim, _passages(pair_id))
    assert (found.verdict, found.reason) == (None, reason)


@pytest.mark.parametrize(
    "claim,pair_id",
    [
        pytest.param("It is evoked by light.", "bw0615", id="light-once"),
        pytest.param("Alamgir joined Meesha Shafi as a judge.", "hq0248m", id="joined-whom"),
        pytest.param("The cardigan was named after James Brudenell.", "bw0534", id="named-after"),
        pytest.param(
            "it is created by a combination of yellow and blue, or yellow and cyan.",
            "bw0854",
            id="created-by",
        ),
        pytest.param("it is held over memorial day weekend in late may.", "bw1191", id="is-held"),
        pytest.param("Charles Hutchison was an American film actor.", "hq0027m", id="was-an-actor"),
        pytest.param(
            "they have earned two platinum and five gold albums", "bw0408", id="no-do-that"
        ),
    ],
)
def test_the_same_words_linked_as_the_text_links_them_stay_supported(
    claim: str, pair_id: str
) -> None:
    assert screen_claim(claim, _passages(pair_id)).verdict == "supported"


def test_a_word_written_twice_and_found_twice_is_supported() -> None:
    found = screen_claim(
        "The island lies north of the main island.",
        ["The island lies north of the main island, across a narrow strait."],
    )
    assert found.verdict == "supported"


def test_a_claim_with_its_own_relative_clause_is_left_to_the_other_checks() -> None:
    passage = "Emerald is a mineral which is colored green by its chromium content."
    found = screen_claim("Emerald is a mineral which is colored green by chromium.", [passage])
    assert found.verdict == "supported"
