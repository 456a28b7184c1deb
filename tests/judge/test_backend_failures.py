"""A judge backend or client that raises something other than a judge error (a TypeError from
an openai client whose ``post`` has another signature, an AttributeError from a changed SDK)
is a judge failure, ``backend_error``: counted, seen by the circuit breaker, the trace
written deterministically with its critical claims ``critical_unjudged``, never a dead
letter; ``check`` and ``run --input`` exit 3 with the cause named once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from click.testing import CliRunner, Result

from schemas import EvaluationRecord, JudgeBackendName
from sidecar.cli import cli
from sidecar.config import JudgeSettings
from sidecar.judge import _openai_http, registry
from sidecar.judge.backend import BackendReply, JudgeBackend
from sidecar.judge.openai_backends import OpenAIChatBackend, make_client
from sidecar.judge.packet import JudgePacket
from sidecar.judge.rubric import Rubric
from tests.cli.test_cli_summary import table_rows
from tests.judge.test_unjudged import PARAPHRASE, states, trace
from tests.support.judged import MODEL, Judged
from tests.support.openai_server import FakeOpenAI

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"


class _ClientOfOpenAI1(openai.AsyncOpenAI):
    """The openai client as 1.x releases shape ``post``: a JSON ``body`` and no ``content``,
    so a backend written for a later client gets the TypeError users saw."""

    async def post(  # type: ignore[override]
        self,
        path: str,
        *,
        cast_to: Any,
        body: Any = None,
        files: Any = None,
        options: Any = None,
        stream: bool = False,
        stream_cls: Any = None,
    ) -> Any:
        return await super().post(
            path,
            cast_to=cast_to,
            body=body,
            files=files,
            options=options or {},
            stream=stream,
            stream_cls=stream_cls,
        )


def _backend_on_client_of_openai_1(settings: JudgeSettings) -> JudgeBackend:
    base = make_client(settings)
    client = _ClientOfOpenAI1(
        api_key=base.api_key, base_url=base.base_url, max_retries=0, timeout=2.0
    )
    return OpenAIChatBackend(settings, client=client)


class _BrokenBackend:
    """A backend whose SDK lost an attribute it uses."""

    name: JudgeBackendName = "openai-chat"
    model = MODEL
    metered = True

    def __init__(self, _settings: JudgeSettings) -> None:
        self.calls = 0

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> BackendReply:
        self.calls += 1
        raise AttributeError("module 'openai' has no attribute 'post'")

    async def aclose(self) -> None:
        return None


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def _install(monkeypatch: pytest.MonkeyPatch, build: Any) -> None:
    if build is _backend_on_client_of_openai_1:
        # The backend posts as it does for a 2.x or later client (whichever client is
        # installed here), so the 1.x-shaped client refuses the call.
        monkeypatch.setattr(_openai_http, "POST_TAKES_CONTENT", True)
    spec = registry.BACKENDS["openai-chat"]
    monkeypatch.setitem(
        registry.BACKENDS,  # type: ignore[arg-type]
        "openai-chat",
        registry.BackendSpec(build, needs_api_key=spec.needs_api_key, summary=spec.summary),
    )


# -- the judge stage -------------------------------------------------------------------------


def test_a_client_without_the_argument_is_a_backend_error_not_a_dead_letter(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    _install(monkeypatch, _backend_on_client_of_openai_1)
    judged = Judged(server)
    [record] = judged.evaluate(trace())
    assert record.judge is not None
    assert record.judge.outcome == "backend_error"
    assert record.judge.error is not None
    assert record.judge.error.startswith("judge backend raised TypeError at ")
    assert PARAPHRASE not in record.judge.error
    # c1 the screen settled; c2 (importance 3) needed the LLM and is critical_unjudged.
    assert states(record) == {
        "c1": ("supported", None, None, False),
        "c2": (None, "judge_failed", None, True),
        "c3": (None, None, None, False),
    }
    assert judged.value("citewatch_judge_requests_total", model=MODEL, outcome="backend_error") == 1
    assert (
        judged.value(
            "citewatch_critical_unjudged_claims_total", app="support", reason="backend_error"
        )
        == 1
    )
    assert server.recorded() == []


def test_the_circuit_breaker_sees_backend_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    backends: list[_BrokenBackend] = []

    def build(settings: JudgeSettings) -> JudgeBackend:
        backends.append(_BrokenBackend(settings))
        return backends[-1]

    _install(monkeypatch, build)
    with FakeOpenAI() as server:
        judged = Judged(server, circuit_failures=3, max_retries=2)
        records = judged.evaluate(*(trace(trace_id=f"{n:032x}") for n in range(1, 6)))
    outcomes = [r.judge.outcome if r.judge else r.skip_reason for r in records]
    assert outcomes == ["backend_error"] * 3 + ["circuit_open"] * 2
    # Not retriable: one call per trace, and none once the breaker is open.
    assert backends[0].calls == 3
    assert judged.stage.breaker.state == "open"
    assert all(states(r)["c2"][3] for r in records)
    assert records[0].judge is not None and records[0].judge.error is not None
    assert "AttributeError" in records[0].judge.error
    assert "no attribute" not in records[0].judge.error


def test_the_1x_way_of_posting_sends_the_same_request(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The body as a mapping (what :func:`post_json` does for a 1.x client) reaches the
    server as the same JSON as the pre-encoded bytes."""
    Judged(server, screen=False).evaluate(trace())
    monkeypatch.setattr(_openai_http, "POST_TAKES_CONTENT", False)
    [record] = Judged(server, screen=False).evaluate(trace())
    assert record.judge is not None and record.judge.outcome == "ok"
    first, second = server.recorded()
    assert first.body == second.body
    assert second.headers["content-type"] == "application/json"


# -- through the CLI -------------------------------------------------------------------------


def _invoke(*args: str, base_url: str) -> Result:
    env = {
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        "CITEWATCH_JUDGE_BASE_URL": base_url,
        "CITEWATCH_JUDGE_API_KEY": "dummy",
        "CITEWATCH_JUDGE_MODEL": MODEL,
    }
    return CliRunner().invoke(cli, list(args), env=env)


def _records(path: Path) -> list[EvaluationRecord]:
    return [
        EvaluationRecord.model_validate_json(line)
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


@pytest.mark.parametrize(
    ("build", "error_class"),
    [
        pytest.param(_backend_on_client_of_openai_1, "TypeError", id="type-error"),
        pytest.param(_BrokenBackend, "AttributeError", id="attribute-error"),
    ],
)
def test_check_writes_every_trace_counts_the_failure_and_exits_3(
    server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    build: Any,
    error_class: str,
) -> None:
    _install(monkeypatch, build)
    out = tmp_path / "evaluations.jsonl"
    args = ("check", str(EXAMPLES), "--judge", "openai-chat", "--sample-rate", "1")
    result = _invoke(*args, "--output", str(out), base_url=server.base_url)
    assert result.exit_code == 3, result.output
    lines = [line for line in EXAMPLES.read_text().splitlines() if line.strip()]
    records = _records(out)
    assert len(records) == len(lines)
    assert "bad lines" in result.stderr and "bad:" not in result.stderr
    failed = [r for r in records if r.judge is not None and r.judge.outcome != "ok"]
    assert failed and {r.judge.outcome for r in failed if r.judge} == {"backend_error"}
    rows = {measure: value for measure, (value, _) in table_rows(result.stderr).items()}
    assert rows["judge requests failed"] == str(len(failed))
    assert rows["judge failed: backend_error"] == str(len(failed))
    assert rows["judge requests ok"] == "0"
    # Critical claims the judge should have seen are counted unjudged, not lost.
    unjudged = sum(r.scores.critical_unjudged for r in records)
    assert unjudged > 0
    assert rows["critical claims left unjudged"] == str(unjudged)
    causes = [line for line in result.stderr.splitlines() if "judge backend raised" in line]
    assert len(causes) == 1
    assert causes[0].startswith(f"judge failed on {len(failed)} of {len(failed)} requests")
    assert f"judge backend raised {error_class} at " in causes[0]


def test_run_with_input_exits_3_too(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A backend the start-up self-test does not see (it tests the installed client): the
    # failure policy is what catches it.
    _install(monkeypatch, _BrokenBackend)
    out = tmp_path / "evaluations.jsonl"
    result = _invoke(
        "run",
        "--input",
        str(EXAMPLES),
        "--once",
        "--output",
        str(out),
        "--judge",
        "openai-chat",
        "--sample-rate",
        "1",
        "--metrics-port",
        "0",
        "--metrics-address",
        "127.0.0.1",
        base_url=server.base_url,
    )
    assert result.exit_code == 3, result.output
    lines = [line for line in EXAMPLES.read_text().splitlines() if line.strip()]
    assert len(_records(out)) == len(lines)
    assert "judge backend raised AttributeError" in result.stderr


class _UnclosableBackend(_BrokenBackend):
    async def aclose(self) -> None:
        raise TypeError("close() takes 0 positional arguments")


def test_a_backend_that_cannot_close_does_not_fail_the_shutdown(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _install(monkeypatch, _UnclosableBackend)
    with FakeOpenAI() as server:
        judged = Judged(server)
        [record] = judged.evaluate(trace())  # closes the stage afterwards
    assert record.judge is not None and record.judge.outcome == "backend_error"
    assert "closing the judge backend raised TypeError" in caplog.text
    assert "positional" not in caplog.text
