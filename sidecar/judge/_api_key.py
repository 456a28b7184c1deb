"""Whether an OpenAI-compatible judge has an API key: read without importing the openai SDK."""

from __future__ import annotations

import os

from sidecar.config import JudgeSettings

__all__ = ["api_key_configured"]


def api_key_configured(settings: JudgeSettings) -> bool:
    """Whether an API key comes from the settings or OPENAI_API_KEY."""
    return settings.api_key is not None or bool(os.environ.get("OPENAI_API_KEY"))
