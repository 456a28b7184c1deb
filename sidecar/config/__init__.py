"""The one settings object of citewatch.

Built by the CLI from (highest first) command-line flags, ``CITEWATCH_*`` environment
variables, an optional YAML file, and the defaults. Settings are grouped in sections;
an environment variable names the section then the field: ``CITEWATCH_JUDGE_MODEL`` sets
``judge.model``, ``CITEWATCH_METRICS_PORT`` sets ``metrics.port``.

Each section is a model in the module of this package named after it (``judge.*`` in
``judge.py``, with its fields' defaults and documentation); ``settings.py`` gathers them
into :class:`Settings` and builds it (:func:`load_settings`).
"""

from __future__ import annotations

from sidecar.config.checks import ChecksSettings
from sidecar.config.citations import CitationsSettings, Numbering
from sidecar.config.claims import ClaimsSettings, DeriveMode
from sidecar.config.dead_letters import DeadLetterPayload, DeadLetterSettings
from sidecar.config.gate import GateSettings
from sidecar.config.input import InputSettings
from sidecar.config.judge import JudgeSettings
from sidecar.config.kafka import KafkaSettings
from sidecar.config.limits import LimitsSettings
from sidecar.config.metrics import MetricsSettings
from sidecar.config.producer import ProducerSettings
from sidecar.config.redaction import CustomPattern, RedactionSettings
from sidecar.config.review import ReviewSettings
from sidecar.config.runtime import RuntimeSettings
from sidecar.config.sampling import SamplingSettings
from sidecar.config.scoring import ScoringSettings
from sidecar.config.settings import Settings, load_settings

__all__ = [
    "ChecksSettings",
    "CitationsSettings",
    "ClaimsSettings",
    "CustomPattern",
    "DeadLetterPayload",
    "DeadLetterSettings",
    "DeriveMode",
    "GateSettings",
    "InputSettings",
    "JudgeSettings",
    "KafkaSettings",
    "LimitsSettings",
    "MetricsSettings",
    "Numbering",
    "ProducerSettings",
    "RedactionSettings",
    "ReviewSettings",
    "RuntimeSettings",
    "SamplingSettings",
    "ScoringSettings",
    "Settings",
    "load_settings",
]
