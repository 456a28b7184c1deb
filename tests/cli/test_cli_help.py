"""The public surface stays honest: every command and every option explains itself."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner

from sidecar.cli import cli


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        yield path
        if isinstance(command, click.Group):
            yield from _commands(command, path)


COMMANDS = list(_commands(cli))


def _command(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


def test_the_documented_commands_exist() -> None:
    names = {path[0] for path in COMMANDS}
    assert {
        "check",
        "run",
        "config",
        "redact",
        "calibrate",
        "gate",
        "stability",
        "report",
        "replay",
    } <= names


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    command = _command(path)
    assert command.help and len(command.help.strip()) > 20, f"{path} has no help text"
    result = CliRunner().invoke(cli, [*path, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.output


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_every_option_has_help(path: tuple[str, ...]) -> None:
    command = _command(path)
    missing = [
        p.name
        for p in command.params
        if isinstance(p, click.Option) and not p.hidden and not p.help
    ]
    assert missing == [], f"options without help in {' '.join(path)}: {missing}"
