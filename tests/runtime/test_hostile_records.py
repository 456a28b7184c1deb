"""The hostile corpus through `citewatch check` and `citewatch run --input`: no crash, every
neighbour evaluated, every hostile record reported with its reason and line number."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sidecar.cli import cli
from tests.hostile import EVALUATED, interleaved

CORPUS = interleaved()
EXPECTED_IDS = [case.trace_id for case in CORPUS if case.expected == EVALUATED]
EXPECTED_BAD = {
    number: case.expected
    for number, case in enumerate(CORPUS, start=1)
    if case.expected != EVALUATED
}


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "traces.jsonl"
    path.write_bytes(b"".join(case.value + b"\n" for case in CORPUS))
    return path


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["trace_id"] for line in path.read_text("utf-8").splitlines()]


def test_check_reports_each_hostile_line_and_evaluates_the_rest(
    corpus_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "evals.jsonl"
    result = CliRunner().invoke(
        cli,
        ["check", str(corpus_file), "--out", str(out), "--judge", "none"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert _ids(out) == EXPECTED_IDS
    reported = {
        int(number): reason
        for number, reason in re.findall(r"^line (\d+): (\w+):", result.stderr, flags=re.MULTILINE)
    }
    assert reported == EXPECTED_BAD
    assert "Traceback" not in result.stderr


def test_run_input_dead_letters_each_hostile_line_and_evaluates_the_rest(
    corpus_file: Path, tmp_path: Path
) -> None:
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--input",
            str(corpus_file),
            "--once",
            "--output",
            str(out),
            "--dead-letters",
            str(dead),
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
            "--judge",
            "none",
        ],
        env={"OPENAI_API_KEY": ""},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert _ids(out) == EXPECTED_IDS
    letters = [json.loads(line) for line in dead.read_text().splitlines()]
    assert {letter["line"]: letter["reason"] for letter in letters} == EXPECTED_BAD
    for letter in letters:
        assert "7777" not in letter["error"] and "PLACEHOLDER" not in letter["error"]
