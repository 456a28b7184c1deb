"""The user docs stay true: their YAML is valid settings, their quick look runs, and the
README's quick start points at them."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from schemas import EvaluationRecord
from sidecar.config import load_settings

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "docs" / "producing.md", ROOT / "docs" / "judges.md"]


def _blocks(path: Path, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.+?)\n```", path.read_text(encoding="utf-8"), re.S)


YAML_BLOCKS = [
    pytest.param(block, id=f"{path.name}-{number}")
    for path in DOCS
    for number, block in enumerate(_blocks(path, "yaml"), start=1)
]


@pytest.mark.parametrize("block", YAML_BLOCKS)
def test_yaml_examples_are_valid_settings(
    block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.startswith("CITEWATCH_"):
            monkeypatch.delenv(name)
    config = tmp_path / "citewatch.yaml"
    config.write_text(block, encoding="utf-8")
    load_settings(config)


def test_judges_doc_covers_each_server() -> None:
    text = (ROOT / "docs" / "judges.md").read_text(encoding="utf-8")
    for word in (
        "vLLM",
        "Ollama",
        "llama.cpp",
        "base_url",
        "api_key",
        "tokens_per_day",
        "priority",
        "kappa",
        "precision",
        "interval",
    ):
        assert word in text


def test_producing_quick_look_runs(tmp_path: Path) -> None:
    [script] = [
        b for b in _blocks(ROOT / "docs" / "producing.md", "sh") if "citewatch check -" in b
    ]
    script = script.replace("citewatch check", f"{sys.executable} -m sidecar.cli check")
    script = script.replace("evaluations.jsonl", str(tmp_path / "evaluations.jsonl"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
    env.update({"PYTHONPATH": str(ROOT), "OPENAI_API_KEY": ""})
    result = subprocess.run(
        [shutil.which("bash") or "/bin/bash", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    [line] = (tmp_path / "evaluations.jsonl").read_text(encoding="utf-8").splitlines()
    record = EvaluationRecord.model_validate_json(line)
    assert [c.citation_ids for c in record.claims] == [["S1"], ["S2"]]


def test_quick_start_says_what_to_look_at_next() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    for doc in ("docs/producing.md", "docs/judges.md"):
        assert f"]({doc})" in quick_start
        assert (ROOT / doc).is_file()


def _command_lines() -> list[tuple[str, str]]:
    """(where, line) for every `citewatch ...` line in the docs' shell blocks and in every
    command's help examples."""
    import click

    from sidecar.cli import cli

    found: list[tuple[str, str]] = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for block in _blocks(path, "sh"):
            found += [(path.name, line) for line in block.replace("\\\n", " ").splitlines()]

    def walk(command: click.Command, name: str) -> None:
        text = (command.help or "").replace("\\\n", " ")
        found.extend((f"{name} --help", line) for line in text.splitlines())
        if isinstance(command, click.Group):
            for sub_name, sub in command.commands.items():
                walk(sub, f"{name} {sub_name}")

    walk(cli, "citewatch")
    lines = []
    for where, line in found:
        for segment in re.split(r"&&|\|", line.split("#", 1)[0]):
            segment = re.sub(r"^\s*(?:[A-Z_]+=\S*\s+)*", "", segment).strip()
            if segment.startswith("citewatch "):
                lines.append((where, segment))
    return lines


def test_documented_command_lines_use_real_flags() -> None:
    import shlex

    import click

    from sidecar.cli import cli

    checked = 0
    for where, line in _command_lines():
        words = shlex.split(line)[1:]
        command: click.Command = cli
        while isinstance(command, click.Group) and words and words[0] in command.commands:
            command = command.commands[words.pop(0)]
        known = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        known |= {"--help", "-h", "-v", "--version"}
        unknown = [
            w.split("=", 1)[0]
            for w in words
            if w.startswith("-") and w != "-" and w.split("=", 1)[0] not in known
        ]
        assert unknown == [], f"{where}: {line!r} uses {unknown}"
        checked += 1
    assert checked >= 20
