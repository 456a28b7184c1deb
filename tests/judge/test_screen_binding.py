"""What the screen binds its words to: a question or a reported statement in the cited
text asserts nothing; a claim's unnamed referent is not bound to one of several things the
text names; C++, C#, F# and .NET are words of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sidecar.judge.screen import screen_claim

FIXTURES = Path(__file__).parents[1] / "fixtures" / "screen"


def pair(name: str, pair_id: str) -> dict[str, object]:
    for line in (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == pair_id:
            return row
    raise LookupError(pair_id)


@pytest.mark.parametrize(
    "claim,passage",
    [
        pytest.param(
            "The Pro plan includes phone support.",
            "Does the Pro plan include phone support? No, only email support.",
            id="question-answered-no",
        ),
        pytest.param(
            "The bridge opened in 1990.",
            "Is it true that the bridge opened in 1990?",
            id="question",
        ),
    ],
)
def test_a_question_in_the_text_asserts_nothing(claim: str, passage: str) -> None:
    found = screen_claim(claim, [passage])
    assert (found.verdict, found.reason) == (
        None,
        "abstained: the cited text asks a question, it does not assert",
    )


@pytest.mark.parametrize(
    "passage",
    [
        pytest.param("Critics falsely alleged that the bridge opened in 1990.", id="falsely"),
        pytest.param("A common myth is that the bridge opened in 1990.", id="myth"),
        pytest.param("The mayor claimed that the bridge opened in 1990.", id="claimed-that"),
    ],
)
def test_a_reported_statement_is_not_the_text_s_own(passage: str) -> None:
    found = screen_claim("The bridge opened in 1990.", [passage])
    assert found.verdict is None and "reports" in found.reason


def test_a_statement_the_text_makes_itself_stays_supported() -> None:
    found = screen_claim("The bridge opened in 1990.", ["The bridge opened in 1990."])
    assert found.verdict == "supported"


@pytest.mark.parametrize(
    "claim",
    [
        pytest.param("Alice writes C++ code at work.", id="c++"),
        pytest.param("Alice writes C# code at work.", id="c#"),
        pytest.param("Alice writes F# code at work.", id="f#"),
    ],
)
def test_a_language_name_is_a_word_of_its_own(claim: str) -> None:
    # "C++" is not "C": the claim's language is not in the text.
    found = screen_claim(claim, ["Alice writes C code at work every day."])
    assert found.verdict != "supported"


def test_the_same_language_name_is_found() -> None:
    found = screen_claim(
        "Alice writes C++ code at work.", ["Alice writes C++ code at work every day."]
    )
    assert found.verdict == "supported"
    found = screen_claim(
        "The service runs on .NET at work.", ["The service runs on .NET at work since 2019."]
    )
    assert found.verdict == "supported"


@pytest.mark.parametrize(
    "name,pair_id",
    [
        # BEGIN (Wizard of Wikipedia): "it" premiered ... where the passage names several
        # shows; people say not supported.
        pytest.param("public", "bw0425", id="begin-it"),
        # FRANK (a CNN/DM summary): "he" was inducted ... about another man; partial.
        pytest.param("broad", "fr0224", id="frank-he"),
    ],
)
def test_an_unnamed_referent_is_not_bound_to_one_of_several(name: str, pair_id: str) -> None:
    row = pair(name, pair_id)
    assert row["label"] != "supported" and row["split"] == "dev"
    found = screen_claim(str(row["claim"]), [str(p) for p in row["passages"]])  # type: ignore[attr-defined]
    assert found.verdict is None and "unnamed referent" in found.reason


def test_a_named_claim_is_bound_as_before() -> None:
    passage = "Bob Marley and Peter Tosh met in Kingston, where he founded the label in 1970."
    assert screen_claim("Bob Marley founded the label in 1970.", [passage]).verdict == "supported"
    # "he" may be Marley or Tosh: not bound.
    assert screen_claim("He founded the label in 1970.", [passage]).verdict is None
    # Where the matched sentence names one person only, "he" is read as that one.
    alone = "Bob Marley founded the label in 1970. Peter Tosh joined it later."
    assert screen_claim("He founded the label in 1970.", [alone]).verdict == "supported"
