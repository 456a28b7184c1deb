"""The file source: records in input order, bad lines dead-lettered, following a file."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from collections import Counter
from pathlib import Path

from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from sidecar.config import Settings
from sidecar.pipeline import Pipeline
from sidecar.runtime.filesource import FileRunner, FileSummary, JsonLinesSink
from sidecar.runtime.lines import LineSource
from tests.support.factories import trace_dict


def _line(i: int) -> bytes:
    return json.dumps(trace_dict(trace_id=f"{i + 1:032x}")).encode() + b"\n"


def _runner(
    source: io.BufferedIOBase | io.BytesIO, *, once: bool = True, **input_settings: object
) -> tuple[FileRunner, io.StringIO, io.StringIO, CollectorRegistry]:
    settings = Settings(input={"follow_interval_seconds": 0.01, "concurrency": 4, **input_settings})
    registry = CollectorRegistry()
    out, dead = io.StringIO(), io.StringIO()
    lines = LineSource(
        source,
        follow=not once,  # type: ignore[arg-type]
        interval=settings.input.follow_interval_seconds,
    )
    runner = FileRunner(
        settings=settings,
        pipeline=Pipeline(settings),
        metrics=CitewatchMetrics(registry=registry),
        source=lines,
        sink=JsonLinesSink(out, dead),
    )
    return runner, out, dead, registry


def test_records_in_input_order_and_bad_lines_with_numbers() -> None:
    data = (
        _line(0)
        + b"not json\n"
        + _line(1)
        + b"\n"
        + b"\xff\xfe\n"
        + _line(0)
        + _line(2).rstrip(b"\n")
    )
    runner, out, dead, registry = _runner(io.BytesIO(data))
    summary = asyncio.run(runner.run(threading.Event()))
    assert summary == FileSummary(
        lines=7,
        evaluated=3,
        dead_lettered=2,
        duplicates=1,
        bad=Counter({"not_json": 1, "not_utf8": 1}),
    )
    assert [json.loads(line)["trace_id"] for line in out.getvalue().splitlines()] == [
        f"{i + 1:032x}" for i in range(3)
    ]
    letters = [json.loads(line) for line in dead.getvalue().splitlines()]
    assert [(d["line"], d["reason"], d["value"]) for d in letters] == [
        (2, "not_json", "not json"),
        (5, "not_utf8", "\ufffd\ufffd"),
    ]
    assert registry.get_sample_value("citewatch_dead_letters_total", {"reason": "not_utf8"}) == 1
    assert (
        registry.get_sample_value(
            "citewatch_traces_total", {"app": "other", "outcome": "duplicate"}
        )
        == 1
    )


def test_follow_mode_picks_up_appended_lines_until_stopped(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_bytes(_line(0))
    stop = threading.Event()
    with open(path, "rb") as source:
        runner, out, _, _ = _runner(source, once=False)

        async def scenario() -> FileSummary:
            task = asyncio.ensure_future(runner.run(stop))
            while "00000000000000000000000000000001" not in out.getvalue():
                await asyncio.sleep(0.01)
            assert runner.ready()
            with open(path, "ab") as writer:
                writer.write(_line(1)[:20])  # a line half written is not read yet
                writer.flush()
                await asyncio.sleep(0.05)
                writer.write(_line(1)[20:])
            while "00000000000000000000000000000002" not in out.getvalue():
                await asyncio.sleep(0.01)
            stop.set()
            return await task

        summary = asyncio.run(asyncio.wait_for(scenario(), 10))
    assert summary == FileSummary(lines=2, evaluated=2)
    assert not runner.ready()
