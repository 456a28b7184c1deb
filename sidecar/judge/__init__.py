"""The LLM judge: typed per-claim verdicts on the passages each claim cites.

Backends (``openai-responses``, ``openai-chat``, and ``lexical``, the offline screen) sit
behind :class:`JudgeBackend`; :class:`JudgeStageImpl` adds sampling, the screen in front of
an LLM, budgets, the verdict cache, retries, the circuit breaker, bounded concurrency, reply
validation and misattribution.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sidecar import lazy_names

if TYPE_CHECKING:
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

# Each name is imported from its module on first use: the openai SDK and the screen's lexicon
# take most of a second to import, and a deterministic run (``--judge none``) needs neither.
_LAZY: dict[str, str] = {
    "BackendReply": "sidecar.judge.backend",
    "JudgeBackend": "sidecar.judge.backend",
    "JudgeCallError": "sidecar.judge.backend",
    "VerdictCache": "sidecar.judge.cache",
    "build_judge_stage": "sidecar.judge.factory",
    "LEXICAL_MODEL": "sidecar.judge.lexical",
    "SCREEN_JUDGE": "sidecar.judge.lexical",
    "LexicalBackend": "sidecar.judge.lexical",
    "screen_verdict": "sidecar.judge.lexical",
    "JudgeObserver": "sidecar.judge.observer",
    "NullObserver": "sidecar.judge.observer",
    "OpenAIChatBackend": "sidecar.judge.openai_backends",
    "OpenAIResponsesBackend": "sidecar.judge.openai_backends",
    "ClaimRequest": "sidecar.judge.packet",
    "JudgePacket": "sidecar.judge.packet",
    "Passage": "sidecar.judge.packet",
    "build_packet": "sidecar.judge.packet",
    "cache_key": "sidecar.judge.packet",
    "BACKEND_NAMES": "sidecar.judge.registry",
    "BACKENDS": "sidecar.judge.registry",
    "JUDGE_CHOICES": "sidecar.judge.registry",
    "NO_JUDGE": "sidecar.judge.registry",
    "BackendSpec": "sidecar.judge.registry",
    "build_backend": "sidecar.judge.registry",
    "resolve_backend_name": "sidecar.judge.registry",
    "Backoff": "sidecar.judge.resilience",
    "CircuitBreaker": "sidecar.judge.resilience",
    "RUBRIC_VERSION": "sidecar.judge.rubric",
    "Rubric": "sidecar.judge.rubric",
    "load_rubric": "sidecar.judge.rubric",
    "JudgeStageImpl": "sidecar.judge.stage",
    "check_verdict": "sidecar.judge.validation",
    "quote_found": "sidecar.judge.validation",
    "quote_status": "sidecar.judge.validation",
    "validate_reply": "sidecar.judge.validation",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


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
