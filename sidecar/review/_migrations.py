"""The review store's schema, as ordered migrations.

``schema_version`` holds one row: the number of migrations applied. Opening a store applies
the missing ones in order, each in its own transaction; a store whose version is newer than
this code knows is refused (an older citewatch must not write to it). A migration is never
edited once released: a change is a new function appended to :data:`MIGRATIONS`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "migrate"]


def _run(db: sqlite3.Connection, script: str) -> None:
    """Execute ``script`` statement by statement inside the caller's transaction
    (``executescript`` would commit it first)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            db.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError("incomplete SQL statement in a migration")


def _v1_items_and_labels(db: sqlite3.Connection) -> None:
    """Items (the redacted packets), their reasons, labels (immutable), per-day counts."""
    _run(
        db,
        """
        CREATE TABLE items (
            item_id        TEXT PRIMARY KEY,
            trace_id       TEXT NOT NULL,
            claim_id       TEXT NOT NULL,
            app            TEXT NOT NULL,
            day            TEXT NOT NULL,
            priority       INTEGER NOT NULL,
            audit          INTEGER NOT NULL,
            importance     INTEGER NOT NULL,
            verdict        TEXT,
            resolved_by    TEXT,
            judge_model    TEXT,
            rubric_version TEXT,
            packet         TEXT NOT NULL,
            received_at    TEXT NOT NULL
        );
        CREATE INDEX items_queue ON items (priority DESC, received_at, item_id);
        CREATE TABLE item_reasons (
            item_id TEXT NOT NULL REFERENCES items (item_id),
            reason  TEXT NOT NULL,
            PRIMARY KEY (item_id, reason)
        );
        CREATE TABLE labels (
            label_id     INTEGER PRIMARY KEY AUTOINCREMENT,
            item_id      TEXT NOT NULL REFERENCES items (item_id),
            reviewer     TEXT NOT NULL,
            label        TEXT NOT NULL
                         CHECK (label IN ('supported', 'partial', 'unsupported', 'skip')),
            failure_type TEXT,
            note         TEXT,
            adjudication INTEGER NOT NULL DEFAULT 0,
            created_at   TEXT NOT NULL
        );
        CREATE INDEX labels_item ON labels (item_id, reviewer, label_id);
        CREATE TRIGGER labels_immutable_update BEFORE UPDATE ON labels
        BEGIN SELECT RAISE(ABORT, 'labels are immutable: add a new label instead'); END;
        CREATE TRIGGER labels_immutable_delete BEFORE DELETE ON labels
        BEGIN SELECT RAISE(ABORT, 'labels are immutable: add a new label instead'); END;
        CREATE VIEW effective_labels AS
            SELECT l.* FROM labels AS l
            WHERE l.adjudication = 0 AND l.label_id = (
                SELECT MAX(m.label_id) FROM labels AS m
                WHERE m.item_id = l.item_id AND m.reviewer = l.reviewer
                  AND m.adjudication = 0);
        CREATE TABLE day_counts (
            day    TEXT NOT NULL,
            reason TEXT NOT NULL,
            stored INTEGER NOT NULL DEFAULT 0,
            capped INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (day, reason)
        );
        CREATE TABLE capped_items (
            item_id TEXT PRIMARY KEY,
            day     TEXT NOT NULL
        );
    """,
    )


def _v2_form_tokens(db: sqlite3.Connection) -> None:
    """One-time tokens of the reviewers' page forms: a label post names the token it was
    given, which is spent in the same transaction as the label is written, so a replayed
    or forged post changes nothing."""
    _run(
        db,
        """
        CREATE TABLE form_tokens (
            token     TEXT PRIMARY KEY,
            item_id   TEXT NOT NULL,
            reviewer  TEXT NOT NULL,
            issued_at TEXT NOT NULL,
            used_at   TEXT
        );
        ALTER TABLE labels ADD COLUMN form_token TEXT;
        CREATE UNIQUE INDEX labels_form_token ON labels (form_token)
            WHERE form_token IS NOT NULL;
    """,
    )


def _v3_sessions(db: sqlite3.Connection) -> None:
    """Sign-ins of the reviewers' page, kept server-side so that signing out ends one for
    good (the cookie holds a random ID; only its hash is stored)."""
    _run(
        db,
        """
        CREATE TABLE sessions (
            session_hash TEXT PRIMARY KEY,
            reviewer     TEXT NOT NULL,
            created_at   TEXT NOT NULL,
            expires_at   TEXT NOT NULL,
            revoked_at   TEXT
        );
        CREATE INDEX form_tokens_open ON form_tokens (item_id, reviewer, used_at);
    """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _v1_items_and_labels,
    _v2_form_tokens,
    _v3_sessions,
)
"""Every migration, in order; the schema version is how many have been applied."""

SCHEMA_VERSION = len(MIGRATIONS)


class NewerStoreError(Exception):
    """The store was written by a newer citewatch (its schema version is unknown here)."""


def current_version(db: sqlite3.Connection) -> int:
    """The store's schema version (0 for a new file)."""
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    row = db.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row is not None else 0


def migrate(db: sqlite3.Connection, *, target: int = SCHEMA_VERSION) -> int:
    """Apply the migrations from the store's version up to ``target``; returns the version.

    Raises :class:`NewerStoreError` when the store is newer than ``target``.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        version = current_version(db)
        if version > target:
            raise NewerStoreError(
                f"the review store has schema version {version}; this "
                f"citewatch knows up to {target}"
            )
        if version == 0:
            db.execute("INSERT INTO schema_version (version) VALUES (0)")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    while version < target:
        db.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated meanwhile: read the version again.
            version = current_version(db)
            if version < target:
                MIGRATIONS[version](db)
                version += 1
                db.execute("UPDATE schema_version SET version = ?", (version,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return version
