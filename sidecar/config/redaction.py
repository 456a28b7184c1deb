"""Redaction of sensitive text (``redaction.*``)."""

from __future__ import annotations

import re
from typing import Literal, get_args

from pydantic import Field, SecretStr, model_validator

from schemas import RedactionType
from sidecar._regex import compile_linear
from sidecar.config._section import Section

__all__ = ["CustomPattern", "RedactionMode", "RedactionSettings"]


RedactionMode = Literal["placeholder", "hmac", "drop"]
_ENTITY_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


class CustomPattern(Section):
    """An extra entity type found by a regular expression."""

    name: str = Field(min_length=1, max_length=40)
    """Entity type name, upper case (e.g. EMPLOYEE_ID); placeholders read <EMPLOYEE_ID_1>."""
    pattern: str = Field(min_length=1)
    """Regex in RE2 syntax (Python's, less backreferences and lookaround: it runs in time
    linear in the text); the span of group 1 is replaced when the pattern has a group, else
    the whole match."""

    @model_validator(mode="after")
    def _check(self) -> CustomPattern:
        if not _ENTITY_NAME.match(self.name):
            raise ValueError(f"custom pattern name {self.name!r} must match [A-Z][A-Z0-9_]*")
        try:
            compiled = compile_linear(self.pattern)
        except ValueError as exc:
            raise ValueError(f"custom pattern {self.name}: {exc}") from None
        if compiled.fullmatch("") is not None:
            raise ValueError(f"custom pattern {self.name} matches the empty string")
        return self


class RedactionSettings(Section):
    """Redaction of sensitive text before anything leaves the process."""

    enabled: bool = True
    """Redact traces before judging and emitting."""
    types: list[RedactionType] = Field(default_factory=lambda: list(get_args(RedactionType)))
    """Built-in entity types that are redacted; leave one out to keep its values."""
    allow: list[str] = Field(default_factory=list)
    """Values never redacted (compared case-insensitively), e.g. the support address."""
    custom_patterns: list[CustomPattern] = Field(default_factory=list)
    """Extra entity types, each a name and a regex."""
    default_mode: RedactionMode = "placeholder"
    """How values are replaced: placeholder (<EMAIL_1>, numbered per trace), hmac (<EMAIL_
    followed by a keyed hash, stable across traces), drop (removed)."""
    modes: dict[str, RedactionMode] = Field(default_factory=dict)
    """Mode per entity type, overriding default_mode, e.g. {"EMAIL": "hmac"}."""
    hmac_key: SecretStr | None = None
    """Key of the hmac mode (required when any type uses it; never logged or shown)."""
    phone_region: str = Field(default="US", min_length=2, max_length=2)
    """Region assumed for phone numbers written without a +country code (ISO 3166 alpha-2);
    it only makes such a number and its +country code form share one placeholder."""
    email_obfuscations: bool = True
    """Also redact e-mail addresses written to dodge filters: "jane at example dot com",
    "jane[at]example.com"."""
    ner_detector: str | None = None
    """Optional extra detector, "module:attribute": a class or factory called without
    arguments that returns an object with ``name`` and ``detect(text)`` (see
    sidecar.redaction.Detector), e.g. a Presidio adapter with a spaCy model you installed.
    Off by default."""

    @model_validator(mode="after")
    def _check(self) -> RedactionSettings:
        for name in self.modes:
            if not _ENTITY_NAME.match(name):
                raise ValueError(f"redaction mode for {name!r}: not an entity type name")
        uses_hmac = self.default_mode == "hmac" or "hmac" in self.modes.values()
        if uses_hmac and (self.hmac_key is None or not self.hmac_key.get_secret_value()):
            raise ValueError("hmac redaction mode needs redaction.hmac_key")
        if self.ner_detector is not None and ":" not in self.ner_detector:
            raise ValueError("redaction.ner_detector must read 'module:attribute'")
        return self
