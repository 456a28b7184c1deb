from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from schemas import EvaluationRecord
from sidecar.cli import cli
from tests.support.factories import claim, trace_dict, worked_example

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"


def run(*args: str, input: str | None = None) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_check_examples_writes_one_valid_record_per_trace(tmp_path: Path) -> None:
    out = tmp_path / "evals.jsonl"
    result = run("check", str(EXAMPLES), "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = [line for line in EXAMPLES.read_text().splitlines() if line.strip()]
    records = [EvaluationRecord.model_validate_json(x) for x in out.read_text().splitlines()]
    assert len(records) == len(lines)
    assert [r.trace_id for r in records] == [json.loads(x)["trace_id"] for x in lines]
    assert "traces evaluated" in result.stderr


def test_examples_exercise_every_finding_type(tmp_path: Path) -> None:
    from sidecar.checks import default_checks

    out = tmp_path / "evals.jsonl"
    run("check", str(EXAMPLES), "--out", str(out))
    seen = {
        f["code"] for line in out.read_text().splitlines() for f in json.loads(line)["findings"]
    }
    declared = {code for check in default_checks() for code in check.codes}
    assert declared <= seen


def test_bad_lines_are_reported_with_number_and_the_rest_still_run() -> None:
    good = json.dumps(trace_dict())
    bad_trace = json.dumps(trace_dict(claims=[claim("c", "x", [], importance=7)]))
    text = "\n".join([good, "{not json", "", bad_trace, good]) + "\n"
    result = run("check", "-", input=text)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 2
    assert "line 2: not_json" in result.stderr
    assert "line 4: invalid_trace" in result.stderr and "claims.0.importance" in result.stderr


def test_not_judged_scores_are_null_not_zero() -> None:
    result = run("check", "-", "--judge", "none", input=worked_example().model_dump_json() + "\n")
    record = json.loads(result.stdout)
    assert record["scores"]["correctness"] is None
    assert record["scores"]["completeness"] is None
    assert record["judged"] is False
    assert "not judged" in result.stderr


def test_usage_error_exits_non_zero(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["check", str(tmp_path / "absent.jsonl")])
    assert result.exit_code == 2


def test_progress_bar_option_runs(tmp_path: Path) -> None:
    source = tmp_path / "many.jsonl"
    source.write_text((json.dumps(trace_dict()) + "\n") * 50)
    result = run("check", str(source), "--progress", "--out", str(tmp_path / "o.jsonl"))
    assert result.exit_code == 0
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 50


@pytest.mark.parametrize("command", ["check", "config", "config validate", "config show"])
def test_commands_have_help(command: str) -> None:
    result = run(*command.split(), "--help")
    assert result.exit_code == 0
    assert len(result.output.strip()) > 40


def test_openai_judge_without_a_key_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("CITEWATCH_JUDGE_API_KEY", raising=False)
    result = CliRunner().invoke(cli, ["check", str(EXAMPLES), "--judge", "openai-responses"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: the openai-responses judge needs an API key: set CITEWATCH_JUDGE_API_KEY or "
        "OPENAI_API_KEY (a local OpenAI-compatible server accepts any value)"
    ]


def test_unreadable_rubric_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CITEWATCH_JUDGE_RUBRIC_FILE", str(tmp_path / "absent.md"))
    result = CliRunner().invoke(cli, ["check", str(EXAMPLES), "--judge", "lexical"])
    assert result.exit_code == 2
    assert "cannot read rubric file" in result.output
    assert "Traceback" not in result.output


def test_screen_judged_examples_validate_against_the_published_schema(tmp_path: Path) -> None:
    import jsonschema

    schema = json.loads((EXAMPLES.parents[1] / "schemas" / "evaluation.v1.json").read_text())
    out = tmp_path / "evals.jsonl"
    result = run(
        "check", str(EXAMPLES), "--judge", "lexical", "--sample-rate", "1.0", "--out", str(out)
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    for record in records:
        jsonschema.validate(record, schema)
    claims = [c for r in records for c in r["claims"] if c["status"] == "cited"]
    # The screen judges what it is sure of and abstains on the rest; nothing else.
    assert {c["resolved_by"] for c in claims if c["verdict"]} == {"screen"}
    # The screen alone gives no "unsupported": a conflict it sees is a suspicion.
    assert {c["verdict"] for c in claims} <= {"supported", "partial", None}
    assert {c["not_judged"] for c in claims if not c["verdict"]} == {"abstained", "suspect"}
    assert all(c["not_judged_detail"] for c in claims if c["not_judged"] == "suspect")
    assert not any(c["critical_reason"] for c in claims if c["not_judged"] == "abstained")
    assert any(f["code"] == "injection_suspect" for r in records for f in r["findings"])
