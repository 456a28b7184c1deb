"""Settings of the deterministic checks (``checks.*``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from sidecar._regex import compile_linear
from sidecar.config._section import Section

__all__ = ["ChecksSettings"]


class ChecksSettings(Section):
    """Deterministic checks."""

    marker_pattern: str | None = None
    """A regex (RE2 syntax: linear time, no backreferences or lookaround) whose first group
    is the text inside one citation marker (IDs separated by commas or semicolons).
    Default: bracketed IDs like [S1], [1], [S1, S2]."""
    max_record_bytes: int = Field(default=1_048_576, gt=0)
    """Records larger than this are dead-lettered with reason too_large."""
    max_json_depth: int = Field(default=32, gt=1)
    """JSON nested deeper than this is dead-lettered with reason too_deep."""

    @model_validator(mode="after")
    def _linear_marker_pattern(self) -> ChecksSettings:
        if self.marker_pattern is not None:
            try:
                compiled = compile_linear(self.marker_pattern)
            except ValueError as exc:
                raise ValueError(f"checks.marker_pattern: {exc}") from None
            if compiled.groups < 1:
                raise ValueError("checks.marker_pattern needs one capturing group for the IDs")
        return self
