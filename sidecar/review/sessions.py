"""The reviewers' page's sign-ins, kept in the review store.

The session cookie holds a random ID; the store keeps its SHA-256, the reviewer, and when it
expires or was revoked. Signing out revokes the row, so a copied cookie stops working at
once; reading a session is a read, so a page view writes nothing.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sidecar.review.store import ReviewStore

__all__ = ["SESSION_SECONDS", "Sessions"]

SESSION_SECONDS = 12 * 3600.0
"""How long a sign-in lasts."""


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("ascii", "replace")).hexdigest()


class Sessions:
    """Sign-ins in ``store``'s ``sessions`` table."""

    def __init__(self, store: ReviewStore, *, seconds: float = SESSION_SECONDS) -> None:
        self.store = store
        self.seconds = seconds

    def start(self, reviewer: str, *, now: datetime | None = None) -> str:
        """A new session of ``reviewer``; returns the ID the cookie carries."""
        when = now or datetime.now(UTC)
        session_id = secrets.token_urlsafe(32)
        with self.store._transaction() as db:
            db.execute(
                "INSERT INTO sessions (session_hash, reviewer, created_at, expires_at) "
                "VALUES (?, ?, ?, ?)",
                (
                    _hash(session_id),
                    reviewer,
                    when.isoformat(),
                    (when + timedelta(seconds=self.seconds)).isoformat(),
                ),
            )
        return session_id

    def reviewer(self, session_id: str | None, *, now: datetime | None = None) -> str | None:
        """The reviewer of a live session (not expired, not revoked), or None."""
        if not session_id:
            return None
        when = (now or datetime.now(UTC)).isoformat()
        rows = self.store._query(
            "SELECT reviewer FROM sessions WHERE session_hash = ? AND revoked_at IS NULL "
            "AND expires_at > ?",
            (_hash(session_id), when),
        )
        return str(rows[0][0]) if rows else None

    def revoke(self, session_id: str | None, *, now: datetime | None = None) -> None:
        """End a session for good (signing out)."""
        if not session_id:
            return
        when = (now or datetime.now(UTC)).isoformat()
        with self.store._transaction() as db:
            db.execute(
                "UPDATE sessions SET revoked_at = ? WHERE session_hash = ? AND revoked_at IS NULL",
                (when, _hash(session_id)),
            )
