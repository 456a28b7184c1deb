"""Building a redactor from settings, custom regex detectors and the optional NER slot."""

from __future__ import annotations

import importlib
import logging
from functools import partial
from typing import Any

from sidecar._regex import compile_linear
from sidecar.config import RedactionSettings
from sidecar.errors import ConfigError
from sidecar.redaction._base import Detector, Entity
from sidecar.redaction._redactor import Redactor
from sidecar.redaction._scanner import PatternDetector

__all__ = ["RegexDetector", "build_redactor", "load_detector"]

logger = logging.getLogger(__name__)


class RegexDetector:
    """A custom entity type found by a regular expression (group 1's span if it has one).

    The pattern runs on RE2, in time linear in the text; one that needs backtracking
    (backreferences, lookaround) raises ValueError here, and settings refuse it before.
    """

    def __init__(self, entity_type: str, pattern: str) -> None:
        self.name = f"custom:{entity_type}"
        self.entity_type = entity_type
        self._regex: Any = compile_linear(pattern)

    def detect(self, text: str) -> list[Entity]:
        """Every non-empty match of the pattern."""
        group = 1 if self._regex.groups else 0
        return [
            Entity(self.entity_type, m.start(group), m.end(group))
            for m in self._regex.finditer(text)
            if m.end(group) > m.start(group)
        ]


def load_detector(spec: str) -> Detector:
    """Import "module:attribute" and call it without arguments to get a detector.

    Raises ConfigError when the import fails or the result is not a Detector.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module_name), attribute)
        detector = factory()
    except Exception as exc:
        raise ConfigError(
            f"redaction.ner_detector {spec}: cannot load: {type(exc).__name__}: {exc}"
        ) from None
    if not isinstance(detector, Detector):
        raise ConfigError(f"redaction.ner_detector {spec}: has no name and detect(text)")
    return detector


def build_redactor(settings: RedactionSettings) -> Redactor:
    """The redactor the settings describe: built-in types, custom patterns, the NER slot.

    Raises ConfigError for a detector that cannot be loaded.
    """
    detectors: list[Detector] = []
    patterns = [(p.name, p.pattern) for p in settings.custom_patterns]
    builtin = partial(
        PatternDetector,
        settings.types,
        phone_region=settings.phone_region,
        email_obfuscations=settings.email_obfuscations,
    )
    if settings.types or patterns:
        try:
            # Configured patterns run in the engine with the built-in types: a text stays
            # there whole, whatever is configured.
            detectors.append(builtin(patterns=patterns))
            patterns = []
        except (ValueError, TypeError) as exc:
            logger.warning(
                "redaction.custom_patterns run on RE2 beside the engine, slower "
                "(the engine refused them: %s)",
                str(exc).splitlines()[0],
            )
            if settings.types:
                detectors.append(builtin())
    detectors.extend(RegexDetector(name, pattern) for name, pattern in patterns)
    if settings.ner_detector:
        detectors.append(load_detector(settings.ner_detector))
    key = settings.hmac_key.get_secret_value().encode() if settings.hmac_key else None
    return Redactor(
        detectors,
        modes=settings.modes,
        default_mode=settings.default_mode,
        allow=settings.allow,
        hmac_key=key,
    )
