"""The reviewers' page: a Flask app (Jinja2 templates, plain HTML and a little JS).

One claim at a time, by priority, with its cited passages and the evidence quote marked;
keys s / p / u / k answer supported / partial / unsupported / skip, 1-9 pick a failure type,
n focuses the note. Reviewers sign in with a name (and the token, when one is configured);
with two reviewers per item, neither sees the other's label until the item is listed for
adjudication.

Every label form carries a one-time token the store issued for that reviewer and item; it
is spent in the label's own transaction, so a replayed, forged or cross-site post is refused
with a clear error and writes nothing. Posts must also come from the page's own origin.
The session cookie is HttpOnly and SameSite=Strict.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from typing import Any, get_args
from urllib.parse import urlsplit

from flask import Flask, Response, redirect, render_template, request, session, url_for
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from werkzeug.wrappers import Response as BaseResponse

from schemas import FailureType, ReviewPassage
from sidecar.review.errors import LabelError
from sidecar.review.metrics import StoreCollector
from sidecar.review.routing import locate_quote
from sidecar.review.store import ReviewStore

__all__ = ["create_app"]

logger = logging.getLogger(__name__)

FAILURE_TYPES: tuple[str, ...] = get_args(FailureType)
_KEYS = {"s": "supported", "p": "partial", "u": "unsupported", "k": "skip"}
_OPEN = frozenset({"login", "healthz", "static"})


def _segments(passage: ReviewPassage, quote: str | None = None) -> tuple[str, str, str]:
    """The passage as (before, quote, after); quote empty when it is not in this passage.
    An item routed without the quote's place (its quote then carried datamarks, which the
    item no longer shows) has the place found again from ``quote``."""
    text, start, end = passage.text, passage.quote_start, passage.quote_end
    if (start is None or end is None) and quote:
        span = locate_quote(quote, text)
        start, end = span if span is not None else (None, None)
    if start is None or end is None or not 0 <= start < end <= len(text):
        return text, "", ""
    return text[:start], text[start:end], text[end:]


def create_app(
    store: ReviewStore, *, token: str | None = None, secret_key: bytes | None = None
) -> Flask:
    """The page over ``store``. With ``token``, signing in asks for it."""
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secret_key or secrets.token_bytes(32),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    registry = CollectorRegistry()
    registry.register(StoreCollector(store))

    def error(status: int, message: str) -> tuple[str, int]:
        return render_template("error.html", status=status, message=message), status

    @app.before_request
    def guard() -> Any:
        if request.method == "POST":
            origin = request.headers.get("Origin") or request.headers.get("Referer")
            if origin is not None and urlsplit(origin).netloc != request.host:
                return error(403, "this form was posted from another site; nothing was written")
        if request.endpoint in _OPEN or request.endpoint is None:
            return None
        if request.endpoint == "metrics" and token is not None:
            given = request.headers.get("Authorization", "")
            if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return None
        if "reviewer" not in session:
            if request.method == "POST":
                return error(401, "sign in first (the token is required); nothing was written")
            return redirect(url_for("login", next=request.path))
        return None

    @app.get("/healthz")
    def healthz() -> str:
        return "ok\n"

    @app.get("/metrics")
    def metrics() -> Response:
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    @app.route("/login", methods=["GET", "POST"])
    def login() -> Any:
        if request.method == "GET":
            return render_template("login.html", needs_token=token is not None)
        name = (request.form.get("reviewer") or "").strip()
        if not name or len(name) > 64 or not name.isprintable():
            return render_template(
                "login.html",
                needs_token=token is not None,
                message="a reviewer name (1 to 64 characters) is required",
            ), 400
        if token is not None:
            given = request.form.get("token") or ""
            if not hmac.compare_digest(given.encode(), token.encode()):
                logger.warning("review page: sign-in refused (wrong or missing token)")
                return render_template(
                    "login.html", needs_token=True, message="wrong or missing token"
                ), 403
        session.clear()
        session["reviewer"] = name
        return redirect(url_for("queue"), code=303)

    @app.post("/logout")
    def logout() -> BaseResponse:
        session.clear()
        return redirect(url_for("login"), code=303)

    @app.get("/")
    def queue() -> str:
        reviewer = session["reviewer"]
        return render_template(
            "queue.html",
            reviewer=reviewer,
            items=store.queue(reviewer, limit=50),
            depth=store.queue_depth(),
            disputes=len(store.disagreements()),
            mine=[row for row in store.labels() if row.reviewer == reviewer][-10:],
        )

    @app.get("/next")
    def next_item() -> Any:
        items = store.queue(session["reviewer"], limit=1)
        if not items:
            return render_template("done.html", reviewer=session["reviewer"])
        return redirect(url_for("item", item_id=items[0].item_id))

    @app.get("/item/<item_id>")
    def item(item_id: str) -> Any:
        found = store.item(item_id)
        if found is None:
            return error(404, f"no review item {item_id[:64]!r}")
        reviewer = session["reviewer"]
        adjudicate = request.args.get("adjudicate") == "1"
        others = (
            {row.reviewer: row for row in store.labels(item_id) if not row.adjudication}
            if adjudicate
            else {}
        )
        return render_template(
            "item.html",
            item=found,
            reviewer=reviewer,
            adjudicate=adjudicate,
            others=others,
            passages=[(p, _segments(p, found.evidence_quote)) for p in found.passages],
            failure_types=FAILURE_TYPES,
            keys=_KEYS,
            form_token=store.issue_form(item_id, reviewer),
            history=[row for row in store.labels(item_id) if row.reviewer == reviewer],
        )

    @app.post("/label")
    def label() -> Any:
        form = request.form
        item_id = form.get("item_id") or ""
        try:
            store.add_label(
                item_id=item_id,
                reviewer=session["reviewer"],
                label=form.get("label") or "",
                form_token=form.get("form_token"),
                failure_type=form.get("failure_type"),
                note=form.get("note"),
                adjudication=form.get("adjudication") == "1",
            )
        except LabelError as exc:
            return error(exc.status, str(exc))
        if form.get("adjudication") == "1":
            return redirect(url_for("disagreements"), code=303)
        return redirect(url_for("next_item"), code=303)

    @app.get("/disagreements")
    def disagreements() -> str:
        return render_template(
            "disagreements.html", reviewer=session["reviewer"], disputes=store.disagreements()
        )

    @app.errorhandler(413)
    def too_large(_: Exception) -> tuple[str, int]:
        return error(413, "the form is too large; nothing was written")

    @app.errorhandler(405)
    def not_allowed(_: Exception) -> tuple[str, int]:
        return error(405, "that method is not allowed here")

    @app.errorhandler(404)
    def not_found(_: Exception) -> tuple[str, int]:
        return error(404, "no such page")

    return app
