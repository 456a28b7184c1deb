"""The review store: migrations, items once by ID, per-day caps, immutable labels."""

from __future__ import annotations

import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from sidecar.review import (
    FormTokenError,
    LabelValueError,
    ReplayedFormError,
    ReviewStore,
    StoreError,
    UnknownItemError,
)
from sidecar.review._migrations import SCHEMA_VERSION, migrate
from tests.review._items import make_item


def _store(tmp_path: Path, **kwargs: object) -> ReviewStore:
    return ReviewStore(tmp_path / "review.sqlite", **kwargs)  # type: ignore[arg-type]


def test_a_new_store_is_wal_and_at_the_latest_schema_version(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        assert store.version == SCHEMA_VERSION == 3
    db = sqlite3.connect(tmp_path / "review.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("SELECT version FROM schema_version").fetchall() == [(3,)]


def test_an_older_store_is_migrated_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "review.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, target=1) == 1
    item = make_item(1)
    db.execute(
        "INSERT INTO items (item_id, trace_id, claim_id, app, day, priority, audit, "
        "importance, packet, received_at) VALUES (?, ?, 'c1', 'support', ?, 1, 1, 2, "
        "?, '2026-11-30T10:00:00+00:00')",
        (item.item_id, item.trace_id, item.day.isoformat(), item.model_dump_json()),
    )
    db.execute(
        "INSERT INTO labels (item_id, reviewer, label, created_at) VALUES "
        "(?, 'ann', 'supported', '2026-11-30T11:00:00+00:00')",
        (item.item_id,),
    )
    db.close()
    with ReviewStore(path) as store:
        assert store.version == 3
        assert store.item(item.item_id) == item
        assert [(r.reviewer, r.label) for r in store.labels()] == [("ann", "supported")]
        token = store.issue_form(item.item_id, "bob")  # the table migration 2 added
        store.add_label(item_id=item.item_id, reviewer="bob", label="partial", form_token=token)


def test_a_store_from_a_newer_citewatch_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "review.sqlite"
    _store(tmp_path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE schema_version SET version = 99")
    db.close()
    with pytest.raises(StoreError, match="schema version 99; this citewatch knows up to 3"):
        ReviewStore(path)


def test_items_are_stored_once_by_id(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        first = store.add([make_item(1), make_item(2)])
        again = store.add([make_item(2), make_item(1), make_item(3)])
        assert (first.stored, first.duplicates) == (2, 0)
        assert (again.stored, again.duplicates) == (1, 2)
        assert sorted(i.trace_id for i in store.items()) == [f"{n:032x}" for n in (1, 2, 3)]


def test_daily_caps_drop_reasons_then_items_and_count_them(tmp_path: Path) -> None:
    with _store(tmp_path, caps={"suspect": 2, "audit": 1}) as store:
        day1, day2 = date(2026, 11, 30), date(2026, 12, 1)
        items = [make_item(n, reasons=["suspect", "audit"], day=day1) for n in range(4)]
        result = store.add([*items, make_item(9, reasons=["suspect"], day=day2)])
        assert (result.stored, result.capped) == (3, 2)
        assert result.capped_reasons == {"suspect": 2, "audit": 3}
        kept = {i.trace_id: i.reasons for i in store.items()}
        assert kept == {
            f"{0:032x}": ["suspect", "audit"],
            f"{1:032x}": ["suspect"],
            f"{9:032x}": ["suspect"],
        }
        assert store.day_counts() == {
            ("2026-11-30", "suspect"): (2, 2),
            ("2026-11-30", "audit"): (1, 3),
            ("2026-12-01", "suspect"): (1, 0),
        }
        # An item dropped by a cap that arrives again is a duplicate, not a new drop.
        again = store.add([items[3]])
        assert (again.stored, again.duplicates, again.capped) == (0, 1, 0)


def test_labels_cannot_be_changed_or_deleted(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        store.add_label(
            item_id=item.item_id,
            reviewer="ann",
            label="supported",
            form_token=store.issue_form(item.item_id, "ann"),
        )
    db = sqlite3.connect(tmp_path / "review.sqlite")
    for statement in ("UPDATE labels SET label = 'unsupported'", "DELETE FROM labels"):
        with pytest.raises(sqlite3.IntegrityError, match="labels are immutable"):
            db.execute(statement)
    assert db.execute("SELECT label FROM labels").fetchall() == [("supported",)]


def _label(store: ReviewStore, item_id: str, reviewer: str, label: str, **kw: object) -> int:
    return store.add_label(
        item_id=item_id,
        reviewer=reviewer,
        label=label,
        form_token=store.issue_form(item_id, reviewer),
        **kw,
    )  # type: ignore[arg-type]


def test_a_correction_is_a_new_label_and_the_latest_counts(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        _label(store, item.item_id, "ann", "supported")
        _label(
            store,
            item.item_id,
            "ann",
            "partial",
            failure_type="half_supported",
            note="second half missing",
        )
        assert [r.label for r in store.labels(item.item_id)] == ["supported", "partial"]
        [final] = store.final_labels()
        assert (final.label, final.reviewers, final.failure_type) == (
            "partial",
            ("ann",),
            "half_supported",
        )


def test_two_reviewers_then_disagreement_then_adjudication(tmp_path: Path) -> None:
    with _store(tmp_path, reviewers=2) as store:
        a, b = make_item(1, reasons=["suspect"]), make_item(2)
        store.add([a, b])
        assert [i.item_id for i in store.queue("ann")] == [a.item_id, b.item_id]
        _label(store, a.item_id, "ann", "supported")
        _label(store, b.item_id, "ann", "unsupported")
        assert store.queue("ann") == []
        assert [i.item_id for i in store.queue("bob")] == [a.item_id, b.item_id]
        assert store.final_labels() == []
        assert store.queue_depth()["suspect"] == 1
        _label(store, a.item_id, "bob", "supported")
        _label(store, b.item_id, "bob", "partial")
        assert [(f.item.item_id, f.label, f.reviewers) for f in store.final_labels()] == [
            (a.item_id, "supported", ("ann", "bob"))
        ]
        assert store.agreement() == (1, 2)
        [(disputed, labels)] = store.disagreements()
        assert disputed.item_id == b.item_id
        assert {name: row.label for name, row in labels.items()} == {
            "ann": "unsupported",
            "bob": "partial",
        }
        _label(store, b.item_id, "cy", "unsupported", adjudication=True)
        assert store.disagreements() == []
        finals = {f.item.item_id: (f.label, f.adjudicated) for f in store.final_labels()}
        assert finals == {a.item_id: ("supported", False), b.item_id: ("unsupported", True)}
        assert store.queue("cy") == []
        assert store.queue_depth()["suspect"] == 0


def test_a_skip_leaves_the_item_for_other_reviewers(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        _label(store, item.item_id, "ann", "skip")
        assert store.queue("ann") == []
        assert [i.item_id for i in store.queue("bob")] == [item.item_id]
        assert store.final_labels() == []


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        pytest.param({"item_id": "0" * 32}, UnknownItemError, "no review item", id="unknown-item"),
        pytest.param({"label": "maybe"}, LabelValueError, "is not one of", id="bad-label"),
        pytest.param({"reviewer": " "}, LabelValueError, "reviewer name", id="no-reviewer"),
        pytest.param({"note": "x" * 2001}, LabelValueError, "note longer", id="long-note"),
        pytest.param(
            {"failure_type": "bad_vibes"},
            LabelValueError,
            "failure type",
            id="unknown-failure-type",
        ),
        pytest.param({"form_token": "forged"}, FormTokenError, "not issued", id="forged-form"),
        pytest.param(
            {"reviewer": "mallory"},
            FormTokenError,
            "another item or reviewer",
            id="someone-elses-form",
        ),
    ],
)
def test_bad_labels_are_refused_and_change_nothing(
    tmp_path: Path, change: dict[str, str], error: type[Exception], message: str
) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        args = {
            "item_id": item.item_id,
            "reviewer": "ann",
            "label": "supported",
            "form_token": store.issue_form(item.item_id, "ann"),
            **change,
        }
        with pytest.raises(error, match=message):
            store.add_label(**args)  # type: ignore[arg-type]
        assert store.labels() == []
        # The form was not spent by the refused post.
        store.add_label(
            item_id=item.item_id,
            reviewer="ann",
            label="supported",
            form_token=args["form_token"]
            if "form_token" not in change
            else store.issue_form(item.item_id, "ann"),
        )
        assert len(store.labels()) == 1


def test_a_replayed_form_writes_nothing(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        token = store.issue_form(item.item_id, "ann")
        store.add_label(item_id=item.item_id, reviewer="ann", label="supported", form_token=token)
        with pytest.raises(ReplayedFormError, match="already submitted"):
            store.add_label(
                item_id=item.item_id, reviewer="ann", label="unsupported", form_token=token
            )
        assert [r.label for r in store.labels()] == ["supported"]


def test_an_expired_form_is_refused(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        item = make_item(1)
        store.add([item])
        then = datetime(2026, 11, 30, tzinfo=UTC)
        token = store.issue_form(item.item_id, "ann", now=then)
        with pytest.raises(FormTokenError, match="expired"):
            store.add_label(
                item_id=item.item_id,
                reviewer="ann",
                label="supported",
                form_token=token,
                now=then + timedelta(hours=13),
            )
        assert store.labels() == []


def test_purge_deletes_old_unlabelled_items_only(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        old = datetime(2026, 1, 1, tzinfo=UTC)
        store.add([make_item(1), make_item(2)], now=old)
        store.add([make_item(3)])
        labelled = make_item(1).item_id
        _label(store, labelled, "ann", "supported")
        assert store.purge(older_than_days=30) == 1
        assert sorted(i.item_id for i in store.items()) == sorted([labelled, make_item(3).item_id])
        assert len(store.labels()) == 1


@pytest.mark.parametrize("secure_delete", [True, False], ids=["secure-delete", "sqlite-default"])
def test_purged_text_is_gone_from_the_files(tmp_path: Path, secure_delete: bool) -> None:
    marker = "Purgeable-passage-" + "q" * 40
    item = make_item(7, passages=[{"source_id": "S1", "text": marker * 20}])
    with _store(tmp_path) as store:
        store.add([item], now=datetime(2026, 1, 1, tzinfo=UTC))
        if not secure_delete:
            # What SQLite does when built without SQLITE_SECURE_DELETE: freed pages keep
            # their bytes.
            store._query("PRAGMA secure_delete=OFF")
        assert store.purge(older_than_days=30) == 1
        # Read while the store is open: the write-ahead log is there too.
        files = [p for p in tmp_path.iterdir() if p.name.startswith("review.sqlite")]
        found = any(marker.encode() in p.read_bytes() for p in files)
    assert found is not secure_delete
