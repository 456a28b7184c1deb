"""Each input format through `citewatch check` and `citewatch run --input --once`, and the
decoder's promise for every format: a TraceError for any input, never another exception."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from schemas import EvaluationRecord, InputFormat
from sidecar.cli import cli
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import TraceError
from tests.support.payloads import (
    anthropic_record,
    chat_record,
    gemini_record,
    openinference_spans,
    otlp_json_record,
    responses_record,
    retrieve_and_generate_record,
)

LINES = {
    "openai_responses": responses_record,
    "openai_chat": chat_record,
    "anthropic_messages": anthropic_record,
    "gemini": gemini_record,
    "bedrock": retrieve_and_generate_record,
    "otlp_json": lambda: otlp_json_record(openinference_spans()),
}


@pytest.mark.parametrize("input_format", sorted(LINES))
@pytest.mark.parametrize("command", ["check", "run"])
def test_every_line_format_round_trips(tmp_path: Path, input_format: str, command: str) -> None:
    source, out, dead = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "dead.jsonl"
    source.write_bytes(LINES[input_format]() + b"\n{not json\n")
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
    assert result.exit_code == 0, result.output
    [record] = [EvaluationRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert record.claims and all(c.derived for c in record.claims)
    assert record.scores.validity == 1.0
    assert record.scores.invalid_citation_ids == []
    if command == "run":
        [letter] = [json.loads(line) for line in dead.read_text().splitlines()]
        assert (letter["line"], letter["reason"]) == (2, "unreadable_input")
    else:
        assert "line 2: unreadable_input" in result.stderr


def test_protobuf_records_are_refused_for_files_with_one_line(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(b"")
    for args in (["check", str(source)], ["run", "--input", str(source), "--once"]):
        result = CliRunner().invoke(cli, [*args, "--input-format", "otlp_proto"])
        assert result.exit_code == 2
        assert "read from Kafka only" in result.output


@settings(max_examples=150, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "response",
                        "request",
                        "output",
                        "content",
                        "choices",
                        "message",
                        "annotations",
                        "type",
                        "text",
                        "citations",
                        "candidates",
                        "groundingMetadata",
                        "groundingSupports",
                        "citations",
                        "resourceSpans",
                        "scopeSpans",
                        "spans",
                        "attributes",
                        "sources",
                        "messages",
                        "app",
                        "trace_id",
                    ]
                ),
                children,
                max_size=5,
            )
        ),
        max_leaves=30,
    ),
    input_format=st.sampled_from([f for f in get_args(InputFormat) if f != "trace_v1"]),
)
def test_any_json_value_is_a_trace_or_a_trace_error(value: object, input_format: str) -> None:
    limits = DecodeLimits(input_format=input_format)  # type: ignore[arg-type]
    try:
        decode_trace(json.dumps(value).encode(), limits=limits)
    except TraceError:
        pass


EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "inputs"


@pytest.mark.parametrize("input_format", sorted(LINES))
def test_the_documented_examples_are_the_sdk_built_records(input_format: str) -> None:
    """The examples were written by these builders; spans get new IDs and times per run, so
    traces are compared without them."""
    limits = DecodeLimits(input_format=input_format)  # type: ignore[arg-type]
    example = decode_trace((EXAMPLES / f"{input_format}.jsonl").read_bytes(), limits=limits)
    built = decode_trace(LINES[input_format](), limits=limits)
    volatile = {"trace_id", "timestamp"} if input_format.startswith("otlp") else set()
    assert example.model_dump(exclude=volatile) == built.model_dump(exclude=volatile)
