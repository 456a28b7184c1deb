"""The review store: one SQLite file (WAL) of routed claims and the labels people give them.

Items are the redacted packets of routed claims (:class:`schemas.ReviewItem`), stored once
per item ID however often they arrive (replays, several replicas). Labels are immutable rows:
a correction is a new label by the same reviewer, and a reviewer's latest label is the one
that counts. With two reviewers per item, an item whose reviewers disagree is listed for
adjudication; an adjudicator's label then decides it.

Several processes may open one store (replicas on one host, the consumer of the review topic,
the reviewers' page); SQLite's locking serialises their writes. Within a process one
connection is shared under a lock.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

from schemas import ReviewItem, ReviewReason
from sidecar.review import _forms
from sidecar.review._migrations import NewerStoreError, migrate
from sidecar.review._rows import insert_item
from sidecar.review.errors import AdjudicationError, StoreError, UnknownItemError
from sidecar.review.labels import (
    FinalLabel,
    LabelRow,
    adjudication_refusal,
    agreement,
    answered,
    checked_label,
    latest_labels,
    settled_label,
)
from sidecar.review.routing import PRIORITY

__all__ = ["AddResult", "FinalLabel", "LabelRow", "ReviewStore"]

logger = logging.getLogger(__name__)


@dataclass
class AddResult:
    """What :meth:`ReviewStore.add` did with a batch of items."""

    stored: int = 0
    duplicates: int = 0
    capped: int = 0
    capped_reasons: dict[str, int] = field(default_factory=dict)


def _now() -> datetime:
    return datetime.now(UTC)


class ReviewStore:
    """The review store in the SQLite file at ``path`` (created, or migrated, on open).

    ``caps`` are the per-day caps by reason (a reason missing has none); ``reviewers`` the
    independent reviewers each item needs. Raises :class:`StoreError` when the file cannot
    be opened or was written by a newer citewatch.
    """

    def __init__(
        self, path: str | Path, *, caps: Mapping[str, int] | None = None, reviewers: int = 1
    ) -> None:
        self.path = Path(path)
        self.caps = dict(caps or {})
        self.reviewers = reviewers
        self._lock = threading.RLock()
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, timeout=30.0, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the review store {self.path}: {exc}") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            # Purged items and sessions are overwritten, whatever SQLite was built with.
            self._db.execute("PRAGMA secure_delete=ON")
            self.version = migrate(self._db)
        except NewerStoreError as exc:
            self._db.close()
            raise StoreError(f"{self.path}: {exc}") from None
        except sqlite3.Error as exc:
            self._db.close()
            raise StoreError(f"cannot use the review store {self.path}: {exc}") from None

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ReviewStore:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- items -----------------------------------------------------------------------------

    def add(self, items: Iterable[ReviewItem], *, now: datetime | None = None) -> AddResult:
        """Store ``items`` in one transaction: each new item ID once, within the day's caps.

        An item already stored (or already dropped by a cap) is a duplicate and changes
        nothing. A reason whose cap for the item's day is reached is dropped from the item
        and counted; an item left without reasons is not stored.
        """
        result = AddResult()
        received = (now or _now()).isoformat()
        with self._transaction() as db:
            for item in items:
                known = db.execute(
                    "SELECT 1 FROM items WHERE item_id = ? UNION ALL "
                    "SELECT 1 FROM capped_items WHERE item_id = ?",
                    (item.item_id, item.item_id),
                ).fetchone()
                if known is not None:
                    result.duplicates += 1
                    continue
                day = item.day.isoformat()
                kept: list[ReviewReason] = []
                for reason in item.reasons:
                    cap = self.caps.get(reason)
                    stored = db.execute(
                        "SELECT stored FROM day_counts WHERE day = ? AND reason = ?", (day, reason)
                    ).fetchone()
                    if cap is not None and (stored[0] if stored else 0) >= cap:
                        db.execute(
                            "INSERT INTO day_counts (day, reason, capped) VALUES (?, ?, 1) "
                            "ON CONFLICT (day, reason) DO UPDATE SET capped = capped + 1",
                            (day, reason),
                        )
                        result.capped_reasons[reason] = result.capped_reasons.get(reason, 0) + 1
                    else:
                        kept.append(reason)
                if not kept:
                    db.execute(
                        "INSERT INTO capped_items (item_id, day) VALUES (?, ?)", (item.item_id, day)
                    )
                    result.capped += 1
                    continue
                if kept != item.reasons:
                    item = item.model_copy(
                        update={"reasons": kept, "priority": PRIORITY[kept[0]] + item.importance}
                    )
                insert_item(db, item, received)
                for reason in kept:
                    db.execute(
                        "INSERT INTO day_counts (day, reason, stored) VALUES (?, ?, 1) "
                        "ON CONFLICT (day, reason) DO UPDATE SET stored = stored + 1",
                        (day, reason),
                    )
                result.stored += 1
        return result

    def item(self, item_id: str) -> ReviewItem | None:
        """The stored item, or None."""
        rows = self._query("SELECT packet FROM items WHERE item_id = ?", (item_id,))
        return ReviewItem.model_validate_json(rows[0][0]) if rows else None

    def items(self) -> list[ReviewItem]:
        """Every stored item, in queue order."""
        rows = self._query("SELECT packet FROM items ORDER BY priority DESC, received_at, item_id")
        return [ReviewItem.model_validate_json(row[0]) for row in rows]

    def queue(self, reviewer: str, *, limit: int = 50) -> list[ReviewItem]:
        """The items ``reviewer`` can label next, by priority: not labelled (or skipped) by
        them, not yet labelled by enough reviewers, not adjudicated."""
        rows = self._query(
            "SELECT i.packet FROM items AS i "
            "WHERE NOT EXISTS (SELECT 1 FROM effective_labels AS e "
            "                  WHERE e.item_id = i.item_id AND e.reviewer = ?) "
            "AND (SELECT COUNT(*) FROM effective_labels AS e "
            "     WHERE e.item_id = i.item_id AND e.label != 'skip') < ? "
            "AND NOT EXISTS (SELECT 1 FROM labels AS a "
            "                WHERE a.item_id = i.item_id AND a.adjudication = 1) "
            "ORDER BY i.priority DESC, i.received_at, i.item_id LIMIT ?",
            (reviewer, self.reviewers, limit),
        )
        return [ReviewItem.model_validate_json(row[0]) for row in rows]

    def queue_depth(self) -> dict[str, int]:
        """Open items (not yet labelled by enough reviewers, not adjudicated) by reason."""
        rows = self._query(
            "SELECT r.reason, COUNT(*) FROM item_reasons AS r "
            "WHERE (SELECT COUNT(*) FROM effective_labels AS e "
            "       WHERE e.item_id = r.item_id AND e.label != 'skip') < ? "
            "AND NOT EXISTS (SELECT 1 FROM labels AS a "
            "                WHERE a.item_id = r.item_id AND a.adjudication = 1) "
            "GROUP BY r.reason",
            (self.reviewers,),
        )
        depth = dict.fromkeys(get_args(ReviewReason), 0)
        depth.update({reason: count for reason, count in rows})
        return depth

    def day_counts(self) -> dict[tuple[str, str], tuple[int, int]]:
        """(day, reason) -> (stored, capped)."""
        rows = self._query("SELECT day, reason, stored, capped FROM day_counts")
        return {(day, reason): (stored, capped) for day, reason, stored, capped in rows}

    # -- labels ----------------------------------------------------------------------------

    def issue_form(self, item_id: str, reviewer: str, *, now: datetime | None = None) -> str:
        """A one-time token for one label form of ``reviewer`` on ``item_id`` (the one issued
        before while it is unspent, so a page view does not write)."""
        when = now or _now()
        with self._lock:
            found = _forms.reusable(self._db, item_id=item_id, reviewer=reviewer, now=when)
        if found is not None:
            return found
        with self._transaction() as db:
            return _forms.issue(db, item_id=item_id, reviewer=reviewer, now=when)

    def add_label(
        self,
        *,
        item_id: str,
        reviewer: str,
        label: str,
        form_token: str | None,
        failure_type: str | None = None,
        note: str | None = None,
        adjudication: bool = False,
        now: datetime | None = None,
    ) -> int:
        """Write one label; returns its ID. The form token is spent in the same transaction.

        Raises :class:`LabelValueError` (a label, reviewer, failure type or note that is not
        acceptable), :class:`UnknownItemError`, :class:`FormTokenError` (no such token, or
        one issued for another item or reviewer, or expired), :class:`ReplayedFormError`
        (the token was already spent) or :class:`AdjudicationError` (an adjudication of an
        item not disputed, or by one of its reviewers); nothing is written then.
        """
        label, reviewer, failure_type, note = checked_label(
            label=label, reviewer=reviewer, failure_type=failure_type, note=note
        )
        when = now or _now()
        with self._transaction() as db:
            if db.execute("SELECT 1 FROM items WHERE item_id = ?", (item_id,)).fetchone() is None:
                raise UnknownItemError(f"no review item {item_id!r}")
            if adjudication:
                latest = latest_labels(self.labels(item_id)).get(item_id)
                refusal = adjudication_refusal(latest, reviewer)
                if refusal is not None:
                    raise AdjudicationError(refusal)
            if form_token is not None:
                _forms.spend(db, form_token, item_id=item_id, reviewer=reviewer, now=when)
            cursor = db.execute(
                "INSERT INTO labels (item_id, reviewer, label, failure_type, note, "
                "adjudication, created_at, form_token) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    item_id,
                    reviewer,
                    label,
                    failure_type,
                    note,
                    int(adjudication),
                    when.isoformat(),
                    form_token,
                ),
            )
            label_id = cursor.lastrowid
        assert label_id is not None
        logger.debug("label %d on item %s", label_id, item_id)
        return label_id

    def labels(self, item_id: str | None = None) -> list[LabelRow]:
        """Every label written (of one item, or all), oldest first."""
        sql = (
            "SELECT label_id, item_id, reviewer, label, failure_type, note, adjudication, "
            "created_at FROM labels"
        )
        args: tuple[Any, ...] = ()
        if item_id is not None:
            sql += " WHERE item_id = ?"
            args = (item_id,)
        rows = self._query(sql + " ORDER BY label_id", args)
        return [
            LabelRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), datetime.fromisoformat(r[7]))
            for r in rows
        ]

    def final_labels(self) -> list[FinalLabel]:
        """Items whose label is settled: adjudicated, or labelled alike by at least the
        required number of reviewers (skips do not count)."""
        out = []
        for item_id, latest in latest_labels(self.labels()).items():
            final = settled_label(latest, self.reviewers)
            if final is None:
                continue
            item = self.item(item_id)
            if item is None or final.label == "skip":
                continue
            out.append(
                FinalLabel(
                    item=item,
                    label=final.label,
                    reviewers=tuple(sorted(answered(latest[0]))),
                    failure_type=final.failure_type,
                    adjudicated=final.adjudication,
                )
            )
        return out

    def disagreements(self) -> list[tuple[ReviewItem, dict[str, LabelRow]]]:
        """Items whose reviewers' latest labels differ and that no one has adjudicated."""
        out = []
        for item_id, (reviewers, decided) in sorted(latest_labels(self.labels()).items()):
            given = answered(reviewers)
            if decided is None and len({row.label for row in given.values()}) > 1:
                item = self.item(item_id)
                if item is not None:
                    out.append((item, given))
        return out

    def agreement(self) -> tuple[int, int]:
        """(items whose reviewers agree, items labelled by two or more reviewers)."""
        return agreement(latest_labels(self.labels()).values())

    def label_counts(self) -> dict[tuple[str, str], int]:
        """(UTC day, label) -> labels written that day."""
        rows = self._query(
            "SELECT substr(created_at, 1, 10), label, COUNT(*) FROM labels GROUP BY 1, 2"
        )
        return {(day, label): count for day, label, count in rows}

    # -- retention -------------------------------------------------------------------------

    def purge(self, *, older_than_days: float, now: datetime | None = None) -> int:
        """Delete items received more than ``older_than_days`` ago that carry no label, and
        form tokens and sessions as old; labelled items and labels are kept. The deleted
        text is overwritten in the file and the write-ahead log. Returns items deleted."""
        cutoff = ((now or _now()) - timedelta(days=older_than_days)).isoformat()
        with self._transaction() as db:
            stale = (
                "SELECT item_id FROM items WHERE received_at < ? AND item_id NOT IN "
                "(SELECT item_id FROM labels)"
            )
            db.execute(f"DELETE FROM item_reasons WHERE item_id IN ({stale})", (cutoff,))
            deleted = db.execute(
                f"DELETE FROM items WHERE item_id IN ({stale})", (cutoff,)
            ).rowcount
            db.execute("DELETE FROM form_tokens WHERE issued_at < ?", (cutoff,))
            db.execute("DELETE FROM sessions WHERE expires_at < ?", (cutoff,))
            db.execute("DELETE FROM capped_items WHERE day < ?", (cutoff[:10],))
        # The write-ahead log still holds the pages as they were before the delete: copy
        # it into the file (whose freed pages secure_delete zeroed) and empty it.
        busy = self._query("PRAGMA wal_checkpoint(TRUNCATE)")[0][0]
        if busy:
            logger.warning(
                "review purge: another connection was reading; the write-ahead log may keep "
                "the deleted text until its next checkpoint"
            )
        return int(deleted)


def item_json(item: ReviewItem) -> bytes:
    """The item as UTF-8 JSON (the review topic's value)."""
    return json.dumps(item.model_dump(mode="json"), ensure_ascii=False).encode("utf-8")
