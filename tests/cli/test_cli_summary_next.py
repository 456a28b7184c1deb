"""What the summary table tells a user to do next, through the CLI: which judge ran, judge
requests only where an LLM was called, the failure kinds under the failed requests, the
first traces with critical claims and where their records are, and how long `run --input
--once` serves its metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli_summary import EXAMPLES, _closed_port, citewatch, table_rows

_RUN = ["--once", "--metrics-port", "0", "--metrics-address", "127.0.0.1"]


def _command(name: str, out: Path, *extra: str) -> list[str]:
    if name == "check":
        return ["check", str(EXAMPLES), "--output", str(out), *extra]
    return ["run", "--input", str(EXAMPLES), "--output", str(out), *_RUN, *extra]


@pytest.mark.parametrize("command", ["check", "run"])
def test_the_offline_screen_is_named_and_makes_no_requests(tmp_path: Path, command: str) -> None:
    result = citewatch(*_command(command, tmp_path / "o.jsonl", "--judge", "lexical"))
    assert result.returncode == 0, result.stderr
    rows = table_rows(result.stderr)
    assert rows["judge"] == ("lexical (offline)", "")
    assert rows["traces judged by the offline screen"] == ("32", "")
    assert [name for name in rows if "request" in name] == []


def test_an_llm_judge_is_named_and_its_failures_sit_under_the_failed_requests(
    tmp_path: Path,
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    result = citewatch(
        *_command("check", tmp_path / "o.jsonl", "--judge", "openai-chat", "--sample-rate", "1"),
        env={"OPENAI_API_KEY": "sk-test", "CITEWATCH_JUDGE_BASE_URL": url},
    )
    assert result.returncode == 3, result.stderr
    rows = table_rows(result.stderr)
    names = list(rows)
    assert rows["judge"][0].startswith("openai-chat model ") and url in result.stderr
    failed_at = names.index("judge requests failed")
    kinds = [name for name in names if name.startswith("judge failed: ")]
    assert kinds and names[failed_at + 1 : failed_at + 1 + len(kinds)] == kinds
    assert sum(int(rows[kind][0]) for kind in kinds) == int(rows["judge requests failed"][0])
    # what the screen settled without a request comes after the failures, not between them
    assert names.index("judged without a request (screen, cache)") > failed_at + len(kinds)


@pytest.mark.parametrize("command", ["check", "run"])
def test_the_first_traces_with_critical_claims_are_named_with_their_records(
    tmp_path: Path, command: str
) -> None:
    out = tmp_path / "o.jsonl"
    result = citewatch(*_command(command, out, "--judge", "lexical"))
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    critical = [r["trace_id"] for r in records if r["scores"]["critical_unsupported"] > 0]
    assert len(critical) == 4
    [note] = [line for line in result.stderr.splitlines() if line.startswith("critical unsup")]
    assert note == (
        f"critical unsupported claims in 4 trace(s) (first 3: {', '.join(critical[:3])}); "
        f"their records are in {out}: jq -c 'select(.scores.critical_unsupported > 0)' {out}"
    )


def test_run_once_says_its_metrics_endpoint_closes_with_the_run(tmp_path: Path) -> None:
    result = citewatch(*_command("run", tmp_path / "o.jsonl"))
    assert result.returncode == 0, result.stderr
    first = result.stderr.splitlines()[0]
    assert "/metrics while the run lasts (the endpoint closes with it)" in first
