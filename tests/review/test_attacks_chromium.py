"""Attacks on the reviewers' page, driven in a real Chromium, each refused: DNS rebinding
(a page on another name that resolves to 127.0.0.1), framing from another port of the host,
replayed, tokenless and cross-site posts, and adjudication by one of an item's reviewers."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sidecar.config.review import ReviewSettings
from sidecar.review.access import access_from_settings, hash_token
from sidecar.review.store import ReviewStore
from tests.review._chromium import chromium
from tests.review._items import make_item
from tests.review._server import serve_page

pytestmark = pytest.mark.integration

ITEM = make_item(1, reasons=["suspect"])
ANN = "Ann-7vT3kLw9xRb2mNc7dYf4h"
BOB = "Bob-Pp4mQ7rTz2wXc9vBn5kL"

# fetch() from the page a script runs in; resolves to the status and the body's start.
POST = """
const [url, fields, done] = arguments;
fetch(url, {method: "POST", body: new URLSearchParams(fields), credentials: "include",
            redirect: "manual"})
  .then(async (r) => done([r.status, (await r.text()).slice(0, 4000)]))
  .catch((e) => done([0, String(e)]));
"""


@contextmanager
def attacker_site(html: str) -> Iterator[str]:
    """Another site on another port of 127.0.0.1 that serves ``html``; yields its URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ReviewStore]:
    with ReviewStore(tmp_path / "review.sqlite") as opened:
        opened.add([ITEM])
        yield opened


def _sign_in(driver: Any, url: str, name: str = "ann", token: str | None = None) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as until
    from selenium.webdriver.support.wait import WebDriverWait

    driver.get(f"{url}/login")
    WebDriverWait(driver, 20).until(until.presence_of_element_located((By.ID, "reviewer")))
    driver.find_element(By.ID, "reviewer").send_keys(name)
    if token is not None:
        driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, 20).until(until.presence_of_element_located((By.ID, "start")))


def test_a_rebound_name_reaches_nothing(store: ReviewStore) -> None:
    from selenium.webdriver.common.by import By

    with (
        serve_page(store) as url,
        chromium("--host-resolver-rules=MAP rebound.test 127.0.0.1") as driver,
    ):
        port = url.rsplit(":", 1)[1]
        # The attacker's name now resolves to the page's address: the browser sends it in
        # Host, and the page's own pages are out of reach from that origin.
        driver.get(f"http://rebound.test:{port}/login")
        body = driver.find_element(By.TAG_NAME, "body").text
        assert "421 Misdirected Request" in body
        assert driver.find_elements(By.ID, "reviewer") == []
        for path, fields in (
            ("/login", {"reviewer": "mallory"}),
            ("/label", {"item_id": ITEM.item_id, "label": "supported", "form_token": "x"}),
            (f"/item/{ITEM.item_id}", {}),
        ):
            status, text = driver.execute_async_script(POST, path, fields)
            assert status == 421, text
        # Under its own name the same browser reaches the page.
        driver.get(f"http://localhost:{port}/login")
        assert driver.find_elements(By.ID, "reviewer") != []
    assert store.labels() == []


def test_the_page_cannot_be_framed_from_another_port(store: ReviewStore) -> None:
    from selenium.webdriver.common.by import By

    with serve_page(store) as url, chromium() as driver:
        _sign_in(driver, url)
        frame = f'<iframe id="victim" src="{url}/item/{ITEM.item_id}" width=900 height=600>'
        with attacker_site(f"<!doctype html><p>win a prize</p>{frame}</iframe>") as evil:
            driver.get(evil)
            driver.switch_to.frame(driver.find_element(By.ID, "victim"))
            # Chromium refused to render it: the frame holds its error page, not the item.
            assert driver.execute_script("return location.href").startswith("chrome-error:")
            assert driver.find_elements(By.ID, "claim") == []
            driver.find_element(By.TAG_NAME, "body").send_keys("s")
            driver.switch_to.default_content()
            driver.find_element(By.TAG_NAME, "body").send_keys("s")
        # The signed-in item page itself renders (the refusal was the framing).
        driver.get(f"{url}/item/{ITEM.item_id}")
        assert driver.find_element(By.ID, "claim").text == ITEM.claim_text
    assert store.labels() == []


def test_replayed_tokenless_and_cross_site_posts_write_nothing(store: ReviewStore) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as until
    from selenium.webdriver.support.wait import WebDriverWait

    with serve_page(store) as url, chromium() as driver:
        _sign_in(driver, url)
        driver.get(f"{url}/item/{ITEM.item_id}")
        token = driver.find_element(By.NAME, "form_token").get_attribute("value")
        claim = driver.find_element(By.ID, "claim")
        driver.find_element(By.TAG_NAME, "body").send_keys("u")
        WebDriverWait(driver, 20).until(until.staleness_of(claim))
        sent = {"item_id": ITEM.item_id, "label": "unsupported", "form_token": token}
        # From the page's own origin, with its session: the same form again, then none.
        driver.get(f"{url}/")
        status, text = driver.execute_async_script(POST, "/label", sent)
        assert (status, "already submitted" in text) == (409, True)
        status, text = driver.execute_async_script(
            POST, "/label", {"item_id": ITEM.item_id, "label": "supported"}
        )
        assert (status, "not issued by this page" in text) == (403, True)
        # A fresh form, posted by another site on another port of the host (same site, so
        # the SameSite cookie goes along).
        driver.get(f"{url}/item/{ITEM.item_id}")
        fresh = driver.find_element(By.NAME, "form_token").get_attribute("value")
        form = (
            f'<form id="f" method="post" action="{url}/label">'
            f'<input name="item_id" value="{ITEM.item_id}">'
            f'<input name="form_token" value="{fresh}">'
            '<input name="label" value="supported"></form>'
            '<script>document.getElementById("f").submit()</script>'
        )
        with attacker_site(form) as evil:
            driver.get(evil)
            WebDriverWait(driver, 20).until(until.url_contains("/label"))
            assert "posted from another site" in driver.find_element(By.ID, "error").text
    assert [(r.reviewer, r.label) for r in store.labels()] == [("ann", "unsupported")]


def test_a_reviewer_of_an_item_cannot_adjudicate_it(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    access = access_from_settings(
        ReviewSettings(
            reviewer_tokens={"ann": hash_token(ANN), "bob": hash_token(BOB)},
            adjudicators=["ann"],
            reviewers_per_item=2,
        )
    )
    with ReviewStore(tmp_path / "review.sqlite", reviewers=2) as store:
        store.add([ITEM])
        for name, label in (("ann", "supported"), ("bob", "unsupported")):
            token = store.issue_form(ITEM.item_id, name)
            store.add_label(item_id=ITEM.item_id, reviewer=name, label=label, form_token=token)
        with serve_page(store, access=access) as url, chromium() as driver:
            _sign_in(driver, url, "ann", ANN)
            driver.get(f"{url}/disagreements")
            assert "for another adjudicator" in driver.find_element(By.TAG_NAME, "main").text
            assert driver.find_elements(By.LINK_TEXT, "adjudicate") == []
            driver.get(f"{url}/item/{ITEM.item_id}?adjudicate=1")
            main = driver.find_element(By.TAG_NAME, "main").text
            assert "Error 403" in main and "unsupported" not in main
            driver.get(f"{url}/item/{ITEM.item_id}")
            token = driver.find_element(By.NAME, "form_token").get_attribute("value")
            status, text = driver.execute_async_script(
                POST,
                "/label",
                {
                    "item_id": ITEM.item_id,
                    "label": "supported",
                    "form_token": token,
                    "adjudication": "1",
                },
            )
            assert (status, "you labelled this item yourself" in text) == (403, True)
        assert [r.adjudication for r in store.labels()] == [False, False]
        assert len(store.disagreements()) == 1
