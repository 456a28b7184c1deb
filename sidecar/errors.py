"""The one error tree of citewatch.

    CitewatchError
     ├── ConfigError            bad settings; stops start-up, never raised per message
     ├── TraceError             one input record cannot be evaluated (retriable = False)
     │    ├── TraceDecodeError  not UTF-8, not JSON, too large or too deeply nested
     │    └── TraceInvalidError valid JSON but not a valid trace v1
     ├── JudgeError             the judge gave no usable verdicts for one trace
     │    │                     (``retriable`` says whether a retry may help; ``kind`` is the
     │    │                     metric label, one of schemas.vocabulary.JudgeErrorKind)
     │    └── JudgeCallError    one failed backend call (sidecar.judge.backend), with
     │                          Retry-After and token counts
     ├── CalibrationError       labels that cannot be calibrated (sidecar.quality.calibration)
     ├── GateError              a baseline or candidate the gate cannot read (sidecar.quality.gate)
     ├── RecordReadError        unreadable evaluation records (sidecar.quality._io)
     └── PrometheusError        the Prometheus HTTP API failed (sidecar.quality._prometheus)

The last five live beside the code that raises them; the CLI turns every one of them into a
one-line error.

Every error carries a ``reason``: a short code safe for metric labels and dead-letter headers.
Messages never contain raw trace text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas.vocabulary import JudgeErrorKind

if TYPE_CHECKING:
    from pydantic import ValidationError

__all__ = [
    "CitewatchError",
    "ConfigError",
    "JudgeError",
    "TraceDecodeError",
    "TraceError",
    "TraceInvalidError",
    "describe_validation_error",
]


class CitewatchError(Exception):
    """Base of every error citewatch raises on purpose."""

    retriable: bool = False
    reason: str = "error"

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        if reason is not None:
            self.reason = reason


class ConfigError(CitewatchError):
    """The settings are invalid; ``citewatch`` refuses to start."""

    reason = "config"


class TraceError(CitewatchError):
    """One input record cannot be evaluated; it goes to the dead-letter topic."""

    reason = "invalid_trace"


class TraceDecodeError(TraceError):
    """The record is not UTF-8, not JSON, too large or too deeply nested."""

    reason = "not_json"


class TraceInvalidError(TraceError):
    """The record is JSON but not a valid trace v1."""

    reason = "invalid_trace"


class JudgeError(CitewatchError):
    """The judge produced no usable verdicts for a trace."""

    reason = "api_error"

    def __init__(
        self, message: str, *, kind: JudgeErrorKind = "api_error", retriable: bool = False
    ) -> None:
        super().__init__(message, reason=kind)
        self.retriable = retriable
        self._kind: JudgeErrorKind = kind

    @property
    def kind(self) -> JudgeErrorKind:
        """The metric label of this failure (``schemas.vocabulary.JudgeErrorKind``)."""
        return self._kind


def describe_validation_error(
    exc: ValidationError,
    *,
    root: str = "",
    limit: int | None = None,
    messages: bool = True,
    separator: str = "; ",
    known_names: frozenset[str] | None = None,
) -> str:
    """One line naming each invalid field (``loc: message``), never echoing input values.

    ``root`` names a whole-object error (empty location); ``limit`` keeps the first errors
    and says how many more there are; ``messages=False`` names the fields only. pydantic's
    own text would repeat the offending input, which may be trace text or a secret. With
    ``known_names``, a location part that is neither an index nor one of those names came
    from the input (an unknown key) and is written ``<key>``.
    """

    def part(name: str | int) -> str:
        if known_names is None or isinstance(name, int) or name in known_names:
            return str(name)
        return "<key>"

    parts = []
    errors = exc.errors(include_input=False, include_url=False)
    for error in errors if limit is None else errors[:limit]:
        loc = ".".join(part(p) for p in error["loc"]) or root
        parts.append(f"{loc}: {error['msg']}" if messages else loc)
    more = len(errors) - len(parts)
    if more > 0:
        parts.append(f"and {more} more")
    return separator.join(parts)
