"""Builds the pipeline the settings ask for: the one place collaborators are chosen."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from schemas import EvaluationRecord
from schemas.vocabulary import Stage
from sidecar.config import Settings
from sidecar.judge import build_judge_stage
from sidecar.pipeline import Pipeline
from sidecar.redaction import build_redactor

if TYPE_CHECKING:  # for annotations only: a run without tracing never imports OpenTelemetry
    from opentelemetry.trace import Tracer

    from sidecar.judge import JudgeObserver

__all__ = ["build_pipeline"]


def build_pipeline(
    settings: Settings,
    *,
    judge_observer: JudgeObserver | None = None,
    on_stage: Callable[[Stage, float], None] | None = None,
    tracer: Tracer | None = None,
    on_record: Callable[[EvaluationRecord], None] | None = None,
) -> Pipeline:
    """A pipeline with the redactor and judge stage the settings select.

    ``judge_observer`` (e.g. ``exporters.prometheus.CitewatchMetrics``) receives judge counts;
    ``on_stage`` (e.g. ``CitewatchMetrics.observe_stage``) the time of each stage;
    ``tracer`` makes each LLM judge call a CLIENT span under the current span;
    ``on_record`` receives every evaluation record built.
    """
    redactor = build_redactor(settings.redaction) if settings.redaction.enabled else None
    return Pipeline(
        settings,
        redactor=redactor,
        judge=build_judge_stage(settings, observer=judge_observer, tracer=tracer),
        on_stage=on_stage,
        on_record=on_record,
    )
