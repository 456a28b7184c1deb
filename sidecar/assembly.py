"""Builds the pipeline the settings ask for: the one place collaborators are chosen."""

from __future__ import annotations

from sidecar.config import Settings
from sidecar.pipeline import Pipeline

__all__ = ["build_pipeline"]


def build_pipeline(settings: Settings) -> Pipeline:
    """A pipeline with the redactor and judge stage the settings select."""
    return Pipeline(settings)
