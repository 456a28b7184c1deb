"""The LLM judge: typed per-claim verdicts on the passages each claim cites.

Backends (``openai-responses``, ``openai-chat``, and ``lexical``, the offline screen) sit
behind :class:`JudgeBackend`; :class:`JudgeStageImpl` adds sampling, the screen in front of
an LLM, budgets, the verdict cache, retries, the circuit breaker, bounded concurrency, reply
validation and misattribution.
"""

from __future__ import annotations

from sidecar.judge.backend import BackendReply, JudgeBackend, JudgeCallError
from sidecar.judge.cache import VerdictCache
from sidecar.judge.factory import build_judge_stage
from sidecar.judge.lexical import LEXICAL_MODEL, SCREEN_JUDGE, LexicalBackend, screen_verdict
from sidecar.judge.observer import JudgeObserver, NullObserver
from sidecar.judge.openai_backends import OpenAIChatBackend, OpenAIResponsesBackend
from sidecar.judge.packet import ClaimRequest, JudgePacket, Passage, build_packet, cache_key
from sidecar.judge.registry import (
    BACKEND_NAMES,
    BACKENDS,
    JUDGE_CHOICES,
    NO_JUDGE,
    BackendSpec,
    build_backend,
    resolve_backend_name,
)
from sidecar.judge.resilience import Backoff, CircuitBreaker
from sidecar.judge.rubric import RUBRIC_VERSION, Rubric, load_rubric
from sidecar.judge.stage import JudgeStageImpl
from sidecar.judge.validation import check_verdict, quote_found, quote_status, validate_reply

__all__ = [
    "BACKENDS",
    "BACKEND_NAMES",
    "JUDGE_CHOICES",
    "LEXICAL_MODEL",
    "NO_JUDGE",
    "RUBRIC_VERSION",
    "SCREEN_JUDGE",
    "Backoff",
    "BackendReply",
    "BackendSpec",
    "CircuitBreaker",
    "ClaimRequest",
    "JudgeBackend",
    "JudgeCallError",
    "JudgeObserver",
    "JudgePacket",
    "JudgeStageImpl",
    "LexicalBackend",
    "NullObserver",
    "OpenAIChatBackend",
    "OpenAIResponsesBackend",
    "Passage",
    "Rubric",
    "VerdictCache",
    "build_backend",
    "build_judge_stage",
    "build_packet",
    "cache_key",
    "check_verdict",
    "load_rubric",
    "quote_found",
    "quote_status",
    "resolve_backend_name",
    "screen_verdict",
    "validate_reply",
]
