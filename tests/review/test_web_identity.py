"""Who labels through the page, over real HTTP: own tokens, the proxy's user header,
sessions that end at sign-out, sign-in backoff, and adjudication that only an adjudicator
who labelled neither side may do."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sidecar.config.review import ReviewSettings
from sidecar.review._signin import SignInLimiter
from sidecar.review.access import Access, access_from_settings, hash_token
from sidecar.review.store import ReviewStore
from tests.review._items import make_item
from tests.review._server import serve_page
from tests.review.test_web import label_form, login_form, sign_in

TOKENS = {
    "ann": "Ann-7vT3kLw9xRb2mNc7dYf4h",
    "bob": "Bob-Pp4mQ7rTz2wXc9vBn5kL",
    "cat": "Cat-Hh6gD2sAq8wEr5tYu3iO",
}
ITEM = make_item(1, reasons=["suspect"])


def _access(**extra: object) -> Access:
    return access_from_settings(
        ReviewSettings.model_validate(
            {
                "reviewer_tokens": {name: hash_token(t) for name, t in TOKENS.items()},
                "adjudicators": ["ann", "cat"],
                "reviewers_per_item": 2,
                **extra,
            }
        )
    )


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ReviewStore]:
    with ReviewStore(tmp_path / "review.sqlite", reviewers=2) as opened:
        opened.add([ITEM, make_item(2)])
        yield opened


def _client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, follow_redirects=False, timeout=10)


def _label(client: httpx.Client, label: str, **extra: str) -> httpx.Response:
    form = {**label_form(client, ITEM.item_id), "label": label, **extra}
    return client.post("/label", data=form)


def test_a_reviewer_cannot_sign_in_as_another(store: ReviewStore) -> None:
    with serve_page(store, access=_access()) as url, _client(url) as client:
        refused = client.post(
            "/login", data={**login_form(client), "reviewer": "ann", "token": TOKENS["bob"]}
        )
        assert refused.status_code == 403
        assert "wrong name or token" in refused.text
        sign_in(client, "bob", TOKENS["bob"])
        assert _label(client, "supported").status_code == 303
    assert [(r.reviewer, r.label) for r in store.labels()] == [("bob", "supported")]


def _disputed(url: str) -> None:
    for name, label in (("ann", "supported"), ("bob", "unsupported")):
        with _client(url) as client:
            sign_in(client, name, TOKENS[name])
            assert _label(client, label).status_code == 303


def test_only_an_adjudicator_who_labelled_neither_side_decides(store: ReviewStore) -> None:
    with serve_page(store, access=_access()) as url:
        with _client(url) as ann:
            sign_in(ann, "ann", TOKENS["ann"])
            # Nobody disputes it yet: no adjudication, and the page shows no one's label.
            early = ann.get(f"/item/{ITEM.item_id}?adjudicate=1")
            assert early.status_code == 403
            assert "adjudication is for disputed items" in early.text
        _disputed(url)
        with _client(url) as ann:
            sign_in(ann, "ann", TOKENS["ann"])
            own = ann.get(f"/item/{ITEM.item_id}?adjudicate")
            assert own.status_code == 403
            assert "unsupported" not in own.text.split("<main>")[1].split("</main>")[0]
            posted = _label(ann, "supported", adjudication="1")
            assert posted.status_code == 403
            assert "you labelled this item yourself" in posted.text
            assert "for another adjudicator" in ann.get("/disagreements").text
        with _client(url) as bob:
            sign_in(bob, "bob", TOKENS["bob"])
            posted = _label(bob, "unsupported", adjudication="1")
            assert posted.status_code == 403
            assert "only an adjudicator decides" in posted.text
        with _client(url) as cat:
            sign_in(cat, "cat", TOKENS["cat"])
            page = cat.get(f"/item/{ITEM.item_id}?adjudicate=1")
            assert page.status_code == 200
            assert "bob: unsupported" in page.text
            assert _label(cat, "unsupported", adjudication="1").status_code == 303
    assert [(r.reviewer, r.label, r.adjudication) for r in store.labels()] == [
        ("ann", "supported", False),
        ("bob", "unsupported", False),
        ("cat", "unsupported", True),
    ]
    assert store.disagreements() == []


def test_an_item_not_disputed_is_not_adjudicated(store: ReviewStore) -> None:
    with serve_page(store, access=_access()) as url, _client(url) as cat:
        sign_in(cat, "cat", TOKENS["cat"])
        posted = _label(cat, "supported", adjudication="1")
        assert posted.status_code == 403
        assert "not disputed" in posted.text
    assert store.labels() == []


def test_sign_out_ends_the_session_on_the_server(store: ReviewStore) -> None:
    with serve_page(store, access=_access()) as url, _client(url) as client:
        sign_in(client, "ann", TOKENS["ann"])
        copied = dict(client.cookies)
        page = client.get("/")
        token = re.search(r'name="logout_token" value="([^"]+)"', page.text)
        assert token is not None
        assert client.post("/logout", data={}).status_code == 403  # no sign-out token
        assert client.post("/logout", data={"logout_token": token.group(1)}).status_code == 303
        with _client(url) as thief:
            thief.cookies.update(copied)
            assert thief.get("/").status_code == 302
            assert thief.post("/label", data={"item_id": ITEM.item_id}).status_code == 401


def test_a_sign_in_form_is_used_once(store: ReviewStore) -> None:
    with serve_page(store, access=_access()) as url, _client(url) as client:
        form = {**login_form(client), "reviewer": "ann", "token": TOKENS["ann"]}
        assert client.post("/login", data=form).status_code == 303
        again = client.post("/login", data=form)
        assert again.status_code == 403
        assert "already used" in again.text
        tokenless = {"reviewer": "ann", "token": TOKENS["ann"]}
        assert client.post("/login", data=tokenless).status_code == 403


def test_failed_sign_ins_back_off(store: ReviewStore) -> None:
    now = [1000.0]
    limiter = SignInLimiter(free=3, clock=lambda: now[0])
    with serve_page(store, access=_access(), limiter=limiter) as url, _client(url) as client:

        def attempt(token: str) -> httpx.Response:
            return client.post(
                "/login", data={**login_form(client), "reviewer": "ann", "token": token}
            )

        assert [attempt("guess").status_code for _ in range(4)] == [403, 403, 403, 403]
        waiting = attempt(TOKENS["ann"])  # even the right token waits
        assert waiting.status_code == 429
        assert waiting.headers["Retry-After"] == "1"
        now[0] += 1.5
        assert attempt("guess").status_code == 403  # the fifth failure: 2 s
        assert attempt(TOKENS["ann"]).headers["Retry-After"] == "2"
        now[0] += 2.5
        assert attempt(TOKENS["ann"]).status_code == 303


def test_the_proxy_names_the_reviewer_only_from_its_own_address(store: ReviewStore) -> None:
    proxied = _access(proxy_user_header="X-Forwarded-User", trusted_proxies=["127.0.0.1"])
    with serve_page(store, access=proxied) as url, _client(url) as client:
        client.headers["X-Forwarded-User"] = "dana@example.com"
        assert client.get("/").status_code == 200  # no sign-in: the proxy did it
        assert _label(client, "partial").status_code == 303
    elsewhere = access_from_settings(
        ReviewSettings(proxy_user_header="X-Forwarded-User", trusted_proxies=["10.9.0.0/16"])
    )
    with serve_page(store, access=elsewhere) as url, _client(url) as client:
        client.headers["X-Forwarded-User"] = "ann"
        refused = client.get("/")
        assert refused.status_code == 403
        assert "through its sign-in proxy only" in refused.text
    assert [(r.reviewer, r.label) for r in store.labels()] == [("dana@example.com", "partial")]


def test_viewing_pages_writes_nothing(store: ReviewStore, tmp_path: Path) -> None:
    def rows() -> tuple[int, int]:
        db = sqlite3.connect(tmp_path / "review.sqlite")
        try:
            return (
                db.execute("SELECT COUNT(*) FROM form_tokens").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0],
            )
        finally:
            db.close()

    with serve_page(store, access=_access()) as url, _client(url) as client:
        sign_in(client, "ann", TOKENS["ann"])
        first = label_form(client, ITEM.item_id)
        before = rows()
        for _ in range(5):
            assert label_form(client, ITEM.item_id) == first
            assert client.get("/").status_code == 200
            assert client.get("/disagreements").status_code == 200
        assert rows() == before == (1, 1)


def test_the_store_overwrites_what_it_deletes(store: ReviewStore) -> None:
    assert store._query("PRAGMA secure_delete") == [(1,)]


def test_a_reviewer_removed_from_the_settings_is_signed_out(store: ReviewStore) -> None:
    key = b"k" * 32
    with serve_page(store, access=_access(), secret_key=key) as url, _client(url) as client:
        sign_in(client, "ann", TOKENS["ann"])
        cookies = dict(client.cookies)
    without_ann = access_from_settings(
        ReviewSettings(reviewer_tokens={"bob": hash_token(TOKENS["bob"])})
    )
    for access, status in ((_access(), 200), (without_ann, 302)):
        with serve_page(store, access=access, secret_key=key) as url, _client(url) as client:
            client.cookies.update(cookies)
            assert client.get("/").status_code == status
