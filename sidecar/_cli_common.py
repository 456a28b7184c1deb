"""Shared CLI plumbing: building settings from flags and turning errors into one line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from sidecar.config import Settings, load_settings
from sidecar.errors import CitewatchError

__all__ = ["config_option", "settings_from", "one_line_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def config_option(func: F) -> F:
    """Adds ``--config FILE`` (a YAML file of settings sections)."""
    return click.option(
        "--config", "config_file", type=click.Path(dir_okay=False), default=None,
        help="YAML file of settings; environment (CITEWATCH_*) and flags override it.",
    )(func)


def settings_from(config_file: str | None, overrides: dict[str, Any]) -> Settings:
    """Load settings or stop with one readable line."""
    try:
        return load_settings(config_file, overrides=overrides)
    except CitewatchError as exc:
        raise click.ClickException(str(exc)) from None


def one_line_errors(func: F) -> F:
    """Turn a CitewatchError escaping a command into a one-line CLI error."""
    import functools

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CitewatchError as exc:
            raise click.ClickException(str(exc)) from None

    return wrapper  # type: ignore[return-value]
