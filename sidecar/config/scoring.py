"""Settings of the scores: how the per-trace scores are combined (``scoring.*``)."""

from __future__ import annotations

from pydantic import Field, model_validator

from sidecar.config._section import Section

__all__ = ["ScoringSettings"]


class ScoringSettings(Section):
    """How the per-trace scores are combined."""

    weight_correctness: float = Field(default=0.45, ge=0.0, le=1.0)
    """Weight of correctness in the overall score."""
    weight_completeness: float = Field(default=0.40, ge=0.0, le=1.0)
    """Weight of completeness in the overall score."""
    weight_validity: float = Field(default=0.15, ge=0.0, le=1.0)
    """Weight of citation validity in the overall score."""
    partial_credit: float = Field(default=0.5, ge=0.0, le=1.0)
    """Value of a 'partial' verdict (supported is 1.0, unsupported 0.0)."""

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> ScoringSettings:
        total = self.weight_correctness + self.weight_completeness + self.weight_validity
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"overall weights must sum to 1.0, they sum to {total:.4f}")
        return self
