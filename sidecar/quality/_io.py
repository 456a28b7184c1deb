"""Reading evaluation records from a JSON Lines file or a directory of them."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from pathlib import Path

from pydantic import ValidationError

from schemas import EvaluationRecord
from sidecar.errors import CitewatchError, describe_validation_error

__all__ = ["RecordReadError", "read_records", "record_files"]

logger = logging.getLogger(__name__)

_SUFFIXES = (".jsonl", ".ndjson", ".json")


class RecordReadError(CitewatchError):
    """Evaluation records cannot be read: missing path, or nothing to read in it."""

    reason = "records"


def record_files(path: str | Path) -> list[Path]:
    """The file itself, or the JSON Lines files under a directory (recursively, sorted).

    Raises RecordReadError when the path does not exist or a directory holds no such file.
    """
    root = Path(path)
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise RecordReadError(f"{root}: no such file or directory")
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)
    if not files:
        raise RecordReadError(f"{root}: no .jsonl files of evaluation records")
    return files


def read_records(
    files: list[Path],
    *,
    strict: bool = False,
    on_bad_line: Callable[[Path, int], None] | None = None,
    on_file_done: Callable[[Path], None] | None = None,
    on_duplicate: Callable[[Path, int], None] | None = None,
) -> Iterator[EvaluationRecord]:
    """Every valid record in ``files``, the one reader of evaluation-record files.

    Bad lines are skipped and reported to ``on_bad_line(file, line_number)`` (and logged at
    DEBUG, without their content); with ``strict`` the first one raises RecordReadError
    naming its file, line and invalid fields. An unreadable file raises RecordReadError.

    With ``on_duplicate``, each trace counts once: a record whose (app, trace_id) was already
    read is skipped and reported to ``on_duplicate(file, line_number)``. The evaluations topic
    is at-least-once, so a dump of it may hold a trace twice; the first record read is kept.
    Memory grows with the number of distinct traces (a key of 16 bytes each).
    """
    seen: set[bytes] = set()
    for file in files:
        try:
            handle = open(file, encoding="utf-8", errors="replace")  # noqa: SIM115
        except OSError as exc:
            raise RecordReadError(f"cannot read {file}: {exc.strerror}") from None
        with handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = EvaluationRecord.model_validate_json(line)
                except ValidationError as exc:
                    if strict:
                        raise RecordReadError(
                            f"{file}:{number}: not an evaluation record "
                            f"({describe_validation_error(exc, root='record', limit=3)})"
                        ) from None
                    logger.debug("skipping line %d of %s: not an evaluation record", number, file)
                    if on_bad_line is not None:
                        on_bad_line(file, number)
                    continue
                if on_duplicate is not None:
                    key = _trace_key(record)
                    if key in seen:
                        on_duplicate(file, number)
                        continue
                    seen.add(key)
                yield record
        if on_file_done is not None:
            on_file_done(file)


def _trace_key(record: EvaluationRecord) -> bytes:
    """A fixed-size key of the trace a record evaluates (its app and trace_id)."""
    name = f"{len(record.app)}:{record.app}{record.trace_id}".encode("utf-8", "surrogatepass")
    return hashlib.blake2b(name, digest_size=16).digest()
