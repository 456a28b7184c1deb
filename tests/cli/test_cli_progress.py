"""`citewatch run --input` shows a progress bar on a terminal, as `citewatch check` does: for a
file of over 2,000 lines read to its end, or when asked; never into a pipe or a log file."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli_summary import EXAMPLES, ROOT, citewatch

_RUN = ["--once", "--metrics-port", "0", "--metrics-address", "127.0.0.1"]


def _big(tmp_path: Path) -> tuple[Path, int]:
    """The examples 61 times over: 2,135 lines, over the bar's 2,000."""
    source = tmp_path / "big.jsonl"
    lines = EXAMPLES.read_text().splitlines() * 61
    source.write_text("\n".join(lines) + "\n")
    return source, len(lines)


def _on_a_terminal(*args: str) -> tuple[int, str]:
    """Run the CLI with stderr on a terminal; its exit code and all it wrote there."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CITEWATCH_", "OPENAI_"))}
    process = subprocess.Popen(
        [sys.executable, "-m", "sidecar.cli", *args],
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT), "COLUMNS": "100"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
    )
    os.close(slave)
    written = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120.0)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal closed with the process
                break
            if not chunk:
                break
            written += chunk
        code = process.wait(timeout=60)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
            process.wait()
    return code, written.decode(errors="replace")


def test_run_of_a_large_file_shows_its_progress_on_a_terminal(tmp_path: Path) -> None:
    source, lines = _big(tmp_path)
    code, stderr = _on_a_terminal(
        "run", "--input", str(source), "--output", str(tmp_path / "o"), *_RUN
    )
    assert code == 0, stderr[-2000:]
    assert "evaluating" in stderr and f"/{lines}" in stderr


@pytest.mark.parametrize(
    ("flag", "shown"),
    [pytest.param("--progress", True, id="asked"), pytest.param("--no-progress", False, id="off")],
)
def test_run_progress_can_be_asked_for_or_turned_off(
    tmp_path: Path, flag: str, shown: bool
) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text(EXAMPLES.read_text())
    if flag == "--no-progress":
        small, _ = _big(tmp_path)
    code, stderr = _on_a_terminal(
        "run", "--input", str(small), "--output", str(tmp_path / "o"), flag, *_RUN
    )
    assert code == 0, stderr[-2000:]
    assert ("evaluating" in stderr) is shown


def test_run_into_a_pipe_shows_no_bar(tmp_path: Path) -> None:
    source, lines = _big(tmp_path)
    result = citewatch("run", "--input", str(source), "--output", str(tmp_path / "o"), *_RUN)
    assert result.returncode == 0, result.stderr
    assert "evaluating" not in result.stderr and "\x1b[" not in result.stderr
