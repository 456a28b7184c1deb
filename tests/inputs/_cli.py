"""Records of an input format through `citewatch check` and `citewatch run --input --once`,
with the evaluation records each command wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from schemas import EvaluationRecord
from sidecar.cli import cli

COMMANDS = ("check", "run")


def evaluate(
    tmp_path: Path, command: str, input_format: str, *records: bytes
) -> tuple[list[EvaluationRecord], list[dict[str, Any]]]:
    """The evaluation records and the dead letters (``{"line", "reason", "error"}``; from
    standard error for check) of ``records`` through ``command``, with no judge."""
    folder = tmp_path / command
    folder.mkdir(exist_ok=True)
    source, out, dead = folder / "in.jsonl", folder / "out.jsonl", folder / "dead.jsonl"
    source.write_bytes(b"".join(record + b"\n" for record in records))
    args = (
        ["check", str(source), "--output", str(out)]
        if command == "check"
        else [
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
        ]
    )
    result = CliRunner().invoke(
        cli,
        [*args, "--input-format", input_format, "--judge", "none"],
        env={"OPENAI_API_KEY": ""},
        catch_exceptions=False,
    )
    # An input whose every line is bad is exit 2 and writes no output file.
    assert result.exit_code in ((0, 1) if out.exists() else (2,)), result.output
    evaluations = [
        EvaluationRecord.model_validate_json(line)
        for line in (out.read_text().splitlines() if out.exists() else [])
    ]
    if command == "run":
        lines = dead.read_text().splitlines() if dead.exists() else []
        letters = [json.loads(line) for line in lines]
    else:
        letters = [
            {"stderr": line} for line in result.stderr.splitlines() if line.startswith("line ")
        ]
    return evaluations, letters


def findings(record: EvaluationRecord, code: str) -> list[tuple[str | None, str]]:
    """``(source_id, detail)`` of ``record``'s findings of ``code``."""
    return [(f.source_id, f.detail) for f in record.findings if f.code == code]
