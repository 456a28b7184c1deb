"""The start-up self-test calls each dependency seam once, names the installed versions and
says which seam failed, with the exception's class and where it was raised."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Any

import openai
import pytest
from click.testing import CliRunner

from sidecar.cli import cli
from sidecar.config import Settings
from sidecar.judge import _openai_http
from sidecar.runtime import kafka_clients
from sidecar.runtime.selftest import SEAMS, failures_message, run_selftest, seams_in_use

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "traces.jsonl"


async def _post_of_openai_1(
    self: Any,
    path: str,
    *,
    cast_to: Any,
    body: Any = None,
    files: Any = None,
    options: Any = None,
    stream: bool = False,
    stream_cls: Any = None,
) -> Any:
    """``post`` as openai 1.x shapes it: a JSON ``body``, no ``content``."""
    raise AssertionError("not reached: the call's keywords do not bind")


def test_every_seam_works_here_and_names_its_version() -> None:
    results = run_selftest(Settings())
    assert [r.distribution for r in results] == list(SEAMS)
    assert [r.error for r in results] == [None] * len(SEAMS)
    assert {r.distribution: r.version for r in results} == {d: version(d) for d in SEAMS}
    assert failures_message(results) is None


def test_a_client_whose_post_changed_fails_the_judge_seam_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The seam as written for a 2.x or later client, meeting a 1.x-shaped one.
    monkeypatch.setattr(_openai_http, "POST_TAKES_CONTENT", True)
    monkeypatch.setattr(openai.AsyncOpenAI, "post", _post_of_openai_1)
    results = {r.distribution: r for r in run_selftest(Settings())}
    failed = results["openai"]
    assert failed.error is not None
    assert failed.error.startswith("TypeError at judge/_openai_http.py:")
    assert failed.error.endswith(" in post_json")
    assert [d for d, r in results.items() if not r.ok] == ["openai"]
    message = failures_message(list(results.values()))
    assert message is not None
    assert f"openai {version('openai')}: failed: TypeError at judge/" in message
    assert "kafka-python" not in message


def test_a_setting_the_kafka_client_does_not_take_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = kafka_clients.consumer_config

    def with_unknown(settings: Settings) -> dict[str, Any]:
        return {**config(settings), "enable_idempotence_v9": True}

    monkeypatch.setattr(kafka_clients, "consumer_config", with_unknown)
    [result] = run_selftest(Settings(), only=["kafka-python"])
    assert result.error == "KafkaConsumer does not take enable_idempotence_v9"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param({}, [s for s in SEAMS if s != "openai"], id="kafka-lexical"),
        pytest.param(
            {"judge": {"backend": "openai-chat"}, "input": {"path": "t.jsonl"}},
            [s for s in SEAMS if s != "kafka-python"],
            id="file-openai",
        ),
        pytest.param(
            {"judge": {"backend": "none"}, "input": {"path": "t.jsonl"}},
            [s for s in SEAMS if s not in ("openai", "kafka-python")],
            id="file-no-judge",
        ),
    ],
)
def test_run_tests_the_seams_it_uses(settings: dict[str, Any], expected: list[str]) -> None:
    assert list(seams_in_use(Settings.model_validate(settings))) == expected


def _run(*judge: str, tmp_path: Path) -> Any:
    args = ["run", "--input", str(EXAMPLES), "--once", "--output", str(tmp_path / "o.jsonl")]
    args += ["--metrics-port", "0", "--metrics-address", "127.0.0.1", *judge]
    env = {"CITEWATCH_JUDGE_API_KEY": "dummy", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""}
    return CliRunner().invoke(cli, args, env=env)


def test_run_refuses_to_start_when_a_seam_it_uses_fails(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_openai_http, "POST_TAKES_CONTENT", True)
    monkeypatch.setattr(openai.AsyncOpenAI, "post", _post_of_openai_1)
    result = _run("--judge", "openai-chat", tmp_path=tmp_path)
    assert result.exit_code == 2, result.output
    assert "fail citewatch's self-test: openai " in result.stderr
    assert not (tmp_path / "o.jsonl").exists()
    # The offline judge does not use the client: the run goes on.
    result = _run("--judge", "lexical", tmp_path=tmp_path)
    assert result.exit_code == 0, result.output


def test_the_selftest_command_prints_a_line_per_seam() -> None:
    result = CliRunner().invoke(cli, ["selftest"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == list(SEAMS)
    assert all(": ok (" in line for line in lines)
