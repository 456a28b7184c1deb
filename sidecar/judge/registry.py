"""The judge backends by name: what each one is, how it is built, what it needs.

The names are one vocabulary, :data:`schemas.JudgeBackendName` (``JudgeChoice`` adds
``none``); the settings field ``judge.backend`` is typed with it, the CLI's ``--judge``
choices are read from here, and :func:`build_backend` is the only place a name becomes a
backend. A name without an entry here (or an entry without a name) fails at import, so the
vocabulary and the registry cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, get_args

from schemas import JudgeBackendName, JudgeChoice
from sidecar.config import JudgeSettings, Settings
from sidecar.errors import ConfigError
from sidecar.judge._api_key import api_key_configured

if TYPE_CHECKING:  # the backends' protocol and packets: imported by a backend, when built
    from sidecar.judge.backend import JudgeBackend

__all__ = [
    "BACKENDS",
    "BACKEND_NAMES",
    "JUDGE_CHOICES",
    "NO_JUDGE",
    "BackendSpec",
    "build_backend",
    "resolve_backend_name",
]

NO_JUDGE: Final = "none"
"""The judge choice that turns the judge off: deterministic checks only."""


@dataclass(frozen=True, slots=True)
class BackendSpec:
    """One judge backend: its builder, and whether it needs an API key."""

    build: Callable[[JudgeSettings], JudgeBackend]
    needs_api_key: bool
    summary: str


# Each builder imports its backend when called: the openai SDK and the screen's lexicon take
# most of a second to import, and a command that never builds them should not pay for it.
def _openai_responses(settings: JudgeSettings) -> JudgeBackend:
    from sidecar.judge.openai_backends import OpenAIResponsesBackend

    return OpenAIResponsesBackend(settings)


def _openai_chat(settings: JudgeSettings) -> JudgeBackend:
    from sidecar.judge.openai_backends import OpenAIChatBackend

    return OpenAIChatBackend(settings)


def _lexical(_settings: JudgeSettings) -> JudgeBackend:
    from sidecar.judge.lexical import LexicalBackend

    return LexicalBackend()


BACKENDS: Mapping[JudgeBackendName, BackendSpec] = {
    "openai-responses": BackendSpec(
        _openai_responses, needs_api_key=True,
        summary="OpenAI Responses API with structured outputs"),
    "openai-chat": BackendSpec(
        _openai_chat, needs_api_key=True,
        summary="Chat Completions with a JSON schema: vLLM, Ollama and other OpenAI-compatible "
                "servers via judge.base_url"),
    "lexical": BackendSpec(
        _lexical, needs_api_key=False,
        summary="the offline screen: no network, abstains when unsure"),
}  # fmt: skip

BACKEND_NAMES: tuple[JudgeBackendName, ...] = get_args(JudgeBackendName)
"""Every backend name, in the vocabulary's order (``replay`` and ``stability`` choices)."""

JUDGE_CHOICES: tuple[JudgeChoice, ...] = get_args(JudgeChoice)
"""Every judge choice: the backends and ``none`` (``check`` and ``run`` choices)."""

if set(BACKENDS) != set(BACKEND_NAMES) or JUDGE_CHOICES != (*BACKEND_NAMES, NO_JUDGE):
    raise ImportError("judge backend registry and schemas.JudgeBackendName disagree")


def resolve_backend_name(settings: Settings) -> JudgeChoice:
    """The configured judge; unset means lexical (the offline screen).

    An LLM judge costs money, so it runs only when ``judge.backend`` (``--judge``) names
    it: an API key in the settings or in OPENAI_API_KEY alone never switches it on.
    """
    if settings.judge.backend is not None:
        return settings.judge.backend
    return "lexical"


def build_backend(name: JudgeBackendName, settings: JudgeSettings) -> JudgeBackend:
    """The backend called ``name``, built from ``settings``.

    Raises :class:`sidecar.errors.ConfigError` when it needs an API key and none is set.
    """
    spec = BACKENDS[name]
    if spec.needs_api_key and not api_key_configured(settings):
        raise ConfigError(
            f"the {name} judge needs an API key: set CITEWATCH_JUDGE_API_KEY or "
            "OPENAI_API_KEY (a local OpenAI-compatible server accepts any value)"
        )
    return spec.build(settings)
