"""The file runtime reads none of the Kafka settings: what it shares with the Kafka runtime
is in ``runtime.*``."""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from sidecar.runtime import FileRuntime, FileSummary, build_runtime
from tests.support.factories import trace_dict


class _NoKafka:
    """Stands in for ``settings.kafka``: remembers every field asked for, and has none."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def __getattr__(self, name: str) -> Any:
        self.read.append(name)
        raise AttributeError(f"the file runtime read kafka.{name}")


def _file_settings(tmp_path: Path) -> Settings:
    source = tmp_path / "in.jsonl"
    lines = [json.dumps(trace_dict(trace_id=f"{i + 1:032x}")) for i in range(3)]
    lines.insert(1, "not json")
    lines.append(lines[0])  # a replay: the dedup window must see it
    source.write_text("\n".join(lines) + "\n")
    return Settings(
        input={
            "path": str(source),
            "output": str(tmp_path / "out.jsonl"),
            "dead_letters": str(tmp_path / "dlt.jsonl"),
            "once": True,
        },
        runtime={"dedup_window": 8, "shutdown_deadline_seconds": 3},
    )


def test_the_file_runtime_runs_without_reading_a_kafka_setting(tmp_path: Path) -> None:
    settings = _file_settings(tmp_path)
    tripwire = _NoKafka()
    # model_copy does not validate: the copy's kafka section is the tripwire.
    without_kafka = settings.model_copy(update={"kafka": tripwire})
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry)
    runtime = build_runtime(
        without_kafka, pipeline=build_pipeline(without_kafka), metrics=metrics, registry=registry
    )
    assert isinstance(runtime, FileRuntime)
    result = runtime.run(threading.Event())
    assert tripwire.read == []
    assert result.summary == FileSummary(
        lines=5, evaluated=3, dead_lettered=1, duplicates=1, bad=Counter({"not_json": 1})
    )
    assert (runtime.ready(), runtime.live()) == (False, True)


def test_the_tripwire_catches_a_kafka_read(tmp_path: Path) -> None:
    """The check above can fail: a read of a kafka.* field is recorded, whoever catches
    the AttributeError it raises."""
    tripwire = _NoKafka()
    copied = _file_settings(tmp_path).model_copy(update={"kafka": tripwire})
    try:
        copied.kafka.dedup_window  # noqa: B018 - the read is the point
    except AttributeError:
        pass
    assert tripwire.read == ["dedup_window"]
