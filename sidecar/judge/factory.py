"""Chooses the judge backend the settings ask for and builds the judge stage."""

from __future__ import annotations

import logging

from opentelemetry.trace import Tracer

from sidecar.config import Settings
from sidecar.errors import ConfigError
from sidecar.judge.backend import JudgeBackend
from sidecar.judge.lexical import LexicalBackend
from sidecar.judge.observer import JudgeObserver
from sidecar.judge.openai_backends import (
    OpenAIChatBackend,
    OpenAIResponsesBackend,
    api_key_configured,
)
from sidecar.judge.stage import JudgeStageImpl

__all__ = ["build_judge_stage", "resolve_backend_name"]

logger = logging.getLogger(__name__)


def resolve_backend_name(settings: Settings) -> str:
    """The configured backend; unset means openai-responses with an API key, else lexical."""
    if settings.judge.backend is not None:
        return settings.judge.backend
    return "openai-responses" if api_key_configured(settings.judge) else "lexical"


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
    backend: JudgeBackend
    if name == "none":
        return None
    if name in ("openai-responses", "openai-chat") and not api_key_configured(settings.judge):
        raise ConfigError(f"the {name} judge needs an API key: set CITEWATCH_JUDGE_API_KEY or "
                          "OPENAI_API_KEY (a local OpenAI-compatible server accepts any value)")
    if name == "openai-responses":
        backend = OpenAIResponsesBackend(settings.judge)
    elif name == "openai-chat":
        backend = OpenAIChatBackend(settings.judge)
    else:
        backend = LexicalBackend()
    logger.info("judge backend %s, model %s, sample rate %.4f", backend.name, backend.model,
                settings.sampling.rate)
    return JudgeStageImpl(
        backend,
        judge_settings=settings.judge,
        sampling_settings=settings.sampling,
        observer=observer,
        tracer=tracer,
    )
