"""Reviewers label claims through the page in a real Chromium, with the keyboard only, and
`citewatch calibrate --from-review` reads exactly those labels back."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sidecar.cli import cli
from sidecar.quality.review_labels import pairs_from_review
from sidecar.review.store import ReviewStore
from tests.review._chromium import chromium
from tests.review._items import make_item
from tests.review._server import serve_page

pytestmark = pytest.mark.integration


@pytest.fixture
def browser() -> Iterator[object]:
    with chromium() as driver:
        yield driver


def _items() -> list:  # type: ignore[type-arg]
    """Five items in a known queue order (priority), each with the judge's side."""
    return [
        make_item(
            1,
            reasons=["disagreement"],
            verdict="supported",
            path={"screen": "supported", "llm": "partial", "agreed": False},
        ),
        make_item(
            2, reasons=["suspect"], verdict=None, not_judged="suspect", not_judged_detail="number"
        ),
        make_item(3, reasons=["audit"], verdict="supported"),
        make_item(4, reasons=["audit"], verdict="unsupported"),
        make_item(5, reasons=["audit"], verdict="partial"),
    ]


def test_keyboard_labels_reach_calibration_exactly(browser: object, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.support import expected_conditions as until
    from selenium.webdriver.support.wait import WebDriverWait

    assert isinstance(browser, WebDriver)
    path = tmp_path / "review.sqlite"
    items = _items()
    with ReviewStore(path) as store:
        store.add(items)
        order = [i.item_id for i in store.queue("ann")]
    # The suspect claim first, then the disagreement, then the audit slice.
    assert order[:2] == [items[1].item_id, items[0].item_id]
    assert sorted(order) == sorted(i.item_id for i in items)

    # What the reviewer presses on each item: failure-type digit (or none), a note (or
    # none), then the label key.
    by_item = {
        items[0].item_id: ("2", "only under 100 requests", "p"),
        items[1].item_id: (None, None, "u"),
        items[2].item_id: (None, None, "s"),
        items[3].item_id: ("1", None, "u"),
        items[4].item_id: (None, None, "k"),
    }
    presses = [by_item[item_id] for item_id in order]
    with ReviewStore(path) as store, serve_page(store) as url:
        wait = WebDriverWait(browser, 20)
        browser.get(f"{url}/")
        wait.until(until.presence_of_element_located((By.ID, "reviewer")))
        name = browser.find_element(By.ID, "reviewer")
        name.send_keys("ann", Keys.ENTER)
        wait.until(until.presence_of_element_located((By.ID, "start"))).click()
        for expected, (digit, note, key) in zip(order, presses, strict=True):
            wait.until(until.url_contains(f"/item/{expected}"))
            claim = wait.until(until.presence_of_element_located((By.ID, "claim")))
            assert claim.text == store.item(expected).claim_text  # type: ignore[union-attr]
            assert browser.find_element(By.ID, "quote").text.startswith("within")
            body = browser.find_element(By.TAG_NAME, "body")
            if digit is not None:
                body.send_keys(digit)
            if note is not None:
                body.send_keys("n")
                browser.switch_to.active_element.send_keys(note, Keys.ESCAPE)
                body = browser.find_element(By.TAG_NAME, "body")
            body.send_keys(key)
            wait.until(until.staleness_of(claim))
        wait.until(until.presence_of_element_located((By.ID, "done")))

        rows = store.labels()
    expected = {
        items[0].item_id: ("partial", "wrong_condition_or_scope", "only under 100 requests"),
        items[1].item_id: ("unsupported", None, None),
        items[2].item_id: ("supported", None, None),
        items[3].item_id: ("unsupported", "wrong_number_or_date", None),
        items[4].item_id: ("skip", None, None),
    }
    assert [(r.item_id, r.reviewer, r.label, r.failure_type, r.note) for r in rows] == [
        (item_id, "ann", *expected[item_id]) for item_id in order
    ]

    pairs = pairs_from_review(path)
    assert sorted((p.case_id, p.human, p.judge, p.failure_type) for p in pairs) == sorted(
        [
            (items[0].trace_id, "partial", "supported", "wrong_condition_or_scope"),
            (items[1].trace_id, "unsupported", None, None),
            (items[2].trace_id, "supported", "supported", None),
            (items[3].trace_id, "unsupported", "unsupported", "wrong_number_or_date"),
        ]
    )

    out = tmp_path / "calibration"
    result = CliRunner().invoke(
        cli, ["calibrate", "--from-review", str(path), "--output", str(out)]
    )
    assert result.exit_code == 0, result.output
    [report] = json.loads((out / "calibration.json").read_text())["series"]
    overall = report["overall"]
    assert (report["rubric_version"], report["judge_model"]) == ("r1", "judge-m")
    assert overall["n"] == 3
    assert overall["abstained"]["successes"] == 1 and overall["abstained"]["n"] == 4
    assert overall["confusion_matrix"]["counts"] == [
        [1, 0, 0],  # human unsupported: judge unsupported once
        [0, 0, 1],  # human partial: judge said supported
        [0, 0, 1],  # human supported: judge supported
    ]
