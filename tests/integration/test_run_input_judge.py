"""`citewatch run --input FILE --once` with a real local OpenAI-compatible judge: the end of
the input is not a shutdown, an API key in the environment chooses no judge, and a signal
is the only thing that uses the shutdown deadline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.openai_server import FakeOpenAI
from tests.support.servers import free_port

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
TRACE_IDS = [
    json.loads(line)["trace_id"] for line in EXAMPLES.read_text().splitlines() if line.strip()
]


def _run(*args: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    full_env.update({"PYTHONPATH": str(ROOT), **env})
    with open(log, "wb") as stderr:
        return subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from sidecar.cli import main; sys.exit(main())",
                "run",
                "--metrics-port",
                "0",
                "--metrics-address",
                "127.0.0.1",
                *args,
            ],
            env=full_env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def _finish(process: subprocess.Popen[bytes], timeout: float = 120.0) -> int:
    try:
        return process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _records(out: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def _judged(base_url: str) -> dict[str, str]:
    return {
        "OPENAI_API_KEY": "sk-test",
        "CITEWATCH_JUDGE_BASE_URL": base_url,
        "CITEWATCH_SAMPLING_RATE": "1",
    }


def test_an_api_key_in_the_environment_alone_calls_no_llm(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "run.log"
    with FakeOpenAI() as server:
        env = {"OPENAI_API_KEY": "sk-in-the-shell", "OPENAI_BASE_URL": server.base_url}
        code = _finish(
            _run("--input", str(EXAMPLES), "--once", "--output", str(out), env=env, log=log)
        )
        requests = len(server.recorded())
    text = log.read_text()
    assert (code, requests) == (0, 0), text
    assert {r["judge"]["judge"] for r in _records(out) if r["judge"]} == {"lexical"}
    first = text.splitlines()[0]
    assert "judge lexical (offline), the default: no --judge or judge.backend given" in first
    assert "the API key that is set selects no LLM judge" in first


def test_end_of_input_waits_for_a_slow_judge_and_writes_every_record(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "run.log"
    # A shutdown deadline far shorter than one judge call: the end of the file must not use it.
    with FakeOpenAI(latency=3.0) as server:
        code = _finish(
            _run(
                "--input",
                str(EXAMPLES),
                "--once",
                "--output",
                str(out),
                "--judge",
                "openai-chat",
                "--shutdown-deadline",
                "1",
                env=_judged(server.base_url),
                log=log,
            )
        )
        requests = len(server.recorded())
    text = log.read_text()
    assert code == 0, text
    records = _records(out)
    assert [r["trace_id"] for r in records] == TRACE_IDS
    judged = [r for r in records if r["judged"]]
    assert requests > 0 and len(judged) >= requests
    assert {r["judge"]["outcome"] for r in judged} == {"ok"}  # type: ignore[index]
    assert "as --judge or judge.backend names it" in text.splitlines()[0]
    assert "abandoned" not in text and "not written" not in text


def test_an_unreachable_judge_still_writes_every_record_with_its_findings(
    tmp_path: Path,
) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "run.log"
    process = _run(
        "--input",
        str(EXAMPLES),
        "--once",
        "--output",
        str(out),
        "--judge",
        "openai-chat",
        "--shutdown-deadline",
        "1",
        env=_judged(f"http://127.0.0.1:{free_port()}/v1"),
        log=log,
    )
    code = _finish(process)
    text = log.read_text()
    assert code == 3, text  # the judge failed on every call it was asked to make
    records = _records(out)
    assert [r["trace_id"] for r in records] == TRACE_IDS
    assert all(isinstance(r["findings"], list) for r in records)
    assert sum(len(r["findings"]) for r in records) > 0  # type: ignore[arg-type]
    assert "judge failed on" in text and "abandoned" not in text
    # One warning for the whole outage, not one per trace.
    assert sum(" WARNING " in line for line in text.splitlines()) <= 1, text


def test_a_signal_uses_the_shutdown_deadline_and_says_its_real_figures(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "run.log"
    with FakeOpenAI(latency=30.0) as server:
        process = _run(
            "--input",
            str(EXAMPLES),
            "--once",
            "--output",
            str(out),
            "--judge",
            "openai-chat",
            "--shutdown-deadline",
            "2",
            env=_judged(server.base_url),
            log=log,
        )
        deadline = time.monotonic() + 60
        while not server.recorded():
            assert time.monotonic() < deadline and process.poll() is None, log.read_text()
            time.sleep(0.05)
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = _finish(process, 30)
        took = time.monotonic() - sent
    text = log.read_text()
    assert code == 1, text
    assert took < 2.0 + 1.0, text
    assert "line(s) read but not written (still in evaluation 1.2s after the signal" in text
    assert "shutdown deadline 2s" in text
    assert len(_records(out)) < len(TRACE_IDS)
