"""The reviewers' page: a Flask app (Jinja2 templates, plain HTML and a little JS).

One claim at a time, by priority, with its cited passages and the evidence quote marked;
keys s / p / u / k answer supported / partial / unsupported / skip, 1-9 pick a failure type,
n focuses the note. Who a reviewer is comes from :mod:`sidecar.review.access` (their own
token, an authenticating proxy's user header, or a free-form name on loopback); with two
reviewers per item, neither sees the other's label until the item is disputed, and only an
adjudicator who labelled neither side may then see both and decide it.

Every post carries a one-time form token: a label form's is issued by the store for that
reviewer and item and spent in the label's own transaction; the sign-in form's is kept in
memory; the sign-out form's belongs to the session it ends. Requests for another host name
are refused before anything runs (:mod:`sidecar.review._guard`); every response forbids
framing, caching and referrers. Sessions live in the store, so signing out ends them.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from typing import Any

from flask import Flask, Response, g, redirect, render_template, request, session, url_for
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from werkzeug.wrappers import Response as BaseResponse

from sidecar.review._guard import HostAllowList, cross_site_post, csp_nonce, secure_headers
from sidecar.review._pages import register_pages
from sidecar.review._signin import FormNonces, SignInLimiter
from sidecar.review.access import Access
from sidecar.review.errors import LabelError
from sidecar.review.labels import adjudication_refusal, latest_labels
from sidecar.review.metrics import StoreCollector
from sidecar.review.sessions import Sessions
from sidecar.review.store import ReviewStore

__all__ = ["create_app"]

logger = logging.getLogger(__name__)

_OPEN = frozenset({"login", "healthz", "static"})


def _valid_name(name: str) -> bool:
    return bool(name) and len(name) <= 64 and name.isprintable()


def create_app(
    store: ReviewStore,
    *,
    access: Access | None = None,
    secret_key: bytes | None = None,
    limiter: SignInLimiter | None = None,
) -> Flask:
    """The page over ``store`` under ``access`` (default: one reviewer on loopback, by name)."""
    access = access or Access()
    limiter = limiter or SignInLimiter()
    nonces = FormNonces()
    sessions = Sessions(store)
    app = Flask(__name__)
    key = secret_key or secrets.token_bytes(32)
    app.config.update(
        SECRET_KEY=key,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.wsgi_app = HostAllowList(app.wsgi_app, access)  # type: ignore[method-assign]
    registry = CollectorRegistry()
    registry.register(StoreCollector(store))
    app.jinja_env.globals["csp_nonce"] = csp_nonce

    def error(status: int, message: str) -> tuple[str, int]:
        return render_template("error.html", status=status, message=message), status

    def logout_token() -> str:
        sid = str(session.get("sid", ""))
        return hmac.new(key, b"logout:" + sid.encode(), hashlib.sha256).hexdigest()

    app.jinja_env.globals["logout_token"] = logout_token

    def identify() -> str | None:
        """The reviewer this request comes from, or None (then ``g.refusal`` may say why)."""
        if access.from_proxy(request.remote_addr):
            assert access.proxy_user_header is not None
            user = (request.headers.get(access.proxy_user_header) or "").strip()
            if _valid_name(user):
                g.via_proxy = True
                return user
            g.refusal = (401, "the proxy did not name a user; nothing was shown or written")
            return None
        if access.mode == "proxy" and not access.reviewer_tokens:
            g.refusal = (403, "this page is reached through its sign-in proxy only")
            return None
        reviewer = sessions.reviewer(session.get("sid"))
        if reviewer is not None and access.mode != "open":
            if reviewer not in access.reviewer_tokens:
                return None  # removed from the settings since signing in
        return reviewer

    @app.before_request
    def guard() -> Any:
        if request.method == "POST" and cross_site_post(access):
            return error(403, "this form was posted from another site; nothing was written")
        if request.endpoint in ("healthz", "static"):
            return None  # no one to know: a probe reads no session
        g.reviewer = identify()
        if request.endpoint in _OPEN or request.endpoint is None:
            return None
        if request.endpoint == "metrics" and access.shared_token is not None:
            given = request.headers.get("Authorization", "")
            if hmac.compare_digest(given.encode(), f"Bearer {access.shared_token}".encode()):
                return None
        if g.reviewer is None:
            refusal = g.get("refusal")
            if refusal is not None:
                return error(*refusal)
            if request.method == "POST":
                return error(401, "sign in first; nothing was written")
            return redirect(url_for("login", next=request.path))
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        secure_headers(response.headers, g.get("csp_nonce"))
        return response

    def login_page(
        status: int = 200, message: str | None = None, headers: dict[str, str] | None = None
    ) -> tuple[str, int, dict[str, str]]:
        return (
            render_template(
                "login.html",
                needs_token=access.mode != "open" or access.shared_token is not None,
                own_token=access.mode != "open",
                login_token=nonces.issue(),
                message=message,
            ),
            status,
            headers or {},
        )

    @app.get("/healthz")
    def healthz() -> str:
        return "ok\n"

    @app.get("/metrics")
    def metrics() -> Response:
        return Response(generate_latest(registry), mimetype=CONTENT_TYPE_LATEST)

    @app.route("/login", methods=["GET", "POST"])
    def login() -> Any:
        if g.get("via_proxy"):
            return redirect(url_for("queue"), code=303)
        if access.mode == "proxy" and not access.reviewer_tokens:
            return error(*g.get("refusal", (403, "sign in through the proxy")))
        if request.method == "GET":
            return login_page()
        address = request.remote_addr or "?"
        wait = limiter.wait(address)
        if wait > 0:
            logger.debug("review page: sign-in refused while backing off")
            seconds = max(1, round(wait))
            return login_page(
                429,
                f"too many failed sign-ins: try again in {seconds} s",
                {"Retry-After": str(seconds)},
            )
        if not nonces.spend(request.form.get("login_token")):
            return login_page(403, "this sign-in form expired or was already used (try again)")
        name = (request.form.get("reviewer") or "").strip()
        given = request.form.get("token") or ""
        if not _valid_name(name):
            return login_page(400, "a reviewer name (1 to 64 characters) is required")
        if access.mode != "open":
            accepted = access.reviewer_of_token(name, given)
        elif access.shared_token is not None:
            accepted = hmac.compare_digest(given.encode(), access.shared_token.encode())
        else:
            accepted = True
        if not accepted:
            failures = limiter.failed(address)
            # Logged once per doubling, so a guessing client cannot flood the log.
            if failures & (failures - 1) == 0:
                logger.warning(
                    "review page: sign-in refused (wrong name or token), %d in a row from "
                    "one address",
                    failures,
                )
            return login_page(403, "wrong name or token")
        limiter.succeeded(address)
        session.clear()
        session["sid"] = sessions.start(name)
        return redirect(url_for("queue"), code=303)

    @app.post("/logout")
    def logout() -> BaseResponse | tuple[str, int]:
        given = request.form.get("logout_token") or ""
        if not hmac.compare_digest(given.encode(), logout_token().encode()):
            return error(403, "this sign-out form was not issued for your session")
        sessions.revoke(session.get("sid"))
        session.clear()
        return redirect(url_for("login"), code=303)

    def may_adjudicate(item_id: str) -> bool:
        latest = latest_labels(store.labels(item_id)).get(item_id)
        return access.is_adjudicator(g.reviewer) and (
            adjudication_refusal(latest, g.reviewer) is None
        )

    register_pages(app, store, error=error, may_adjudicate=may_adjudicate)

    @app.post("/label")
    def label() -> Any:
        form = request.form
        item_id = form.get("item_id") or ""
        adjudication = form.get("adjudication") == "1"
        if adjudication and not access.is_adjudicator(g.reviewer):
            return error(403, "only an adjudicator decides disputed items; nothing was written")
        try:
            store.add_label(
                item_id=item_id,
                reviewer=g.reviewer,
                label=form.get("label") or "",
                form_token=form.get("form_token") or "",
                failure_type=form.get("failure_type"),
                note=form.get("note"),
                adjudication=adjudication,
            )
        except LabelError as exc:
            return error(exc.status, str(exc))
        if adjudication:
            return redirect(url_for("disagreements"), code=303)
        return redirect(url_for("next_item"), code=303)

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
