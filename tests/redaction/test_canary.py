"""Canary: a trace full of sensitive values goes through the pipeline; nothing leaks."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sidecar.assembly import build_pipeline
from sidecar.config import load_settings
from sidecar.judge import LexicalBackend
from sidecar.judge.packet import JudgePacket, unmark
from sidecar.judge.rubric import Rubric
from sidecar.judge.stage import JudgeStageImpl
from sidecar.pipeline import Pipeline
from sidecar.redaction import build_redactor
from tests.redaction._canary import RAW_VALUES, canary_trace, leaks


class RecordingBackend(LexicalBackend):
    """The lexical judge, keeping every request it receives as the API would see it."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> Any:
        self.requests.append(packet.render())
        return await super().judge(packet, rubric, timeout=timeout)


def test_the_canary_trace_holds_every_value_in_every_field() -> None:
    trace = canary_trace()
    assert leaks(trace.question) != [] and leaks(trace.claims[2].text) != []
    assert all(value in trace.sources[1].text for value in RAW_VALUES.values())


def test_nothing_leaks_from_pipeline_evaluate(caplog: pytest.LogCaptureFixture) -> None:
    settings = load_settings(overrides={"judge.backend": "lexical", "sampling.rate": 1.0})
    pipeline = build_pipeline(settings)
    with caplog.at_level(logging.DEBUG):
        record = asyncio.run(pipeline.evaluate(canary_trace()))
        deterministic = asyncio.run(replace(pipeline, judge=None).evaluate(canary_trace()))
    assert record.judged is True
    assert record.redactions["EMAIL"] >= 5
    assert set(RAW_VALUES) <= set(record.redactions)
    assert leaks(record.model_dump_json()) == []
    assert leaks(deterministic.model_dump_json()) == []
    assert leaks(caplog.text) == []


def test_nothing_leaks_from_citewatch_run(tmp_path: Path) -> None:
    source = tmp_path / "traces.jsonl"
    source.write_text(canary_trace().model_dump_json() + "\n", encoding="utf-8")
    output, dead = tmp_path / "evaluations.jsonl", tmp_path / "dead.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from sidecar.cli import main; main()",
            "-vv",
            "run",
            "--input",
            str(source),
            "--output",
            str(output),
            "--dead-letters",
            str(dead),
            "--once",
            "--judge",
            "lexical",
            "--sample-rate",
            "1.0",
            "--metrics-port",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    evaluations = output.read_text(encoding="utf-8")
    assert '"judged":true' in evaluations.replace(" ", "")
    captured = evaluations + proc.stdout + proc.stderr
    captured += dead.read_text(encoding="utf-8") if dead.exists() else ""
    assert leaks(captured) == []


def test_nothing_leaks_into_judge_requests() -> None:
    settings = load_settings(overrides={"sampling.rate": 1.0})
    backend = RecordingBackend()
    stage = JudgeStageImpl(
        backend, judge_settings=settings.judge, sampling_settings=settings.sampling
    )
    pipeline = Pipeline(settings, redactor=build_redactor(settings.redaction), judge=stage)
    record = asyncio.run(pipeline.evaluate(canary_trace()))
    assert record.judged is True and len(backend.requests) == 1
    # Read as the model reads it: the datamarks between words are spaces.
    assert leaks(unmark(backend.requests[0])) == []
