"""The redaction seen from outside: `citewatch redact` on texts, and a trace through
`citewatch check` with an LLM judge (a real local server speaking the OpenAI API) into the
judge's request and the evaluation record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from sidecar.cli import cli
from tests.support.factories import claim, source, trace_dict
from tests.support.openai_server import FakeOpenAI

NO_KEY = {"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}


def redact(texts: list[str]) -> list[str]:
    """Each text as `citewatch redact` writes it back (one JSON line each)."""
    lines = "".join(json.dumps({"text": text}) + "\n" for text in texts)
    result = CliRunner().invoke(cli, ["redact", "-"], input=lines, env=NO_KEY)
    assert result.exit_code == 0, result.output
    return [json.loads(line)["text"] for line in result.stdout.splitlines()]


def check(values: list[str], tmp_path: Path, *, url: str | None = None) -> tuple[str, str]:
    """One trace per value, the value in the question, a passage, the claim and the answer
    (and ``url`` as the passage's address), through `citewatch check --judge openai-chat`:
    what the judge was sent, and the records."""
    extra = {"url": url} if url else {}
    traces = [
        trace_dict(
            trace_id=f"{n + 1:032x}",
            question=f"Is this on file: {value}?",
            answer=f"On file: {value} [S1].",
            sources=[source("S1", f"The record shows {value} as given.", **extra)],
            claims=[claim("c1", f"On file: {value}.", ["S1"], importance=3)],
        )
        for n, value in enumerate(values)
    ]
    with FakeOpenAI() as server:
        config = tmp_path / "judge.yaml"
        config.write_text(
            "judge:\n"
            f"  base_url: {server.base_url}\n"
            "  api_key: test-key\n"
            "  screen: false\n"
            "  max_retries: 0\n"
            "  cache_size: 0\n",
            encoding="utf-8",
        )
        result = CliRunner().invoke(
            cli,
            ["check", "-", "--judge", "openai-chat", "--sample-rate", "1", "--config", str(config)],
            input="".join(json.dumps(t) + "\n" for t in traces),
            env=NO_KEY,
        )
        requests = [r.text for r in server.recorded()]
    assert result.exit_code == 0, result.output
    assert len(requests) == len(values)  # the judge saw every trace
    return "\n".join(requests), result.stdout


def record_claims(records: str) -> list[Any]:
    """The claim texts of each record, in order."""
    return [c["text"] for line in records.splitlines() for c in json.loads(line)["claims"]]
