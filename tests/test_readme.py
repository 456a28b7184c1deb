"""README.md's two commands stay true: the test command is the one .ci/run runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section, flags=re.S)


def test_readme_has_the_two_commands() -> None:
    run_command, test_command = _commands()
    assert "citewatch run" in run_command and "pip install" in run_command
    assert "pytest" in test_command and "pip install" in test_command


def test_ci_runs_the_readme_test_command() -> None:
    test_command = _commands()[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_main_job_input_exists() -> None:
    run_command = _commands()[0]
    match = re.search(r"--input (\S+)", run_command)
    assert match and (ROOT / match.group(1)).is_file()
