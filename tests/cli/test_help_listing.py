"""`citewatch --help` lists every command with its summary without importing one: the
summaries kept in sidecar.cli._app give the rows each command's own help would."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pytest

from sidecar.cli._app import _COMMANDS, _SUMMARIES, cli

_PROBE = """
import contextlib, io, json, sys
from sidecar.cli._app import _COMMANDS, cli, main

def shown():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main(["--help"])
        except SystemExit:
            pass
    return out.getvalue()

lazy = shown()
modules = sorted(sys.modules)
for name in _COMMANDS:
    cli.commands[name]
print(json.dumps({"lazy": lazy, "modules": modules, "eager": shown()}))
"""
"""The group's help before any command is imported, what that imported, and the help with
every command imported (its rows then come from the commands themselves)."""


def test_every_command_has_a_summary() -> None:
    assert set(_SUMMARIES) == set(_COMMANDS)


@pytest.mark.parametrize("name", sorted(_COMMANDS))
def test_a_summary_lists_as_its_command_does(name: str) -> None:
    command = cli.commands[name]
    assert not command.hidden
    summary = _SUMMARIES[name]
    for limit in range(10, 160):
        expected = command.get_short_help_str(limit)
        shown = click.Command(name, help=summary).get_short_help_str(limit)
        assert shown == expected, (name, limit)


def test_the_group_help_imports_no_command_and_lists_them_as_click_does() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120
    )
    reply = json.loads(done.stdout)
    modules = set(reply["modules"])
    assert {spec.partition(":")[0] for spec in _COMMANDS.values()} & modules == set()
    assert {m for m in modules if m.startswith("sidecar.cli.")} <= {
        "sidecar.cli._app",
        "sidecar.cli._logging",
    }
    assert "Commands:" in reply["lazy"]
    assert reply["lazy"] == reply["eager"]
