"""Shared CLI plumbing: settings from flags, the exit codes, output flags, one-line errors.

Exit codes, the same for every command:

    0  ok
    1  the gate failed (a regression)
    2  usage error, invalid settings, or input that cannot be read
    3  the judge failed on every call it was asked to make
  130  stopped by Ctrl-C (SIGINT), after writing what had finished
"""

from __future__ import annotations

import functools
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar, get_args

import click
from pydantic import BaseModel, SecretStr

from schemas import InputFormat
from sidecar._userinfo import mask_userinfo, remember_secret
from sidecar.config import Settings, load_settings
from sidecar.errors import CitewatchError

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_JUDGE_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "CliError",
    "config_option",
    "exit_now",
    "one_line_errors",
    "open_output",
    "remember_secrets",
    "output_option",
    "settings_from",
]

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_JUDGE_FAILED = 3
EXIT_INTERRUPTED = 130


class CliError(click.ClickException):
    """One readable line on stderr and exit 2: bad usage, settings or input. The
    credentials of any address in it are masked."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(mask_userinfo(message))


class _AliasedOption(click.Option):
    """An option that also accepts older spellings, which --help does not show."""

    def __init__(self, *args: Any, hidden_aliases: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hidden_aliases = tuple(hidden_aliases)

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        shown = self.opts
        self.opts = [opt for opt in shown if opt not in self.hidden_aliases]
        try:
            return super().get_help_record(ctx)
        finally:
            self.opts = shown


def output_option(
    dest: str,
    *,
    help: str,
    aliases: Sequence[str] = ("--out",),
    name: str = "--output",
    **kwargs: Any,
) -> Callable[[F], F]:
    """``--output`` (every command's one spelling of where results go); ``aliases`` are
    older spellings still accepted but not shown."""
    return click.option(
        name, *aliases, dest, cls=_AliasedOption, hidden_aliases=aliases, help=help, **kwargs
    )


def open_output(path: str, *, append: bool = False) -> IO[str]:
    """Open an output file: replaced unless ``append``. Raises CliError when it cannot be."""
    try:
        return open(path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}") from None


def config_option(func: F) -> F:
    """Adds ``--config FILE`` (a YAML file of settings sections)."""
    return click.option(
        "--config",
        "config_file",
        type=click.Path(dir_okay=False),
        default=None,
        help="YAML file of settings; environment (CITEWATCH_*) and flags override it.",
    )(func)


def settings_from(config_file: str | None, overrides: dict[str, Any]) -> Settings:
    """Load settings or stop with one readable line (exit 2). Every secret in them is
    masked in the log lines from now on."""
    try:
        settings = load_settings(config_file, overrides=overrides)
    except CitewatchError as exc:
        raise CliError(str(exc)) from None
    remember_secrets(settings)
    return settings


def remember_secrets(value: object) -> None:
    """Mask every secret ``value`` holds (a settings model, its sections, their dicts
    and lists) in the log lines from now on."""
    if isinstance(value, SecretStr):
        remember_secret(value.get_secret_value())
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            remember_secrets(getattr(value, name))
    elif isinstance(value, dict):
        for item in value.values():
            remember_secrets(item)
    elif isinstance(value, list | tuple):
        for item in value:
            remember_secrets(item)


def one_line_errors(func: F) -> F:
    """Turn a CitewatchError escaping a command into a one-line CLI error (exit 2)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CitewatchError as exc:
            raise CliError(str(exc)) from None

    return wrapper  # type: ignore[return-value]


def input_format_option(func: F) -> F:
    """``--input-format``: what the input's records are (the setting ``input.format``)."""
    return click.option(
        "--input-format",
        "input_format",
        type=click.Choice(get_args(InputFormat)),
        default=None,
        help="What each record is: trace_v1 (default), an API exchange (openai_responses, "
        "openai_chat, anthropic_messages, gemini, bedrock) or OpenTelemetry spans "
        "(otlp_json; otlp_proto from Kafka only). See docs/producing.md.",
    )(func)


def exit_now(code: int) -> None:
    """Flush the log and the standard streams and end the process with ``code`` at once,
    without the interpreter's teardown: a thread still busy (an abandoned record, a read
    blocked on a terminal) would hold the exit."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
