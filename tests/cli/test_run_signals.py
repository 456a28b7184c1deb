"""SIGTERM in every state of `citewatch run`: during start-up with the broker unreachable,
and during a record that keeps a stage busy. The process ends within the deadline."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.support.factories import trace_dict

ROOT = Path(__file__).resolve().parents[2]


def _citewatch(*args: str, env: dict[str, str] | None = None, log: Path) -> subprocess.Popen[bytes]:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    full_env.update({"OPENAI_API_KEY": "", "PYTHONPATH": str(ROOT), **(env or {})})
    with open(log, "wb") as stderr:
        return subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from sidecar.cli import main; sys.exit(main())",
                "-v",
                "run",
                "--metrics-port",
                "0",
                "--metrics-address",
                "127.0.0.1",
                "--judge",
                "none",
                *args,
            ],
            env=full_env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def _wait_for(log: Path, text: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        assert time.monotonic() < deadline, f"{text!r} never logged:\n{log.read_text()}"
        time.sleep(0.05)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sigterm_while_the_broker_is_unreachable_at_start_up(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    process = _citewatch("--bootstrap-servers", f"127.0.0.1:{_closed_port()}", log=log)
    try:
        _wait_for(log, "connecting to Kafka at")
        time.sleep(1.0)  # into the client constructors' blocking bootstrap
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = process.wait(30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (code, took < 2.0) == (0, True), log.read_text()


def test_an_unreachable_cluster_exits_2_after_the_start_up_wait_with_one_line(
    tmp_path: Path,
) -> None:
    log = tmp_path / "run.log"
    port = _closed_port()
    process = _citewatch(
        "--bootstrap-servers",
        f"127.0.0.1:{port}",
        log=log,
        env={"CITEWATCH_KAFKA_STARTUP_WAIT_SECONDS": "2"},
    )
    try:
        code = process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    lines = log.read_text().splitlines()
    assert code == 2, lines
    [error] = [line for line in lines if line.startswith("Error:")]
    assert re.fullmatch(
        rf"Error: cannot reach Kafka at 127\.0\.0\.1:{port} within 2s \([\w ]+\); start the "
        r"broker, correct kafka\.bootstrap_servers, or pass --wait-for-kafka to keep trying",
        error,
    ), lines
    # kafka-python's own connection errors stay out of the operator's log (-v: INFO).
    assert not [
        line for line in lines if re.search(r" (DEBUG|INFO|WARNING|ERROR|CRITICAL) kafka[.:]", line)
    ], lines
    assert sum(" WARNING " in line or " ERROR " in line for line in lines) <= 1, lines


def test_wait_for_kafka_keeps_trying_past_the_start_up_wait(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    process = _citewatch(
        "--bootstrap-servers",
        f"127.0.0.1:{_closed_port()}",
        "--wait-for-kafka",
        log=log,
        env={"CITEWATCH_KAFKA_STARTUP_WAIT_SECONDS": "1"},
    )
    try:
        _wait_for(log, "waiting as long as it takes")
        time.sleep(4.0)
        still_running = process.poll() is None
        process.send_signal(signal.SIGTERM)
        code = process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (still_running, code) == (True, 0), log.read_text()


def test_sigterm_during_a_busy_record_from_a_file_ends_within_the_deadline(
    tmp_path: Path,
) -> None:
    source, out, log = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "run.log"
    source.write_text(
        "".join(
            json.dumps(trace_dict(trace_id=f"{i + 1:032x}", question=question)) + "\n"
            for i, question in enumerate(["fine", "SLOW-STAGE", "fine too"])
        )
    )
    deadline = 3.0
    process = _citewatch(
        "--input",
        str(source),
        "--output",
        str(out),
        "--shutdown-deadline",
        str(deadline),
        env={
            "CITEWATCH_REDACTION_NER_DETECTOR": "tests.integration.slow_detector:SlowDetector",
            "CITEWATCH_RUNTIME_SLOW_RECORD_SECONDS": "0.5",
        },
        log=log,
    )
    try:
        _wait_for(log, "still in evaluation after")
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        code = process.wait(60)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text()
    # Lines were read but not written: that is a loss, so the exit says so.
    assert code == 1, text
    assert took < deadline + 0.5, text
    assert "line(s) read but not written" in text and "SLOW-STAGE" not in text
