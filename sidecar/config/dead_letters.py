"""What a dead letter carries (``dead_letters.*``)."""

from __future__ import annotations

from typing import Literal

from sidecar.config._section import Section

__all__ = ["DeadLetterPayload", "DeadLetterSettings"]


DeadLetterPayload = Literal["raw", "redacted"]


class DeadLetterSettings(Section):
    """What a dead letter carries of the record that could not be evaluated."""

    payload: DeadLetterPayload | None = None
    """raw (the record's bytes as read) or redacted (its key, value and headers through the
    redaction settings, as text when they do not parse). Unset, each sink has its default:
    raw on the Kafka dead-letter topic, since the input topic holds the same bytes already
    (give the topic the input's ACLs and no longer a retention); redacted in the
    input.dead_letters file, which would otherwise be a new copy of raw text."""
