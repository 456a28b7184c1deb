"""The review page's one-time form tokens: issued per (item, reviewer), spent with the label
they carry, so a resubmitted or forged form never writes a label."""

from __future__ import annotations

import secrets
import sqlite3
from datetime import datetime, timedelta

from sidecar.review.errors import FormTokenError, ReplayedFormError

__all__ = ["FORM_TOKEN_SECONDS", "issue", "reusable", "spend"]

FORM_TOKEN_SECONDS = 12 * 3600.0
"""How long a form of the page stays valid."""


def reusable(db: sqlite3.Connection, *, item_id: str, reviewer: str, now: datetime) -> str | None:
    """The unspent token already issued for ``reviewer`` on ``item_id``, when it is valid
    for at least another hour: viewing an item again writes nothing."""
    fresh = now - timedelta(seconds=FORM_TOKEN_SECONDS - 3600.0)
    row = db.execute(
        "SELECT token FROM form_tokens WHERE item_id = ? AND reviewer = ? AND used_at IS NULL "
        "AND issued_at > ? ORDER BY issued_at DESC LIMIT 1",
        (item_id, reviewer, fresh.isoformat()),
    ).fetchone()
    return None if row is None else str(row[0])


def issue(db: sqlite3.Connection, *, item_id: str, reviewer: str, now: datetime) -> str:
    """A token for one label form of ``reviewer`` on ``item_id``: the unspent one, or a new
    one stored in ``db``."""
    found = reusable(db, item_id=item_id, reviewer=reviewer, now=now)
    if found is not None:
        return found
    token = secrets.token_urlsafe(24)
    db.execute(
        "INSERT INTO form_tokens (token, item_id, reviewer, issued_at) VALUES (?, ?, ?, ?)",
        (token, item_id, reviewer, now.isoformat()),
    )
    return token


def spend(
    db: sqlite3.Connection, token: str, *, item_id: str, reviewer: str, now: datetime
) -> None:
    """Mark ``token`` used, within the caller's transaction.

    Raises :class:`FormTokenError` (no such token, one issued for another item or reviewer,
    or expired) or :class:`ReplayedFormError` (already spent).
    """
    row = db.execute(
        "SELECT item_id, reviewer, issued_at, used_at FROM form_tokens WHERE token = ?", (token,)
    ).fetchone()
    if row is None:
        raise FormTokenError("this form was not issued by this page (reload the item)")
    if row[3] is not None:
        raise ReplayedFormError("this form was already submitted; the label was not written twice")
    if row[0] != item_id or row[1] != reviewer:
        raise FormTokenError("this form was issued for another item or reviewer")
    issued = datetime.fromisoformat(row[2])
    if now - issued > timedelta(seconds=FORM_TOKEN_SECONDS):
        raise FormTokenError("this form has expired (reload the item)")
    db.execute("UPDATE form_tokens SET used_at = ? WHERE token = ?", (now.isoformat(), token))
