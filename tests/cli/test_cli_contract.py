"""The CLI's promises to a new user: outputs are replaced, one output flag, flags that need
--input say so, documented exit codes, judge outcomes in every summary with the first
failure's cause, a start-up line, records read from directories everywhere, and a clear word
when a file of traces is given where evaluation records are expected."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import EvaluationRecord
from sidecar.cli import cli
from sidecar.config import load_settings
from tests.support.factories import claim, make_trace, source, trace_dict
from tests.support.openai_server import FakeOpenAI, not_found

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
FIXTURES = ROOT / "tests" / "fixtures"
HUMAN = FIXTURES / "calibration" / "human_labels.csv"
WEEK_DIR = FIXTURES / "evaluations" / "week"
NO_KEY = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env={**NO_KEY, **(env or {})})


def example_count() -> int:
    return sum(1 for line in EXAMPLES.read_text().splitlines() if line.strip())


# -- outputs are replaced -------------------------------------------------------------------


def test_running_the_quick_start_twice_leaves_one_record_per_trace(tmp_path: Path) -> None:
    out = tmp_path / "evaluations.jsonl"
    args = (
        "run",
        "--input",
        str(EXAMPLES),
        "--once",
        "--output",
        str(out),
        "--metrics-port",
        "0",
        "--metrics-address",
        "127.0.0.1",
    )
    for _ in range(2):
        result = invoke(*args)
        assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == example_count()
    assert "│ traces judged by the offline screen " in result.stderr  # a summary table row


def test_append_is_explicit(tmp_path: Path) -> None:
    out = tmp_path / "evaluations.jsonl"
    args = (
        "run",
        "--input",
        str(EXAMPLES),
        "--once",
        "--output",
        str(out),
        "--append",
        "--metrics-port",
        "0",
        "--metrics-address",
        "127.0.0.1",
    )
    for _ in range(2):
        assert invoke(*args).exit_code == 0
    assert len(out.read_text().splitlines()) == 2 * example_count()


def test_check_replaces_its_output_too(tmp_path: Path) -> None:
    out = tmp_path / "evaluations.jsonl"
    out.write_text("stale line\n" * 100)
    assert invoke("check", str(EXAMPLES), "--output", str(out)).exit_code == 0
    assert len(out.read_text().splitlines()) == example_count()


# -- one spelling of the output flag --------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [("check",), ("run",), ("redact",), ("report",), ("calibrate",), ("replay",)],
    ids=" ".join,
)
def test_every_writing_command_spells_it_output(path: tuple[str, ...]) -> None:
    command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    shown = [
        opt for param in command.params if isinstance(param, click.Option) for opt in param.opts
    ]
    assert "--output" in shown
    help_text = invoke(*path, "--help").output
    assert "--output" in help_text
    assert "--out " not in help_text and "--out-dir" not in help_text


def test_the_old_out_spelling_still_works(tmp_path: Path) -> None:
    out = tmp_path / "o.jsonl"
    assert invoke("check", str(EXAMPLES), "--out", str(out)).exit_code == 0
    assert len(out.read_text().splitlines()) == example_count()


# -- flags that need --input ----------------------------------------------------------------


@pytest.mark.parametrize(
    "flags",
    [
        pytest.param(("--once", "--output", "x.jsonl"), id="once-output"),
        pytest.param(("--dead-letters", "dead.jsonl"), id="dead-letters"),
        pytest.param(("--append",), id="append"),
    ],
)
def test_input_only_flags_without_input_are_a_usage_error(flags: tuple[str, ...]) -> None:
    started = time.monotonic()
    result = invoke("run", *flags, "--bootstrap-servers", "127.0.0.1:1")
    assert result.exit_code == 2
    assert "only apply with --input" in result.output
    assert time.monotonic() - started < 5  # never tried Kafka


# -- exit codes -----------------------------------------------------------------------------


def test_bad_settings_unreadable_input_and_usage_exit_2(tmp_path: Path) -> None:
    assert invoke("check", str(EXAMPLES), env={"CITEWATCH_SAMPLING_RATE": "7"}).exit_code == 2
    assert (
        invoke(
            "run", "--input", str(tmp_path / "absent.jsonl"), "--once", "--metrics-port", "0"
        ).exit_code
        == 2
    )
    assert invoke("check", str(EXAMPLES), "--concurrency", "0").exit_code == 2


def test_gate_exit_1_is_a_regression_only(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text("not json\n")
    assert invoke("gate", "--baseline", str(junk), "--candidate", str(junk)).exit_code == 2


# -- the judge's outcome in every summary ---------------------------------------------------


@pytest.fixture
def wrong_base_url() -> Iterator[str]:
    with FakeOpenAI(responder=not_found) as server:
        yield server.url("/wrong")


def _judge_env(base_url: str) -> dict[str, str]:
    return {
        "CITEWATCH_JUDGE_BASE_URL": base_url,
        "CITEWATCH_JUDGE_API_KEY": "dummy",
        "CITEWATCH_JUDGE_MAX_RETRIES": "0",
        "CITEWATCH_JUDGE_MODEL": "qwen-test",
    }


def test_check_with_a_judge_that_always_fails_says_why_and_exits_3(
    wrong_base_url: str, tmp_path: Path
) -> None:
    result = invoke(
        "check",
        str(EXAMPLES),
        "--judge",
        "openai-chat",
        "--sample-rate",
        "1",
        "--output",
        str(tmp_path / "o.jsonl"),
        env=_judge_env(wrong_base_url),
    )
    assert result.exit_code == 3, result.output
    assert "judge requests failed" in result.stderr
    assert "judge failed: api_error" in result.stderr
    [cause] = [line for line in result.stderr.splitlines() if line.startswith("judge failed on")]
    assert "answered 404" in cause and wrong_base_url in cause and "qwen-test" in cause


def test_run_with_a_judge_that_always_fails_exits_3(wrong_base_url: str, tmp_path: Path) -> None:
    result = invoke(
        "run",
        "--input",
        str(EXAMPLES),
        "--once",
        "--output",
        str(tmp_path / "o.jsonl"),
        "--judge",
        "openai-chat",
        "--sample-rate",
        "1",
        "--metrics-port",
        "0",
        "--metrics-address",
        "127.0.0.1",
        env=_judge_env(wrong_base_url),
    )
    assert result.exit_code == 3, result.output
    assert "judge failed on" in result.stderr and wrong_base_url in result.stderr


def test_a_working_judge_is_a_row_of_the_summary_and_exit_0(tmp_path: Path) -> None:
    result = invoke(
        "check",
        str(EXAMPLES),
        "--judge",
        "lexical",
        "--sample-rate",
        "1",
        "--output",
        str(tmp_path / "o.jsonl"),
    )
    assert result.exit_code == 0, result.output
    assert "traces judged by the offline screen" in result.stderr
    assert "judge requests" not in result.stderr  # the screen makes none
    assert "judge failed on" not in result.stderr


def test_stability_with_nothing_to_compare_says_so(tmp_path: Path) -> None:
    traces = tmp_path / "uncited.jsonl"
    traces.write_text(json.dumps(trace_dict(claims=[claim("c1", "Fees are waived.", [])])) + "\n")
    result = invoke("stability", str(traces), "--judge", "lexical", "--repeats", "2")
    assert result.exit_code == 2
    assert "nothing to compare" in result.output


def test_stability_with_a_failing_judge_exits_3(wrong_base_url: str, tmp_path: Path) -> None:
    traces = tmp_path / "traces.jsonl"
    traces.write_text(json.dumps(trace_dict()) + "\n")
    result = invoke(
        "stability",
        str(traces),
        "--judge",
        "openai-chat",
        "--repeats",
        "2",
        env=_judge_env(wrong_base_url),
    )
    assert result.exit_code == 3
    assert "answered 404" in result.stderr


# -- follow mode says what it does ----------------------------------------------------------


def test_follow_mode_prints_a_start_up_line(tmp_path: Path) -> None:
    source_file = tmp_path / "growing.jsonl"
    source_file.write_text(json.dumps(trace_dict()) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    env.update({**NO_KEY, "PYTHONPATH": str(ROOT)})
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from sidecar.cli import main; sys.exit(main())",
            "run",
            "--input",
            str(source_file),
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
        if process.stderr is not None:
            process.stderr.close()
    assert first.startswith(f"citewatch run: following {source_file}")
    assert "metrics on http://127.0.0.1:" in first and "judge lexical" in first


# -- app labels -----------------------------------------------------------------------------


def test_apps_are_admitted_up_to_a_bound_without_an_allow_list() -> None:
    settings = load_settings()
    assert (settings.metrics.apps, settings.metrics.max_apps) == ([], 20)
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, max_apps=2)
    labels = [metrics.app_label(app) for app in ("support", "docs", "support", "billing")]
    assert labels == ["support", "docs", "support", "other"]
    assert (
        registry.get_sample_value("citewatch_traces_total", {"app": "docs", "outcome": "evaluated"})
        == 0.0
    )


def test_dead_letters_do_not_take_an_app_place() -> None:
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry, max_apps=1)
    metrics.dead_letter("invalid_trace", app="x" * 500)
    assert metrics.app_label("support") == "support"
    assert (
        registry.get_sample_value(
            "citewatch_traces_total", {"app": "other", "outcome": "dead_lettered"}
        )
        == 1.0
    )


def test_an_allow_list_admits_nothing_else() -> None:
    metrics = CitewatchMetrics(registry=CollectorRegistry(), apps=["shop"], max_apps=20)
    assert [metrics.app_label(a) for a in ("shop", "docs")] == ["shop", "other"]


def test_run_labels_the_first_apps_it_sees(tmp_path: Path) -> None:
    from sidecar.cli.run import _metrics

    _, metrics = _metrics(load_settings(overrides={"judge.backend": "none"}))
    assert metrics.app_label("support") == "support"


# -- records from directories; traces are not records ---------------------------------------


def test_calibrate_reads_a_directory_of_evaluations(tmp_path: Path) -> None:
    result = invoke(
        "calibrate", str(HUMAN), "--evaluations", str(WEEK_DIR), "--output", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "calibration.json").is_file()


def test_report_on_a_file_of_traces_says_so(tmp_path: Path) -> None:
    result = invoke(
        "report", "--weekly", "--records", str(EXAMPLES), "--output", str(tmp_path / "weekly")
    )
    assert result.exit_code == 2
    assert "holds traces, not evaluation records" in result.output
    assert "citewatch check" in result.output
    assert not (tmp_path / "weekly").exists()


def test_report_on_an_empty_file_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = invoke("report", "--weekly", "--records", str(empty), "--output", str(tmp_path))
    assert result.exit_code == 2
    assert "no evaluation records" in result.output


# -- help -----------------------------------------------------------------------------------


def _all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield prefix
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _all_commands(command, (*prefix, name))
        else:
            yield (*prefix, name)


@pytest.mark.parametrize("path", list(_all_commands(cli)), ids=lambda p: " ".join(p) or "cli")
def test_every_help_has_an_example(path: tuple[str, ...]) -> None:
    result = invoke(*path, "--help")
    assert result.exit_code == 0
    example_lines = (
        result.output.split("Example", 1)[1].splitlines()[1:]
        if ("Example" in result.output)
        else []
    )
    assert any(
        line.strip().startswith("citewatch") or "| citewatch" in line or "citewatch " in line
        for line in example_lines
    ), result.output


def test_the_derived_claims_reach_the_check_summary(tmp_path: Path) -> None:
    trace = make_trace(
        answer="Refunds take 30 days [S1]. Support is open daily.",
        claims=[],
        sources=[source("S1", "Refunds take 30 days.")],
    )
    source_file = tmp_path / "t.jsonl"
    source_file.write_text(trace.model_dump_json() + "\n")
    out = tmp_path / "o.jsonl"
    result = invoke("check", str(source_file), "--output", str(out))
    assert result.exit_code == 0
    assert "finding: claims_derived" in result.stderr
    record = EvaluationRecord.model_validate_json(out.read_text())
    assert [c.derived for c in record.claims] == [True, True]
