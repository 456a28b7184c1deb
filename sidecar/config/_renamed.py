"""Settings that moved to another section, and the old names that still set them.

Each old name keeps working wherever a setting can be given (the YAML file, a
``CITEWATCH_*`` variable, a flag or a keyword): each settings source is wrapped in
:class:`RenamingSource`, which moves the value to its new name before the sources are
merged, so precedence (flags over environment over file) is the same for both names. A
use of an old name is logged once per load as deprecated, with its new name.

Setting one setting under both names to different values is ambiguous and stops start-up
(:class:`~sidecar.errors.ConfigError`), whether both are in one source or one is in the
YAML file and the other in the environment; flags and keywords override either, as they
override everything.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_settings import PydanticBaseSettingsSource

from sidecar.config.runtime import RuntimeSettings
from sidecar.errors import ConfigError

__all__ = ["RENAMED", "Renames", "RenamingSource"]

logger = logging.getLogger(__name__)

RENAMED: dict[tuple[str, str], tuple[str, str]] = {
    ("kafka", "shutdown_deadline_seconds"): ("runtime", "shutdown_deadline_seconds"),
    ("kafka", "dedup_window"): ("runtime", "dedup_window"),
    ("kafka", "dedup_max_bytes"): ("runtime", "dedup_max_bytes"),
}
"""(old section, old field) -> (new section, new field): settings every runtime reads that
were once under ``kafka.*``."""

_SECTIONS: dict[str, type[RuntimeSettings]] = {"runtime": RuntimeSettings}
"""The models of the new sections, to compare two spellings of one value ("20" and 20.0)."""


def _dotted(name: tuple[str, str]) -> str:
    return ".".join(name)


def _env_name(name: tuple[str, str]) -> str:
    return "CITEWATCH_" + "_".join(name).upper()


@dataclass(frozen=True)
class _Given:
    """One value of a renamed setting, as one source gave it."""

    where: str
    old: bool
    value: Any

    def spelled(self, new: tuple[str, str], old: tuple[str, str]) -> str:
        name = old if self.old else new
        shown = _env_name(name) if self.where == "environment" else _dotted(name)
        return f"{shown}={self.value!r} ({self.where})"


def _same(new: tuple[str, str], a: Any, b: Any) -> bool:
    """Whether two given values are one setting's value once validated."""
    section = _SECTIONS[new[0]]
    try:
        first = getattr(section.model_validate({new[1]: a}), new[1])
        second = getattr(section.model_validate({new[1]: b}), new[1])
    except ValidationError:
        return bool(a == b)  # refused either way; the merged settings say why
    return bool(first == second)


@dataclass
class Renames:
    """What the sources of one settings build gave under old and new names, so a conflict
    between the file and the environment is found whichever is read last."""

    given: dict[tuple[str, str], list[_Given]] = field(default_factory=dict)
    warned: set[tuple[tuple[str, str], str]] = field(default_factory=set)

    def take(self, data: dict[str, Any], *, where: str, overrides: bool) -> dict[str, Any]:
        """``data`` with every old name moved to its new one. Raises :class:`ConfigError`
        when an old and its new name are given different values in ``data`` or, unless
        ``overrides`` (flags, keywords), one here and the other in another such source."""
        data = {
            key: dict(value) if isinstance(value, dict) else value for key, value in data.items()
        }
        for old, new in RENAMED.items():
            old_section, new_section = data.get(old[0]), data.get(new[0])
            given: list[_Given] = []
            if isinstance(new_section, dict) and new[1] in new_section:
                given.append(_Given(where, False, new_section[new[1]]))
            if isinstance(old_section, dict) and old[1] in old_section:
                value = old_section.pop(old[1])
                self._warn(old, new, where)
                given.append(_Given(where, True, value))
                if new_section is None:
                    new_section = data[new[0]] = {}
                if isinstance(new_section, dict):  # else the merged settings refuse it
                    new_section.setdefault(new[1], value)
            if overrides:
                if len(given) == 2:
                    self._conflict(new, old, *given)
                continue
            for one in given:
                self._check(new, old, one)
        return data

    def _check(self, new: tuple[str, str], old: tuple[str, str], given: _Given) -> None:
        for other in self.given.get(new, []):
            if other.old != given.old:
                self._conflict(new, old, other, given)
        self.given.setdefault(new, []).append(given)

    def _conflict(
        self, new: tuple[str, str], old: tuple[str, str], first: _Given, second: _Given
    ) -> None:
        if _same(new, first.value, second.value):
            return
        raise ConfigError(
            f"invalid settings: {first.spelled(new, old)} and {second.spelled(new, old)} "
            f"disagree: {_dotted(old)} is the deprecated name of {_dotted(new)}; "
            f"set only {_dotted(new)}"
        )

    def _warn(self, old: tuple[str, str], new: tuple[str, str], where: str) -> None:
        if (old, where) in self.warned:
            return
        self.warned.add((old, where))
        if where == "environment":
            logger.warning("%s is deprecated: set %s instead", _env_name(old), _env_name(new))
        else:
            logger.warning(
                "%s (%s) is deprecated: set %s instead", _dotted(old), where, _dotted(new)
            )


class RenamingSource(PydanticBaseSettingsSource):
    """A settings source whose old names are given under their new ones."""

    def __init__(
        self,
        inner: PydanticBaseSettingsSource,
        renames: Renames,
        *,
        where: str,
        overrides: bool = False,
    ) -> None:
        super().__init__(inner.settings_cls)
        self._inner = inner
        self._renames = renames
        self._where = where
        self._overrides = overrides
        self.__name__ = type(inner).__name__  # each source's state keeps its own name

    def _set_current_state(self, state: dict[str, Any]) -> None:
        super()._set_current_state(state)
        self._inner._set_current_state(state)

    def _set_settings_sources_data(self, states: dict[str, dict[str, Any]]) -> None:
        super()._set_settings_sources_data(states)
        self._inner._set_settings_sources_data(states)

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        """Not used: the wrapped source reads the fields (see ``__call__``)."""
        return self._inner.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        """The wrapped source's values, old names moved to their new ones."""
        return self._renames.take(self._inner(), where=self._where, overrides=self._overrides)
