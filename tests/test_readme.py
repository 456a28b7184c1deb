"""README.md's two commands stay true: the test command is the one .ci/run runs, and both
are the ones scripts/readme-as-user runs as an ordinary user in CI."""

from __future__ import annotations

import re
import subprocess
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


def test_the_ordinary_user_s_run_reads_the_same_two_commands() -> None:
    printed = subprocess.run(
        [str(ROOT / "scripts" / "readme-as-user"), "--print"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed.split("\0") == [*_commands(), ""]


def test_ci_runs_readme_s_commands_as_an_ordinary_user_before_the_suite() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    [user_run] = [i for i, line in enumerate(ci) if line.strip() == "scripts/readme-as-user"]
    assert user_run < ci.index(_commands()[1])
