"""An input with no trace in it, through the CLI: `check` and `run --input --once` exit 2,
leave an earlier --output as it was, and when the lines are records of another input format,
say which one reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli_summary import ROOT, citewatch, table_rows

INPUTS = ROOT / "examples" / "inputs"
FORMATS = ["openai_responses", "openai_chat", "anthropic_messages", "otlp_json"]


def _command(name: str, source: Path, out: Path) -> list[str]:
    if name == "check":
        return ["check", str(source), "--output", str(out)]
    return ["run", "--input", str(source), "--once", "--output", str(out), "--metrics-port", "0"]


@pytest.mark.parametrize("command", ["check", "run"])
def test_every_line_bad_is_exit_2_and_keeps_the_earlier_output(
    tmp_path: Path, command: str
) -> None:
    bad, out = tmp_path / "bad.jsonl", tmp_path / "evaluations.jsonl"
    bad.write_text('{"trace_id": 7}\nnot json\n\n')
    out.write_text("earlier\n")
    result = citewatch(*_command(command, bad, out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"Error: no traces in {bad}: every line is bad (invalid_trace 1, not_json 1) "
        f"({out} left as it was)"
    )
    assert out.read_text() == "earlier\n"
    rows = table_rows(result.stderr)
    assert rows["traces evaluated"] == ("0", "")


def test_run_of_an_empty_input_is_exit_2_and_keeps_the_earlier_output(tmp_path: Path) -> None:
    empty, out = tmp_path / "empty.jsonl", tmp_path / "evaluations.jsonl"
    empty.write_text("\n")
    out.write_text("earlier\n")
    result = citewatch(*_command("run", empty, out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"Error: no traces in {empty}: the input is empty ({out} left as it was)"
    )
    assert out.read_text() == "earlier\n"


def test_run_with_traces_replaces_the_earlier_output(tmp_path: Path) -> None:
    out = tmp_path / "evaluations.jsonl"
    out.write_text("earlier\n")
    result = citewatch(*_command("run", ROOT / "examples" / "traces.jsonl", out))
    assert result.returncode == 0, result.stderr
    assert "earlier" not in out.read_text() and len(out.read_text().splitlines()) == 36


@pytest.mark.parametrize(
    ("command", "input_format"),
    [
        *(pytest.param("check", name, id=f"check-{name}") for name in FORMATS),
        pytest.param("run", "openai_chat", id="run-openai_chat"),
    ],
)
def test_a_file_of_another_format_names_the_format_that_reads_it(
    tmp_path: Path, command: str, input_format: str
) -> None:
    source, out = INPUTS / f"{input_format}.jsonl", tmp_path / "evaluations.jsonl"
    result = citewatch(*_command(command, source, out))
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"Error: no traces in {source}: every line is bad (invalid_trace 1); they read as "
        f"{input_format} records: add --input-format {input_format} ({out} left as it was)"
    )
    assert not out.exists()
    fixed = citewatch(*_command(command, source, out), "--input-format", input_format)
    assert fixed.returncode == 0, fixed.stderr
    assert len(out.read_text().splitlines()) == 1
