"""The file source, and what input records are (``input.*``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from schemas import InputFormat
from sidecar.config._section import Section

__all__ = ["InputSettings"]


class InputSettings(Section):
    """The embedded file source used instead of Kafka, and what input records are."""

    format: InputFormat = "trace_v1"
    """What each record of the input (file, standard input or Kafka topic) is: trace_v1, or
    openai_responses, openai_chat, anthropic_messages, gemini, bedrock (an API exchange in
    an envelope, see docs/producing.md), otlp_json or otlp_proto (the spans of one trace, as the
    OpenTelemetry Collector's kafka exporter writes them)."""
    path: str | None = None
    """JSON Lines file of traces, or - for standard input. When set, Kafka is not used."""
    output: str | None = None
    """Where evaluation records go with a file input; standard output when unset."""
    once: bool = False
    """Stop at the end of the input instead of following it as it grows."""
    dead_letters: str | None = None
    """JSON Lines file for bad input lines (line number, reason); not written when unset."""
    follow_interval_seconds: float = Field(default=0.5, gt=0.0, le=60.0)
    """How often a followed file is checked for new lines."""
    concurrency: int = Field(default=64, ge=1, le=4096)
    """Traces evaluated at once from a file (matters with a slow judge)."""

    @model_validator(mode="after")
    def _lines_hold_text(self) -> InputSettings:
        if self.path is not None and self.format == "otlp_proto":
            raise ValueError(
                "otlp_proto records are read from Kafka only (a file of lines "
                "cannot hold protobuf); use otlp_json for files"
            )
        return self
