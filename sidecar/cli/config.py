"""`citewatch config validate|show`."""

from __future__ import annotations

import json

import click

from sidecar._userinfo import mask_values
from sidecar.cli._common import config_option, settings_from

__all__ = ["config_group"]


@click.group("config")
def config_group() -> None:
    """Inspect the settings citewatch would run with.

    \b
    Examples:
      citewatch config validate --config citewatch.yaml
      CITEWATCH_JUDGE_MODEL=qwen2.5-7b-instruct citewatch config show
    """


@config_group.command("validate")
@config_option
def validate(config_file: str | None) -> None:
    """Check the settings from the file and environment; exit 2 with the reason if invalid.

    \b
    Example:
      citewatch config validate --config deploy/docker/citewatch.yaml
    """
    settings_from(config_file, {})
    click.echo("settings are valid", err=True)


@config_group.command("show")
@config_option
def show(config_file: str | None) -> None:
    """Print the effective settings as JSON, secrets and the credentials of URLs masked.

    \b
    Example:
      citewatch config show --config citewatch.yaml | jq .judge
    """
    settings = settings_from(config_file, {})
    # SecretStr dumps as '**********' in JSON mode and the userinfo of any URL value
    # (https://user:password@host) as ***: secrets never reach the terminal.
    shown = mask_values(settings.model_dump(mode="json"))
    click.echo(json.dumps(shown, indent=2, sort_keys=True))
