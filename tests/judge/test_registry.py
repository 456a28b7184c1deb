"""The judge is decided once: one vocabulary of backends, one registry, one factory, and the
CLI, the settings and citewatch_build_info all read from them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import click
import pytest
from click.testing import CliRunner
from prometheus_client import CollectorRegistry

from schemas import JudgeBackendName, JudgeChoice
from sidecar import __version__
from sidecar.cli import cli
from sidecar.cli import run as _cli_run
from sidecar.config import JudgeSettings, Settings
from sidecar.errors import ConfigError
from sidecar.judge import (
    BACKEND_NAMES,
    BACKENDS,
    JUDGE_CHOICES,
    LEXICAL_MODEL,
    RUBRIC_VERSION,
    build_backend,
    build_judge_stage,
    resolve_backend_name,
)
from sidecar.pipeline import JudgeIdentity
from tests.support.factories import trace_dict


def _judge_choices(*path: str) -> tuple[str, ...]:
    command: Any = cli
    for name in path:
        command = command.commands[name]
    [option] = [p for p in command.params if p.name in ("judge", "judge_backend")]
    assert isinstance(option.type, click.Choice)
    return tuple(option.type.choices)


def test_the_registry_covers_the_vocabulary_exactly() -> None:
    assert set(BACKENDS) == set(get_args(JudgeBackendName)) == set(BACKEND_NAMES)
    assert JUDGE_CHOICES == (*BACKEND_NAMES, "none") == get_args(JudgeChoice)


@pytest.mark.parametrize(
    ("command", "choices"),
    [
        pytest.param(("check",), JUDGE_CHOICES, id="check"),
        pytest.param(("run",), JUDGE_CHOICES, id="run"),
        pytest.param(("replay",), BACKEND_NAMES, id="replay"),
        pytest.param(("stability",), BACKEND_NAMES, id="stability"),
    ],
)
def test_cli_judge_choices_come_from_the_registry(
    command: tuple[str, ...], choices: tuple[str, ...]
) -> None:
    assert _judge_choices(*command) == choices


def test_settings_accept_exactly_the_judge_choices() -> None:
    for choice in JUDGE_CHOICES:
        assert JudgeSettings(backend=choice).backend == choice
    with pytest.raises(ValueError, match="backend"):
        JudgeSettings(backend="gpt-judge")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["openai-responses", "openai-chat"])
def test_an_llm_backend_without_an_api_key_is_a_config_error(
    name: JudgeBackendName, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=f"the {name} judge needs an API key"):
        build_backend(name, JudgeSettings())


def test_each_backend_is_built_under_its_own_name() -> None:
    settings = JudgeSettings(api_key="test-key", base_url="http://127.0.0.1:9")
    assert {name: build_backend(name, settings).name for name in BACKEND_NAMES} == {
        name: name for name in BACKEND_NAMES
    }


def test_an_api_key_alone_never_selects_an_llm_judge(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-in-the-shell")
    assert resolve_backend_name(Settings()) == "lexical"
    assert resolve_backend_name(Settings(judge={"api_key": "k"})) == "lexical"
    assert resolve_backend_name(Settings(judge={"backend": "openai-chat"})) == "openai-chat"
    assert resolve_backend_name(Settings(judge={"backend": "none", "api_key": "k"})) == "none"


def test_the_built_stage_names_backend_model_and_the_configured_rubric(tmp_path: Path) -> None:
    rubric = tmp_path / "rubric.md"
    rubric.write_text("rubric_version: r-custom\nJudge the claims.\n")
    stage = build_judge_stage(Settings(judge={"backend": "lexical", "rubric_file": str(rubric)}))
    assert stage is not None
    assert stage.identity == JudgeIdentity("lexical", LEXICAL_MODEL, "r-custom")
    assert build_judge_stage(Settings(judge={"backend": "none"})) is None


@pytest.mark.parametrize(
    ("judge", "rubric_version", "judge_model"),
    [
        pytest.param("lexical", RUBRIC_VERSION, LEXICAL_MODEL, id="lexical"),
        pytest.param("none", "", "", id="none"),
    ],
)
def test_build_info_names_the_stage_that_run_built(
    judge: str, rubric_version: str, judge_model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    registries: list[CollectorRegistry] = []

    def registry() -> CollectorRegistry:
        registries.append(CollectorRegistry())
        return registries[-1]

    # The seam: the registry `run` creates, to read back what it exposed.
    monkeypatch.setattr(_cli_run, "CollectorRegistry", registry)
    result = CliRunner().invoke(
        cli,
        [
            "run",
            "--input",
            "-",
            "--judge",
            judge,
            "--metrics-port",
            "0",
            "--metrics-address",
            "127.0.0.1",
        ],
        input=json.dumps(trace_dict()) + "\n",
        env={"OPENAI_API_KEY": ""},
    )
    assert result.exit_code == 0, result.output
    [exposed] = registries
    labels = {"version": __version__, "rubric_version": rubric_version, "judge_model": judge_model}
    assert exposed.get_sample_value("citewatch_build_info", labels) == 1
