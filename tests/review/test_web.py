"""The reviewers' page over real HTTP: sign-in, labels, and bad input that changes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sidecar.review.access import Access
from sidecar.review.store import ReviewStore
from tests.review._items import make_item
from tests.review._server import serve_page

TOKEN = "Zq8-vT3kLw9xRb2mNc7dYf4h"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ReviewStore]:
    with ReviewStore(tmp_path / "review.sqlite") as opened:
        opened.add([make_item(1, reasons=["suspect"]), make_item(2)])
        yield opened


def _client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, follow_redirects=False, timeout=10)


def login_form(client: httpx.Client) -> dict[str, str]:
    page = client.get("/login")
    assert page.status_code == 200
    found = re.search(r'name="login_token" value="([^"]+)"', page.text)
    assert found is not None
    return {"login_token": found.group(1)}


def sign_in(client: httpx.Client, name: str = "ann", token: str | None = None) -> None:
    data = {**login_form(client), "reviewer": name}
    if token is not None:
        data["token"] = token
    response = client.post("/login", data=data)
    assert response.status_code == 303, response.text


def label_form(client: httpx.Client, item_id: str) -> dict[str, str]:
    page = client.get(f"/item/{item_id}")
    assert page.status_code == 200
    token = re.search(r'name="form_token" value="([^"]+)"', page.text)
    assert token is not None
    return {"item_id": item_id, "form_token": token.group(1)}


def test_the_item_page_shows_the_claim_and_marks_the_quote(store: ReviewStore) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store) as url, _client(url) as client:
        assert client.get("/").headers["location"].startswith("/login")
        sign_in(client)
        page = client.get("/next")
        assert page.headers["location"] == f"/item/{item.item_id}"  # suspect before audit
        html = client.get(page.headers["location"]).text
        assert item.claim_text in html
        assert '<mark id="quote">within 1 days</mark>' in html
        assert (
            '<span class="badge" title="the offline screen saw a conflict (another number, '
            'a negation...) that no LLM resolved">suspect</span>'
        ) in html


def test_a_label_posted_once_is_written_once(store: ReviewStore) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store) as url, _client(url) as client:
        sign_in(client)
        form = {
            **label_form(client, item.item_id),
            "label": "partial",
            "failure_type": "half_supported",
            "note": "second half missing",
        }
        first = client.post("/label", data=form)
        assert (first.status_code, first.headers["location"]) == (303, "/next")
        replay = client.post("/label", data=form)
        assert replay.status_code == 409
        assert "already submitted" in replay.text
    [row] = store.labels()
    assert (row.item_id, row.reviewer, row.label, row.failure_type, row.note) == (
        item.item_id,
        "ann",
        "partial",
        "half_supported",
        "second half missing",
    )


@pytest.mark.parametrize(
    ("change", "status", "message"),
    [
        pytest.param({"item_id": "f" * 32}, 404, "no review item", id="unknown-item"),
        pytest.param({"form_token": "forged"}, 403, "not issued by this page", id="forged-form"),
        pytest.param({"form_token": ""}, 403, "not issued by this page", id="empty-form-token"),
        pytest.param({"form_token": None}, 403, "not issued by this page", id="no-form-token"),
        pytest.param({"label": "probably"}, 400, "is not one of", id="bad-label"),
        pytest.param({"failure_type": "bad_vibes"}, 400, "failure type", id="bad-failure-type"),
    ],
)
def test_bad_label_posts_get_a_clear_error_and_change_nothing(
    store: ReviewStore, change: dict[str, str], status: int, message: str
) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store) as url, _client(url) as client:
        sign_in(client)
        form = {**label_form(client, item.item_id), "label": "supported", **change}
        response = client.post("/label", data={k: v for k, v in form.items() if v is not None})
        assert response.status_code == status
        assert message in response.text
        assert 'role="alert"' in response.text
    assert store.labels() == []


def test_a_form_of_another_reviewer_is_refused(store: ReviewStore) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store) as url, _client(url) as ann, _client(url) as bob:
        sign_in(ann, "ann")
        sign_in(bob, "bob")
        form = {**label_form(ann, item.item_id), "label": "supported"}
        response = bob.post("/label", data=form)
        assert response.status_code == 403
        assert "another item or reviewer" in response.text
    assert store.labels() == []


def test_a_post_from_another_site_is_refused(store: ReviewStore) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store) as url, _client(url) as client:
        sign_in(client)
        form = {**label_form(client, item.item_id), "label": "supported"}
        response = client.post("/label", data=form, headers={"Origin": "http://evil.example"})
        assert response.status_code == 403
        assert "another site" in response.text
    assert store.labels() == []


def test_without_signing_in_nothing_is_written(store: ReviewStore) -> None:
    item = make_item(1, reasons=["suspect"])
    token = store.issue_form(item.item_id, "ann")
    with serve_page(store) as url, _client(url) as client:
        response = client.post(
            "/label", data={"item_id": item.item_id, "form_token": token, "label": "supported"}
        )
        assert response.status_code == 401
        assert "sign in first" in response.text
    assert store.labels() == []


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(None, id="missing-token"),
        pytest.param("wrong", id="wrong-token"),
    ],
)
def test_a_missing_or_wrong_token_is_refused(store: ReviewStore, given: str | None) -> None:
    item = make_item(1, reasons=["suspect"])
    with serve_page(store, access=Access(shared_token=TOKEN)) as url, _client(url) as client:
        data = {**login_form(client), "reviewer": "ann"}
        if given is not None:
            data["token"] = given
        response = client.post("/login", data=data)
        assert response.status_code == 403
        assert "wrong name or token" in response.text
        assert client.get(f"/item/{item.item_id}").status_code == 302
        refused = client.post(
            "/label", data={"item_id": item.item_id, "label": "supported", "form_token": "x"}
        )
        assert refused.status_code == 401
        assert client.get("/metrics").status_code == 302
    assert store.labels() == []


def test_with_the_token_reviewers_label_and_metrics_are_served(store: ReviewStore) -> None:
    item = make_item(2)
    with serve_page(store, access=Access(shared_token=TOKEN)) as url, _client(url) as client:
        sign_in(client, token=TOKEN)
        form = {**label_form(client, item.item_id), "label": "unsupported"}
        assert client.post("/label", data=form).status_code == 303
        metrics = httpx.get(f"{url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert metrics.status_code == 200
    text = metrics.text
    assert 'citewatch_review_queue_items{reason="suspect"} 1.0' in text
    assert 'citewatch_review_queue_items{reason="audit"} 0.0' in text
    assert 'citewatch_review_labels_total{label="unsupported"} 1.0' in text
    assert [row.label for row in store.labels()] == ["unsupported"]


def test_an_unknown_item_page_is_a_clear_404(store: ReviewStore) -> None:
    with serve_page(store) as url, _client(url) as client:
        sign_in(client)
        response = client.get("/item/nope")
        assert response.status_code == 404
        assert "no review item" in response.text
