"""The page's outer guard over real HTTP: only its own host names, and headers that keep
it out of frames, caches and referrers on every response."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sidecar.review.store import ReviewStore
from tests.review._items import make_item
from tests.review._server import serve_page
from tests.review.test_web import label_form, sign_in

ITEM = make_item(1, reasons=["suspect"])


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ReviewStore]:
    with ReviewStore(tmp_path / "review.sqlite") as opened:
        opened.add([ITEM])
        yield opened


def _client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, follow_redirects=False, timeout=10)


def _secure(response: httpx.Response) -> None:
    headers = response.headers
    policy = headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert (
        headers["X-Frame-Options"],
        headers["X-Content-Type-Options"],
        headers["Referrer-Policy"],
        headers["Cache-Control"],
    ) == ("DENY", "nosniff", "no-referrer", "no-store")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        pytest.param("GET", "/healthz", id="healthz"),
        pytest.param("GET", "/login", id="login-page"),
        pytest.param("POST", "/login", id="sign-in"),
        pytest.param("GET", f"/item/{ITEM.item_id}", id="item"),
        pytest.param("POST", "/label", id="label"),
        pytest.param("GET", "/no-such-page", id="unknown-path"),
    ],
)
def test_another_host_name_is_refused_before_anything_runs(
    store: ReviewStore, method: str, path: str
) -> None:
    with serve_page(store) as url, _client(url) as client:
        port = url.rsplit(":", 1)[1]
        response = client.request(
            method,
            path,
            headers={
                "Host": f"rebound.evil.test:{port}",
                "Origin": f"http://rebound.evil.test:{port}",
            },
            data={"reviewer": "mallory", "item_id": ITEM.item_id, "label": "supported"},
        )
        assert response.status_code == 421
        assert "does not answer to that host name" in response.text
        _secure(response)
        # The same request under the page's own name is served.
        assert client.get("/healthz", headers={"Host": f"localhost:{port}"}).status_code == 200
    assert store.labels() == []


def test_every_page_carries_the_headers_and_a_fresh_nonce(store: ReviewStore) -> None:
    with serve_page(store) as url, _client(url) as client:
        _secure(client.get("/login"))
        sign_in(client)
        nonces = set()
        for path in ("/", f"/item/{ITEM.item_id}", "/disagreements", "/item/nope"):
            page = client.get(path)
            _secure(page)
            found = re.search(
                r"script-src 'nonce-([^']+)'", page.headers["Content-Security-Policy"]
            )
            assert found is not None
            nonce = found.group(1)
            assert f'<style nonce="{nonce}">' in page.text
            nonces.add(nonce)
            if path == f"/item/{ITEM.item_id}":
                assert f'<script nonce="{nonce}">' in page.text
        assert len(nonces) == 4


@pytest.mark.parametrize(
    "headers",
    [
        pytest.param({"Sec-Fetch-Site": "same-site"}, id="another-port-of-the-host"),
        pytest.param({"Sec-Fetch-Site": "cross-site"}, id="another-site"),
        pytest.param({"Origin": "null"}, id="sandboxed-frame"),
    ],
)
def test_posts_from_elsewhere_are_refused(store: ReviewStore, headers: dict[str, str]) -> None:
    with serve_page(store) as url, _client(url) as client:
        sign_in(client)
        form = {**label_form(client, ITEM.item_id), "label": "supported"}
        response = client.post("/label", data=form, headers=headers)
        assert response.status_code == 403
        assert "posted from another site" in response.text
    assert store.labels() == []
