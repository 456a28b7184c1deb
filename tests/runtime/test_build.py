"""build_runtime chooses the runtime from the settings; any TraceSource runs through it."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import warnings
from collections import Counter
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.pipeline import Pipeline
from sidecar.runtime import (
    FileRuntime,
    FileSummary,
    JsonLinesSink,
    KafkaRuntime,
    Runtime,
    build_runtime,
)
from sidecar.runtime.ordered import IDLE
from tests.support.factories import trace_dict

with warnings.catch_warnings():  # kafka-python 3.0's import warns on Python 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    import kafka  # noqa: F401


def _raw(i: int) -> bytes:
    return json.dumps(trace_dict(trace_id=f"{i + 1:032x}")).encode()


class QueueSource:
    """A trace source that is not a file: records handed over in memory, idle in between."""

    def __init__(self, batches: list[list[bytes]]) -> None:
        self.batches = batches

    async def records(self, stop: threading.Event) -> AsyncGenerator[tuple[int, bytes], None]:
        position = 0
        for batch in self.batches:
            for value in batch:
                position += 1
                yield position, value
            yield IDLE, b""
            await asyncio.sleep(0)


def _build(settings: Settings, **kwargs: object) -> tuple[Runtime, CollectorRegistry]:
    registry = CollectorRegistry()
    runtime = build_runtime(
        settings, pipeline=Pipeline(settings), metrics=CitewatchMetrics(registry=registry), **kwargs
    )  # type: ignore[arg-type]
    return runtime, registry


def test_a_new_trace_source_is_one_class_given_to_build_runtime() -> None:
    out, dead = io.StringIO(), io.StringIO()
    runtime, registry = _build(
        Settings(), source=QueueSource([[_raw(0), b"{"], [_raw(1)]]), sink=JsonLinesSink(out, dead)
    )
    assert isinstance(runtime, FileRuntime)
    result = runtime.run(threading.Event())
    assert (result.started, result.left_behind) == (True, False)
    assert result.summary == FileSummary(
        lines=3, evaluated=2, dead_lettered=1, bad=Counter({"not_json": 1})
    )
    assert [json.loads(line)["trace_id"] for line in out.getvalue().splitlines()] == [
        f"{1:032x}",
        f"{2:032x}",
    ]
    assert [json.loads(line)["line"] for line in dead.getvalue().splitlines()] == [2]
    assert registry.get_sample_value("citewatch_dead_letters_total", {"reason": "not_json"}) == 1


def test_input_path_runs_the_file_and_closes_what_it_opened(tmp_path: Path) -> None:
    source, output, dead = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "dlt"
    source.write_bytes(_raw(0) + b"\nnot json\n" + _raw(1) + b"\n")
    output.write_text("old\n")
    settings = Settings(
        input={"path": str(source), "output": str(output), "dead_letters": str(dead), "once": True}
    )
    runtime, _ = _build(settings)
    assert isinstance(runtime, FileRuntime)
    assert runtime.ready() is False  # not before the input is open
    result = runtime.run(threading.Event())
    assert result.summary == FileSummary(
        lines=3, evaluated=2, dead_lettered=1, bad=Counter({"not_json": 1})
    )
    assert len(output.read_text().splitlines()) == 2  # replaced, not appended
    assert json.loads(dead.read_text())["reason"] == "not_json"
    assert runtime.ready() is False  # the input is closed again


def test_append_keeps_what_the_output_held(tmp_path: Path) -> None:
    source, output = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_bytes(_raw(0) + b"\n")
    output.write_text("old\n")
    settings = Settings(input={"path": str(source), "output": str(output), "once": True})
    runtime, _ = _build(settings, append=True)
    runtime.run(threading.Event())
    assert output.read_text().splitlines()[0] == "old"
    assert len(output.read_text().splitlines()) == 2


def test_without_an_input_path_the_runtime_is_kafka_and_builds_no_client_yet() -> None:
    runtime, _ = _build(Settings(kafka={"bootstrap_servers": "127.0.0.1:1"}))
    assert isinstance(runtime, KafkaRuntime)
    assert runtime.runner is None
    assert (runtime.ready(), runtime.live()) == (False, True)


def test_a_stop_before_start_up_consumes_nothing() -> None:
    runtime, _ = _build(Settings(kafka={"bootstrap_servers": "127.0.0.1:1"}))
    stop = threading.Event()
    stop.set()
    assert runtime.run(stop).started is False


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        pytest.param(
            {"path": "/nonexistent/in.jsonl"},
            "cannot read /nonexistent/in.jsonl: No such file or directory",
            id="unreadable-input",
        ),
        pytest.param(
            {"path": "-", "output": "/nonexistent/out.jsonl"},
            "cannot write /nonexistent/out.jsonl: No such file or directory",
            id="unwritable-output",
        ),
    ],
)
def test_unusable_files_stop_start_up(settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _build(Settings(input=settings))
    assert str(caught.value) == message
