"""The oauth2-proxy example of docs/review.md, as written: the test plays the proxy (its user
header from a trusted address, the public name in Host) in front of the page served with
those settings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from sidecar.config import load_settings
from sidecar.review.access import access_from_settings
from sidecar.review.store import ReviewStore
from tests.review._items import make_item
from tests.review._server import serve_page

ROOT = Path(__file__).resolve().parents[2]
ITEM = make_item(1, reasons=["suspect"])


def _example() -> str:
    text = (ROOT / "docs" / "review.md").read_text()
    section = text.split("### Behind oauth2-proxy", 1)[1]
    found = re.search(r"```yaml\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, ReviewStore]]:
    config = tmp_path / "citewatch.yaml"
    config.write_text(_example())
    settings = load_settings(config, overrides={"review.store": str(tmp_path / "r.sqlite")})
    review = settings.review
    assert (review.host, review.proxy_user_header) == ("127.0.0.1", "X-Forwarded-User")
    with ReviewStore(review.store or "", reviewers=review.reviewers_per_item) as store:
        store.add([ITEM])
        with serve_page(store, access=access_from_settings(review)) as url:
            yield url, store


def _as_proxy(url: str, user: str, *, source: str = "127.0.0.1") -> httpx.Client:
    """What oauth2-proxy sends upstream for ``user``, from the address ``source``."""
    return httpx.Client(
        base_url=url,
        transport=httpx.HTTPTransport(local_address=source),
        headers={"Host": "review.example.com", "X-Forwarded-User": user},
        follow_redirects=False,
        timeout=10,
    )


def _label(client: httpx.Client, label: str, *, page: str = "", **extra: str) -> httpx.Response:
    page = client.get(f"/item/{ITEM.item_id}{page}")
    assert page.status_code == 200, page.text
    token = re.search(r'name="form_token" value="([^"]+)"', page.text)
    assert token is not None
    form = {"item_id": ITEM.item_id, "form_token": token.group(1), "label": label, **extra}
    return client.post("/label", data=form, headers={"Sec-Fetch-Site": "same-origin"})


def test_labels_land_under_the_proxys_user(served: tuple[str, ReviewStore]) -> None:
    url, store = served
    for user, label in (("ann@example.com", "supported"), ("bob@example.com", "partial")):
        with _as_proxy(url, user) as client:
            assert client.get("/login").headers["location"] == "/"  # signed in already
            assert _label(client, label).status_code == 303
    with _as_proxy(url, "ann@example.com") as ann:
        assert ann.get(f"/item/{ITEM.item_id}?adjudicate=1").status_code == 403
        refused = _label(ann, "partial", adjudication="1")
        assert refused.status_code == 403
        assert "only an adjudicator decides" in refused.text
    with _as_proxy(url, "lee@example.com") as lee:
        decided = _label(lee, "partial", query="?adjudicate=1", adjudication="1")
        assert decided.status_code == 303
    assert [(r.reviewer, r.label, r.adjudication) for r in store.labels()] == [
        ("ann@example.com", "supported", False),
        ("bob@example.com", "partial", False),
        ("lee@example.com", "partial", True),
    ]


def test_the_header_from_elsewhere_or_another_host_is_refused(
    served: tuple[str, ReviewStore],
) -> None:
    url, store = served
    with _as_proxy(url, "lee@example.com", source="127.0.0.2") as direct:
        refused = direct.get("/")
        assert refused.status_code == 403
        assert "through its sign-in proxy only" in refused.text
        assert direct.post("/label", data={"item_id": ITEM.item_id}).status_code == 403
    with _as_proxy(url, "lee@example.com") as client:
        client.headers["Host"] = "review.example.com.evil.test"
        assert client.get("/").status_code == 421
    with _as_proxy(url, "") as client:
        assert client.get("/").status_code == 401
    assert store.labels() == []
