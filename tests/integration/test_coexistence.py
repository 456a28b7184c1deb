"""citewatch installed beside the evaluation libraries RAG teams already have (Ragas,
DeepEval, LangChain's OpenAI integration, LlamaIndex) in one environment: whatever versions
of the shared dependencies (openai, pydantic, httpx...) the resolver picks for all of them,
``citewatch check`` judges every sampled trace against the local OpenAI-compatible server.

Two environments: the versions the resolver picks for the libraries as they are, and the
same libraries beside an openai client held below 2 (a neighbour that pins it so; the
resolver then picks openai 1.109.1, whose ``post`` has no ``content`` argument). Each is
heavy (about 850 MB), so it is built once under .cache/ by uv (from PyPI) and reused while
pyproject.toml's dependencies and the lists below stay the same. The project itself is taken
from this tree (PYTHONPATH, with the redaction engine built in place), its dependencies
resolved together with the libraries.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from schemas import EvaluationRecord
from tests.support.openai_server import FakeOpenAI

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"
NEIGHBOURS = ("ragas", "deepeval", "langchain-openai", "llama-index-core")
"""The distributions installed beside citewatch's own dependencies."""
CONSTRAINTS = ("langchain-community<0.4",)
"""What a user of these libraries has to pin for them to import at all: ragas 0.4.3 imports
langchain_community.chat_models.vertexai, which langchain-community 0.4 removed."""
ENVIRONMENTS = {"newest": (), "openai-1": ("openai<2",)}
"""Each environment's pins beside :data:`CONSTRAINTS`."""
_INSTALL_SECONDS = 1500

# Imports every neighbour first (their import-time patches and settings in place), names the
# versions the resolver chose, then runs the citewatch CLI in the same interpreter.
_RUN = """
import importlib.metadata as metadata
import sys
import ragas, deepeval, langchain_openai, llama_index.core
names = ("openai", "httpx", "pydantic", *{neighbours!r})
sys.stderr.write("versions: " + json.dumps({{n: metadata.version(n) for n in names}}) + "\\n")
from sidecar.cli import main
sys.argv = ["citewatch", *sys.argv[1:]]
main()
"""


def _key(pins: tuple[str, ...]) -> str:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    dependencies = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    parts = (sys.version, dependencies, *NEIGHBOURS, *CONSTRAINTS, *pins)
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def _python(name: str) -> Path:
    """The environment's interpreter, building the environment when it is missing or stale."""
    venv = ROOT / ".cache" / f"coexist-{name}"
    python = venv / "bin" / "python"
    marker = venv / "citewatch-key"
    pins = ENVIRONMENTS[name]
    key = _key(pins)
    if python.exists() and marker.exists() and marker.read_text() == key:
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "uv"], check=True)
    subprocess.run(
        [
            str(python),
            "-m",
            "uv",
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "-r",
            str(ROOT / "pyproject.toml"),
            *NEIGHBOURS,
            *CONSTRAINTS,
            *pins,
        ],
        check=True,
        timeout=_INSTALL_SECONDS,
    )
    marker.write_text(key)
    return python


@pytest.mark.parametrize("name", sorted(ENVIRONMENTS))
def test_check_judges_every_trace_beside_the_evaluation_libraries(
    name: str, tmp_path: Path
) -> None:
    python = _python(name)
    out = tmp_path / "evaluations.jsonl"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(ROOT),
        # No telemetry from the neighbours (and no network but the local server anyway).
        "DEEPEVAL_TELEMETRY_OPT_OUT": "YES",
        "RAGAS_DO_NOT_TRACK": "true",
        "CITEWATCH_JUDGE_API_KEY": "dummy",
        "CITEWATCH_JUDGE_MODEL": "judge-model",
    }
    script = "import json\n" + _RUN.format(neighbours=NEIGHBOURS)
    with FakeOpenAI() as server:
        env["CITEWATCH_JUDGE_BASE_URL"] = server.base_url
        result = subprocess.run(
            [str(python), "-c", script, "check", str(EXAMPLES), "--output", str(out)]
            + ["--judge", "openai-chat", "--sample-rate", "1"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
        requests = len(server.recorded())
    [versions_line] = [line for line in result.stderr.splitlines() if line.startswith("versions")]
    versions = json.loads(versions_line.removeprefix("versions: "))
    assert result.returncode == 0, (versions, result.stderr[-3000:])
    if ENVIRONMENTS[name]:
        assert versions["openai"].startswith("1."), versions
    lines = [line for line in EXAMPLES.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [EvaluationRecord.model_validate_json(line) for line in out.read_text().splitlines()]
    assert len(records) == len(lines), versions
    outcomes = [r.judge.outcome for r in records if r.judge is not None]
    assert outcomes and set(outcomes) == {"ok"}, (versions, outcomes)
    # Every trace sent to the LLM got its verdicts from it (a second opinion is one more).
    llm = [r for r in records if any(c.resolved_by == "llm" for c in r.claims)]
    assert requests >= len(llm) > 0, versions
    assert re.search(r"judge requests failed\s*│\s*0\s*│", result.stderr), result.stderr
    assert "bad: " not in result.stderr
