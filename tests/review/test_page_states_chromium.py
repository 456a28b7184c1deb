"""Each state of the reviewers' page in a real Chromium, with a screenshot of each (written
under $CITEWATCH_SCREENSHOTS when set, else the test's temporary directory): the reviewer's
latest labels with their claims, filtered and paged; badges explained on hover and in a
legend; truthful notes for passages without text; adjudication as an adjudicator sees it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from sidecar.config.review import ReviewSettings
from sidecar.review._pages import BADGES, PAGE_SIZE
from sidecar.review.access import access_from_settings, hash_token
from sidecar.review.store import ReviewStore
from tests.review._chromium import chromium
from tests.review._items import make_item
from tests.review._server import serve_page

pytestmark = pytest.mark.integration

TOKENS = {"ann": "Ann-7vT3kLw9xRb2mNc7dYf4h", "bob": "Bob-Pp4mQ7rTz2wXc9vBn5kL"}
CAT = "Cat-Hh6gD2sAq8wEr5tYu3iO"
LABELLED = PAGE_SIZE + 5


def _shot(driver: Any, folder: Path, name: str) -> None:
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    assert path.stat().st_size > 5_000, name  # a rendered page, not a blank one


def _sign_in(driver: Any, url: str, name: str, token: str) -> None:
    """Submit the sign-in form and wait for the page it leads to."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as until
    from selenium.webdriver.support.wait import WebDriverWait

    driver.get(f"{url}/login")
    driver.find_element(By.ID, "reviewer").send_keys(name)
    driver.find_element(By.ID, "token").send_keys(token)
    form = driver.find_element(By.TAG_NAME, "form")
    driver.find_element(By.ID, "sign-in").click()
    wait = WebDriverWait(driver, 20)
    wait.until(until.staleness_of(form))
    wait.until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_every_page_state(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as until
    from selenium.webdriver.support.wait import WebDriverWait

    folder = Path(os.environ.get("CITEWATCH_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    access = access_from_settings(
        ReviewSettings(
            reviewer_tokens={
                **{n: hash_token(t) for n, t in TOKENS.items()},
                "cat": hash_token(CAT),
            },
            adjudicators=["cat"],
            reviewers_per_item=2,
        )
    )
    reasons = list(BADGES)
    items = [make_item(n, reasons=[reasons[n % len(reasons)]]) for n in range(1, LABELLED + 1)]
    bare = make_item(
        100, reasons=["unverified"], question="", passages=[{"source_id": "S4", "text": ""}]
    )
    withheld = make_item(
        101, reasons=["suspect"], passages=[{"source_id": "S2", "title": "Fees", "text": ""}]
    )
    with ReviewStore(tmp_path / "review.sqlite", reviewers=2) as store:
        store.add([*items, bare, withheld])
        for n, item in enumerate(items):
            label = "skip" if n % 5 == 0 else "supported"
            for name in ("ann", "bob"):
                given = "unsupported" if (name, n) == ("bob", 1) else label
                token = store.issue_form(item.item_id, name)
                store.add_label(item_id=item.item_id, reviewer=name, label=given, form_token=token)
        with serve_page(store, access=access) as url, chromium() as driver:
            driver.get(f"{url}/login")
            _shot(driver, folder, "01-sign-in")
            _sign_in(driver, url, "ann", TOKENS["bob"])
            assert "wrong name or token" in driver.find_element(By.TAG_NAME, "main").text
            _shot(driver, folder, "02-sign-in-refused")

            _sign_in(driver, url, "ann", TOKENS["ann"])
            rows = driver.find_elements(By.CSS_SELECTOR, "#my-labels tbody tr")
            assert len(rows) == PAGE_SIZE
            newest = items[-1]
            assert newest.claim_text in rows[0].text  # newest first, with its claim
            assert (
                f"{LABELLED} label(s) · page 1 of 2"
                in driver.find_element(By.CSS_SELECTOR, "nav.pages").text
            )
            legend = driver.find_element(By.ID, "legend").text
            for reason, meaning in BADGES.items():
                assert reason in legend and meaning in legend
            badge = driver.find_element(By.CSS_SELECTOR, "td .badge")
            assert badge.get_attribute("title") == BADGES[badge.text]
            _shot(driver, folder, "03-queue")
            older = driver.find_element(By.ID, "older")
            older.click()
            WebDriverWait(driver, 20).until(until.staleness_of(older))
            # The legend comes after the table: once it is there, every row is.
            WebDriverWait(driver, 20).until(until.presence_of_element_located((By.ID, "legend")))
            assert len(driver.find_elements(By.CSS_SELECTOR, "#my-labels tbody tr")) == 5
            _shot(driver, folder, "04-my-labels-page-2")
            driver.get(f"{url}/?label=skip")
            skipped = driver.find_elements(By.CSS_SELECTOR, "#my-labels tbody tr")
            assert len(skipped) == len(range(0, LABELLED, 5))
            assert all("skip" in row.text for row in skipped)
            _shot(driver, folder, "05-my-labels-skips")

            driver.get(f"{url}/item/{bare.item_id}")
            note = driver.find_element(By.CSS_SELECTOR, ".source-note").text
            assert "imported from evaluation records without their traces" in note
            _shot(driver, folder, "06-item-without-trace")
            driver.get(f"{url}/item/{withheld.item_id}")
            note = driver.find_element(By.CSS_SELECTOR, ".source-note").text
            assert note.startswith("The trace carried no text for this source")
            _shot(driver, folder, "07-item-text-withheld")
            driver.get(f"{url}/item/{items[0].item_id}")
            assert driver.find_element(By.ID, "quote").text == "within 1 days"
            _shot(driver, folder, "08-item")
            driver.get(f"{url}/item/{items[1].item_id}?adjudicate=1")
            assert "Error 403" in driver.find_element(By.ID, "error").text
            _shot(driver, folder, "09-adjudication-refused")
            driver.get(f"{url}/disagreements")
            _shot(driver, folder, "10-disagreements-as-reviewer")
            driver.find_element(By.ID, "sign-out").click()
            WebDriverWait(driver, 20).until(until.presence_of_element_located((By.ID, "sign-in")))

            _sign_in(driver, url, "cat", CAT)
            driver.get(f"{url}/disagreements")
            driver.find_element(By.LINK_TEXT, "adjudicate").click()
            WebDriverWait(driver, 20).until(
                until.presence_of_element_located((By.ID, "adjudicating"))
            )
            main = driver.find_element(By.TAG_NAME, "main").text
            assert "ann: supported" in main and "bob: unsupported" in main
            _shot(driver, folder, "11-adjudication")
            driver.get(f"{url}/next")
            _shot(driver, folder, "12-next-for-cat")
