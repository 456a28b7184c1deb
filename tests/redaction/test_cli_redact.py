"""`citewatch redact`."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from sidecar.cli import cli
from tests.support.factories import trace_dict

TEXT = "Mail anna@example.com, card 4111 1111 1111 1111."


def test_text_lines_give_redacted_text_and_offsets_into_the_original() -> None:
    lines = json.dumps({"text": TEXT}) + "\n\nnot json\n" + json.dumps({"text": "30 days"}) + "\n"
    result = CliRunner().invoke(cli, ["redact", "-"], input=lines)
    assert result.exit_code == 0, result.output
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert out == [
        {
            "text": "Mail <EMAIL_1>, card <CREDIT_CARD_1>.",
            "entities": [
                {"type": "EMAIL", "start": 5, "end": 21},
                {"type": "CREDIT_CARD", "start": 28, "end": 47},
            ],
        },
        {"text": "30 days", "entities": []},
    ]
    assert TEXT[5:21] == "anna@example.com"
    assert result.stderr.splitlines() == [
        "line 3: not JSON",
        "CREDIT_CARD\t1",
        "EMAIL\t1",
        "total\t2\tbad lines\t1",
    ]


def test_traces_and_config_file(tmp_path: Path) -> None:
    config = tmp_path / "citewatch.yaml"
    config.write_text(
        "redaction:\n  types: [EMAIL]\n  allow: [help@example.com]\n", encoding="utf-8"
    )
    trace = trace_dict(question=f"{TEXT} help@example.com")
    result = CliRunner().invoke(
        cli, ["redact", "--traces", "--config", str(config), "-"], input=json.dumps(trace) + "\n"
    )
    assert result.exit_code == 0, result.output
    redacted = json.loads(result.stdout)
    assert redacted["question"] == ("Mail <EMAIL_1>, card 4111 1111 1111 1111. help@example.com")
    assert result.stderr.splitlines() == ["EMAIL\t1", "total\t1"]


def test_help_is_there() -> None:
    result = CliRunner().invoke(cli, ["redact", "--help"])
    assert result.exit_code == 0 and "JSON Lines" in result.output
