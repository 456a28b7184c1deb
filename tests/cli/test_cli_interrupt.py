"""Ctrl-C and the input's edges, in real processes: `check` and `run --input` exit 130 on
SIGINT keeping every record they wrote (whole lines, no traceback); `check` says when it
reads a terminal, and an input without traces is an error that leaves an earlier output."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from schemas import EvaluationRecord
from tests.cli.test_cli_summary import EXAMPLES, ROOT, citewatch, table_rows
from tests.support.factories import trace_dict
from tests.support.openai_server import FakeOpenAI

TERMINAL_HINT = (
    "citewatch check: reading traces from the terminal (standard input), one "
    "JSON object a line; end with Ctrl-D, or give a FILE"
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    env.update({"PYTHONPATH": str(ROOT), "COLUMNS": "100", **extra})
    return env


def _start(
    *args: str, env: dict[str, str], stdin: int | None = subprocess.DEVNULL, stderr: Path
) -> subprocess.Popen[bytes]:
    with open(stderr, "wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "sidecar.cli", *args],
            cwd=ROOT,
            env=env,
            stdin=stdin,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )


def _wait_until(condition: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def _interrupt(process: subprocess.Popen[bytes], timeout: float = 30.0) -> tuple[int, float]:
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        code = process.wait(timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, time.monotonic() - sent


def _assert_kept(out: Path, log: Path, traces: int) -> int:
    """Every line written is a whole evaluation record; the summary counts exactly them."""
    text = log.read_text()
    records = [EvaluationRecord.model_validate_json(line) for line in _lines(out)]
    assert 0 < len(records) < traces, text
    assert table_rows(text)["traces evaluated"] == (str(len(records)), "")
    assert "Traceback" not in text and "Aborted" not in text, text
    return len(records)


def test_ctrl_c_during_a_judged_check_exits_130_and_keeps_the_records(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "check.log"
    with FakeOpenAI(latency=0.3) as server:
        process = _start(
            "check",
            str(EXAMPLES),
            "--judge",
            "openai-chat",
            "--sample-rate",
            "1",
            "--concurrency",
            "1",
            "--output",
            str(out),
            env=_env(OPENAI_API_KEY="sk-test", CITEWATCH_JUDGE_BASE_URL=server.base_url),
            stderr=log,
        )
        _wait_until(lambda: len(_lines(out)) >= 3, "three records written")
        code, took = _interrupt(process)
    assert code == 130, log.read_text()
    assert took < 5.0
    written = _assert_kept(out, log, traces=35)
    read = table_rows(log.read_text())["lines read"][0]
    assert (
        f"citewatch check: stopped by a signal at line {read}: {written} record(s) "
        "written; traces still in evaluation and the rest of the input were not"
    ) in log.read_text()


def test_ctrl_c_while_check_waits_on_its_input_exits_at_once(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "check.log"
    process = _start(
        "check", "-", "--output", str(out), env=_env(), stdin=subprocess.PIPE, stderr=log
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(trace_dict()).encode() + b"\n")
    process.stdin.flush()  # and kept open: the next read blocks
    try:
        _wait_until(lambda: len(_lines(out)) == 1, "the first record written")
        code, took = _interrupt(process)
    finally:
        process.stdin.close()
    assert (code, took < 5.0) == (130, True), log.read_text()
    assert [EvaluationRecord.model_validate_json(x).trace_id for x in _lines(out)] == [
        trace_dict()["trace_id"]
    ]
    assert table_rows(log.read_text())["traces evaluated"] == ("1", "")


def test_ctrl_c_during_run_input_exits_130_and_keeps_the_records(tmp_path: Path) -> None:
    out, log = tmp_path / "out.jsonl", tmp_path / "run.log"
    with FakeOpenAI(latency=0.3) as server:
        process = _start(
            "run",
            "--input",
            str(EXAMPLES),
            "--once",
            "--output",
            str(out),
            "--judge",
            "openai-chat",
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
            env=_env(
                OPENAI_API_KEY="sk-test",
                CITEWATCH_SAMPLING_RATE="1",
                CITEWATCH_INPUT_CONCURRENCY="1",
                CITEWATCH_JUDGE_BASE_URL=server.base_url,
            ),
            stderr=log,
        )
        _wait_until(lambda: len(server.recorded()) >= 3, "three judge requests")
        code, _ = _interrupt(process)
    assert code == 130, log.read_text()
    _assert_kept(out, log, traces=35)
    assert "citewatch run: stopped by Ctrl-C after line" in log.read_text()


def test_check_says_when_it_reads_a_terminal(tmp_path: Path) -> None:
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "sidecar.cli", "check", "-"],
        cwd=ROOT,
        env=_env(),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 30.0)
        assert ready, "no word on stderr while waiting on the terminal"
        first = process.stderr.readline().decode()
        os.write(master, json.dumps(trace_dict()).encode() + b"\n\x04")  # a line, then Ctrl-D
        stdout, stderr = process.communicate(timeout=60)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert (process.returncode, first.rstrip("\n")) == (0, TERMINAL_HINT)
    assert [json.loads(line)["trace_id"] for line in stdout.decode().splitlines()] == [
        trace_dict()["trace_id"]
    ]
    assert TERMINAL_HINT not in stderr.decode()  # said once


def test_check_of_a_pipe_or_file_says_nothing_of_terminals(tmp_path: Path) -> None:
    result = citewatch("check", str(EXAMPLES), "--output", str(tmp_path / "o.jsonl"))
    assert result.returncode == 0 and "terminal" not in result.stderr


def test_an_input_without_traces_is_exit_2_and_keeps_the_earlier_output(tmp_path: Path) -> None:
    empty, out = tmp_path / "empty.jsonl", tmp_path / "evaluations.jsonl"
    empty.write_text("\n  \n")
    out.write_text("earlier\n")
    result = citewatch("check", str(empty), "--output", str(out))
    assert (result.returncode, result.stderr.strip()) == (
        2,
        (f"Error: no traces in {empty}: the input is empty ({out} left as it was)"),
    )
    assert out.read_text() == "earlier\n"
    piped = subprocess.run(
        [sys.executable, "-m", "sidecar.cli", "check", "-"],
        cwd=ROOT,
        env=_env(),
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (piped.returncode, piped.stderr.strip(), piped.stdout) == (
        2,
        "Error: no traces in standard input: the input is empty",
        "",
    )


def test_check_help_documents_the_exit_codes() -> None:
    result = citewatch("check", "--help")
    text = " ".join(result.stdout.split())
    assert "an input with no trace at all" in text and "130 stopped by Ctrl-C" in text
