"""Builds the pipeline the settings ask for: the one place collaborators are chosen."""

from __future__ import annotations

from sidecar.config import Settings
from sidecar.judge import JudgeObserver, build_judge_stage
from sidecar.pipeline import Pipeline
from sidecar.redaction import build_redactor

__all__ = ["build_pipeline"]


def build_pipeline(settings: Settings, *, judge_observer: JudgeObserver | None = None) -> Pipeline:
    """A pipeline with the redactor and judge stage the settings select.

    ``judge_observer`` (e.g. ``exporters.prometheus.CitewatchMetrics``) receives judge counts.
    """
    redactor = build_redactor(settings.redaction) if settings.redaction.enabled else None
    return Pipeline(settings, redactor=redactor,
                    judge=build_judge_stage(settings, observer=judge_observer))
