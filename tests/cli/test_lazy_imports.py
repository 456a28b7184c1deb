"""A command imports only what it runs: the openai SDK and the offline screen (most of a
second of start-up between them) stay out of a deterministic `citewatch check`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.factories import trace_dict

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "inputs"
_HEAVY = ("openai", "sidecar.judge.screen", "lemminflect", "sidecar.cli.calibrate", "flask")

_PROBE = """
import json, sys
from sidecar.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exit:
    code = exit.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _modules_after(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    reply = json.loads(done.stdout.splitlines()[-1])
    return reply["code"], set(reply["modules"])


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in _HEAVY or m.startswith(_HEAVY)}


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(trace_dict()) + "\n", encoding="utf-8")
    return path


def test_a_deterministic_check_imports_neither_the_openai_sdk_nor_the_screen(
    traces: Path, tmp_path: Path
) -> None:
    code, modules = _modules_after(
        "check", str(traces), "--judge", "none", "--output", str(tmp_path / "out.jsonl")
    )
    assert code == 0
    assert _heavy(modules) == set()


_RUNTIME_ONLY = (
    "prometheus_client",
    "uvicorn",
    "kafka",
    "exporters",
    "sidecar.runtime.build",
    "sidecar.runtime.consumer",
    "rich.progress",
)
"""What `citewatch run` needs and `check` does not: metrics, their server, the Kafka
runtime, and the progress bar (imported when one is shown)."""


def test_check_imports_none_of_the_service_runtime(traces: Path, tmp_path: Path) -> None:
    code, modules = _modules_after(
        "check", str(traces), "--judge", "none", "--output", str(tmp_path / "out.jsonl")
    )
    assert code == 0
    assert {m for m in modules if m.split(".")[0] in _RUNTIME_ONLY or m in _RUNTIME_ONLY} == set()


_UNUSED_BY_A_TRACE_V1_CHECK = (
    "sidecar.inputs.anthropic_messages",
    "sidecar.inputs.bedrock",
    "sidecar.inputs.gemini",
    "sidecar.inputs.openai_chat",
    "sidecar.inputs.openai_responses",
    "sidecar.inputs.otlp",
    "google.protobuf",
    "opentelemetry",
    "yaml",
    "sidecar.judge.backend",
    "sidecar.judge.packet",
    "sidecar.judge.rubric",
    "phonenumbers",
)
"""What a check of trace v1 lines without a judge or a config file does not run: the other
formats' adapters (the OTLP one brings protobuf), OpenTelemetry (tracing is the service's),
the YAML parser, the judge's packets and rubric, and the phone metadata (the default phone
region's country code is known without it)."""


def test_a_deterministic_check_of_trace_v1_imports_no_adapter_tracing_or_yaml(
    traces: Path, tmp_path: Path
) -> None:
    code, modules = _modules_after(
        "check", str(traces), "--judge", "none", "--output", str(tmp_path / "out.jsonl")
    )
    assert code == 0
    unused = _UNUSED_BY_A_TRACE_V1_CHECK
    assert {
        m for m in modules if m in unused or m.startswith(tuple(u + "." for u in unused))
    } == set()


def test_an_adapter_is_imported_when_its_format_is_read(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    first = (_EXAMPLES / "openai_chat.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path.write_text(first + "\n", encoding="utf-8")
    out = str(tmp_path / "out.jsonl")
    code, modules = _modules_after(
        "check", str(path), "--judge", "none", "--input-format", "openai_chat", "--output", out
    )
    assert code == 0
    assert "sidecar.inputs.openai_chat" in modules
    assert "sidecar.inputs.otlp" not in modules


def test_the_offline_screen_is_imported_when_it_runs(traces: Path, tmp_path: Path) -> None:
    code, modules = _modules_after(
        "check", str(traces), "--judge", "lexical", "--output", str(tmp_path / "out.jsonl")
    )
    assert code == 0
    assert "sidecar.judge.screen" in modules
    assert not any(m == "openai" or m.startswith("openai.") for m in modules)


def test_redact_imports_no_judge_at_all() -> None:
    code, modules = _modules_after("redact", "--help")
    assert code == 0
    assert not any(m.startswith("sidecar.judge.") for m in modules - {"sidecar.judge"})
