"""The judge rubric: one versioned Markdown file, shipped with the package.

The first line of the file is ``rubric_version: <version>``; the rest is the instruction text
sent with every judge request. A change of rubric starts a new metric series, so the version
travels in every evaluation record and request.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sidecar.errors import ConfigError

__all__ = ["RUBRIC_VERSION", "Rubric", "load_rubric"]

_HEADER = "rubric_version:"


@dataclass(frozen=True, slots=True)
class Rubric:
    """A rubric's version and its instruction text."""

    version: str
    text: str


def _parse(content: str, origin: str) -> Rubric:
    first, _, rest = content.partition("\n")
    if not first.startswith(_HEADER):
        raise ConfigError(f"rubric {origin} must start with a '{_HEADER} ...' line")
    version = first[len(_HEADER) :].strip()
    if not version:
        raise ConfigError(f"rubric {origin} names an empty version")
    text = rest.strip()
    if not text:
        raise ConfigError(f"rubric {origin} has no instruction text")
    return Rubric(version=version, text=text)


def load_rubric(path: str | Path | None = None) -> Rubric:
    """The built-in rubric, or the one at ``path``. Raises :class:`ConfigError` if unusable."""
    if path is None:
        content = resources.files("sidecar.judge").joinpath("rubric.md").read_text("utf-8")
        return _parse(content, "rubric.md")
    try:
        content = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read rubric file {path}: {exc.strerror}") from None
    return _parse(content, str(path))


RUBRIC_VERSION: str = load_rubric().version
"""Version of the built-in rubric."""
