"""What every request and response of the reviewers' page passes through: the Host
allow-list (before anything else runs), the cross-site check of posts, and the headers that
keep the page out of frames, caches and referrers."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlsplit

from flask import g, request
from werkzeug.wrappers import Response

from sidecar.review.access import Access

__all__ = ["HostAllowList", "cross_site_post", "csp_nonce", "secure_headers"]

_HEADERS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def _policy(nonce: str | None) -> str:
    scripts = f"'nonce-{nonce}'" if nonce else "'none'"
    return (
        f"default-src 'self'; script-src {scripts}; style-src {scripts}; "
        "img-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'"
    )


def secure_headers(headers: Any, nonce: str | None) -> None:
    """Set the page's security headers on ``headers``."""
    headers["Content-Security-Policy"] = _policy(nonce)
    for name, value in _HEADERS.items():
        headers[name] = value


class HostAllowList:
    """WSGI middleware: a request whose Host is not one of the page's names gets 421 and
    never reaches the app (a rebound DNS name carries its own name in Host)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], access: Access) -> None:
        self.app = app
        self.access = access

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        if self.access.host_allowed(host):
            return self.app(environ, start_response)
        response = Response(
            "421 Misdirected Request: this page does not answer to that host name\n",
            status=421,
            mimetype="text/plain",
        )
        secure_headers(response.headers, None)
        return response(environ, start_response)


def csp_nonce() -> str:
    """This response's nonce for inline script and style (one per request)."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(16)
    return str(g.csp_nonce)


def cross_site_post(access: Access) -> bool:
    """Whether this post comes from another site or origin.

    Browsers say where a request comes from in Sec-Fetch-Site, which pages cannot set; it is
    the answer when present (under ``Referrer-Policy: no-referrer`` a form's Origin is
    ``null`` even from the page itself). Otherwise the Origin, or the Referer, must be this
    page; a client that sends none is not a browser, and the form token and the session
    still hold.
    """
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site not in ("same-origin", "none")
    origin = request.headers.get("Origin") or request.headers.get("Referer")
    if origin is None:
        return False
    netloc = urlsplit(origin).netloc
    return netloc != request.host or not access.host_allowed(netloc)
