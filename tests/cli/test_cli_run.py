"""`citewatch run --input`: the embedded default, and settings errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sidecar.cli import cli
from tests.support.factories import trace_dict

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"


def test_run_once_over_the_examples_writes_one_record_per_trace(tmp_path: Path) -> None:
    out, dead = tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    source = tmp_path / "in.jsonl"
    source.write_text(EXAMPLES.read_text() + "{truncated\n")
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--input",
            str(source),
            "--once",
            "--output",
            str(out),
            "--dead-letters",
            str(dead),
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        env={"OPENAI_API_KEY": ""},
    )
    assert result.exit_code == 0, result.output
    expected = [
        json.loads(line)["trace_id"] for line in EXAMPLES.read_text().splitlines() if line.strip()
    ]
    assert [json.loads(line)["trace_id"] for line in out.read_text().splitlines()] == expected
    [letter] = [json.loads(line) for line in dead.read_text().splitlines()]
    assert (letter["line"], letter["reason"]) == (len(expected) + 1, "not_json")


def test_run_reads_stdin_and_writes_stdout() -> None:
    line = json.dumps(trace_dict()) + "\n"
    result = CliRunner().invoke(
        cli,
        ["run", "--input", "-", "--metrics-port", "0", "--metrics-address", "127.0.0.1"],
        input=line,
        env={"OPENAI_API_KEY": ""},
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    assert [r["trace_id"] for r in records] == [trace_dict()["trace_id"]]


def test_invalid_settings_stop_start_up_with_one_line() -> None:
    result = CliRunner().invoke(
        cli, ["run", "--input", "-"], input="", env={"CITEWATCH_KAFKA_MAX_IN_FLIGHT": "0"}
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: invalid settings: kafka.max_in_flight: Input should be greater than 0"
    ]
