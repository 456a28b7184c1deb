"""Vercel AI SDK spans as they are: a tool-calling RAG request through ``generateText``
with the SDK's own mock model (``ai/test``) and ``experimental_telemetry`` on, exported by
the OpenTelemetry JS SDK and encoded by ``@opentelemetry/otlp-transformer``
(tests/inputs/vercel/spans.mjs), through `citewatch check` and `citewatch run --input --once`.
Skipped, with the reason, without Node and npm or when the packages cannot be installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from sidecar.decode import DecodeLimits, decode_trace
from tests.inputs._cli import COMMANDS, evaluate, findings

SCRIPT = Path(__file__).parent / "vercel"


@pytest.fixture(scope="module")
def ai_sdk_spans() -> bytes:
    """One OTLP/JSON record of the script's spans (node_modules installed on first use)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node and npm are needed to run the Vercel AI SDK")
    if not (SCRIPT / "node_modules" / "ai").is_dir():
        installed = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"],
            cwd=SCRIPT,
            capture_output=True,
            timeout=600,
            check=False,
        )
        if installed.returncode != 0:
            pytest.skip(f"npm ci failed in {SCRIPT}: {installed.stderr.decode()[-300:]}")
    run = subprocess.run(
        [node, "spans.mjs"], cwd=SCRIPT, capture_output=True, timeout=120, check=True
    )
    return run.stdout


def test_the_sdks_spans_are_one_trace_read_as_they_are(ai_sdk_spans: bytes) -> None:
    trace = decode_trace(ai_sdk_spans, limits=DecodeLimits(input_format="otlp_json"))
    assert trace.question == "How long is the warranty, and are returns free?"
    assert trace.answer == (
        "The warranty lasts 24 months [warranty-2]. Returns are free within 30 days [returns-1]."
    )
    # the passages of the retrieval tool's result, in the order the prompt gave them
    assert [s.id for s in trace.sources] == ["warranty-2", "returns-1"]
    assert (trace.app, trace.generator.model) == ("next-shop", "mock-model-id")


@pytest.mark.parametrize("command", COMMANDS)
def test_ai_sdk_spans_through_the_cli(tmp_path: Path, command: str, ai_sdk_spans: bytes) -> None:
    [evaluation], letters = evaluate(tmp_path, command, "otlp_json", ai_sdk_spans)
    assert letters == []
    assert [(c.text, c.citation_ids) for c in evaluation.claims] == [
        ("The warranty lasts 24 months.", ["warranty-2"]),
        ("Returns are free within 30 days.", ["returns-1"]),
    ]
    assert evaluation.scores.validity == 1.0
    # the call and its last step wrote the same text: one answer, no ambiguity
    assert findings(evaluation, "answer_chosen") == []
