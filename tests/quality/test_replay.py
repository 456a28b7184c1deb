"""Replay: re-judge labelled claims with the offline lexical judge and calibrate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sidecar.cli import cli
from sidecar.decode import DecodeLimits
from sidecar.judge import LEXICAL_MODEL, RUBRIC_VERSION
from sidecar.quality.labels import CalibrationError, load_labels
from sidecar.quality.replay import load_traces, traces_from_labels

REPLAY = Path(__file__).parents[1] / "fixtures" / "calibration" / "replay.jsonl"


def _rows() -> list[dict[str, object]]:
    return [json.loads(line) for line in REPLAY.read_text(encoding="utf-8").splitlines()]


def test_traces_built_from_labels_cite_only_their_passages() -> None:
    traces = traces_from_labels(load_labels(REPLAY))
    rows = _rows()
    assert len(traces) == len({r["case_id"] for r in rows})
    claims = {(t.trace_id, c.id): c for t in traces for c in t.claims}
    assert len(claims) == len(rows)
    for trace in traces:
        assert {s.id for s in trace.sources} == {i for c in trace.claims for i in c.citation_ids}


def test_cli_replay_with_lexical_judge(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    result = CliRunner().invoke(
        cli,
        [
            "replay",
            str(REPLAY),
            "--judge",
            "lexical",
            "--out-dir",
            str(tmp_path),
            "--records-out",
            str(records),
        ],
    )
    assert result.exit_code == 0, result.output
    (series,) = json.loads((tmp_path / "calibration.json").read_text("utf-8"))["series"]
    assert (series["rubric_version"], series["judge_model"]) == (RUBRIC_VERSION, LEXICAL_MODEL)
    # Verbatim passages are supported; on unrelated ones the screen abstains, so they are
    # not judged and not calibrated. The human labels disagree on one partial claim.
    assert series["overall"]["n"] == 5
    assert series["overall"]["confusion_matrix"]["counts"] == [[0, 0, 0], [0, 0, 1], [0, 0, 4]]
    evaluated = [json.loads(line) for line in records.read_text("utf-8").splitlines()]
    assert len(evaluated) == len({r["case_id"] for r in _rows()})
    assert sum(c["not_judged"] == "abstained" for r in evaluated for c in r["claims"]) == 5


def test_cli_replay_with_traces_file(tmp_path: Path) -> None:
    traces = traces_from_labels(load_labels(REPLAY))
    traces_path = tmp_path / "traces.jsonl"
    traces_path.write_text("".join(t.model_dump_json() + "\n" for t in traces), "utf-8")
    labels = tmp_path / "labels.csv"
    lines = ["case_id,claim_id,human_label,importance"]
    lines += [f"{t.trace_id},{c.id},supported,{c.importance}" for t in traces for c in t.claims]
    labels.write_text("\n".join(lines) + "\n", "utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "replay",
            str(labels),
            "--traces",
            str(traces_path),
            "--judge",
            "lexical",
            "--out-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    (series,) = json.loads((tmp_path / "calibration.json").read_text("utf-8"))["series"]
    # Every label is "supported"; the screen judges the five verbatim claims and abstains on
    # the other five.
    assert series["overall"]["n"] == 5
    assert [sum(row) for row in series["overall"]["confusion_matrix"]["counts"]] == [0, 0, 5]


def test_cli_replay_without_passages_is_a_one_line_error(tmp_path: Path) -> None:
    labels = tmp_path / "labels.csv"
    labels.write_text("case_id,claim_id,human_label\ncase-1,c1,supported\n", "utf-8")
    result = CliRunner().invoke(
        cli, ["replay", str(labels), "--judge", "lexical", "--out-dir", str(tmp_path)]
    )
    assert result.exit_code == 2
    assert result.output.startswith("Error: ") and "claim_text is required" in result.output


def test_replay_traces_are_decoded_under_the_settings_limits(tmp_path: Path) -> None:
    traces = traces_from_labels(load_labels(REPLAY))
    traces_path = tmp_path / "traces.jsonl"
    traces_path.write_text("".join(t.model_dump_json() + "\n" for t in traces), "utf-8")
    config = tmp_path / "citewatch.yaml"
    config.write_text("limits:\n  max_text_chars: 20\n", "utf-8")
    labels = tmp_path / "labels.csv"
    labels.write_text(f"case_id,claim_id,human_label\n{traces[0].trace_id},c1,supported\n", "utf-8")
    result = CliRunner().invoke(
        cli,
        [
            "replay",
            str(labels),
            "--traces",
            str(traces_path),
            "--judge",
            "lexical",
            "--out-dir",
            str(tmp_path / "out"),
            "--config",
            str(config),
        ],
    )
    assert result.exit_code == 2
    assert result.output == f"Error: {traces_path}:1: not a trace (text_too_long)\n"


def test_load_traces_applies_the_given_limits(tmp_path: Path) -> None:
    traces = traces_from_labels(load_labels(REPLAY))
    path = tmp_path / "traces.jsonl"
    path.write_bytes(b"".join(t.model_dump_json().encode() + b"\r\n" for t in traces))
    assert load_traces(path) == traces
    with pytest.raises(CalibrationError, match=r":1: not a trace \(too_large\)$"):
        load_traces(path, limits=DecodeLimits(max_bytes=100))
