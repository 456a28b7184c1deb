"""Builds the judge stage the settings ask for: the one place the judge is decided.

The backend name is resolved once (:func:`~sidecar.judge.registry.resolve_backend_name`),
the backend built from the registry, and the rubric loaded once; the built stage then says
what it runs (:attr:`JudgeStageImpl.identity`) to whoever needs to know, such as the
``citewatch_build_info`` metric.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sidecar.config import Settings
from sidecar.judge.registry import NO_JUDGE, build_backend, resolve_backend_name

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer

    from sidecar.judge.observer import JudgeObserver
    from sidecar.judge.stage import JudgeStageImpl

__all__ = ["build_judge_stage"]

logger = logging.getLogger(__name__)


def build_judge_stage(
    settings: Settings,
    *,
    observer: JudgeObserver | None = None,
    tracer: Tracer | None = None,
) -> JudgeStageImpl | None:
    """The judge stage for ``settings``, or None for backend "none".

    Raises :class:`sidecar.errors.ConfigError` for an unreadable rubric file or an OpenAI
    backend without an API key.
    """
    name = resolve_backend_name(settings)
    if name == NO_JUDGE:
        return None
    # The stage (and the screen it runs first) and the rubric are imported only when a
    # judge runs.
    from sidecar.judge.rubric import load_rubric
    from sidecar.judge.stage import JudgeStageImpl

    backend = build_backend(name, settings.judge)
    rubric = load_rubric(settings.judge.rubric_file)
    logger.info(
        "judge backend %s, model %s, rubric %s, sample rate %.4f",
        backend.name,
        backend.model,
        rubric.version,
        settings.sampling.rate,
    )
    return JudgeStageImpl(
        backend,
        judge_settings=settings.judge,
        sampling_settings=settings.sampling,
        rubric=rubric,
        observer=observer,
        tracer=tracer,
    )
