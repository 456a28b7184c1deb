"""Shared test and benchmark support: what the tests and bench/ both use.

bench/ imports from tests/ only through this package (tests/test_layout.py holds it to that),
so a benchmark and the tests it is measured against run on the same fakes and data:

- ``openai_server``: a local HTTP server speaking the OpenAI Responses and Chat Completions
  APIs, the one fake of an LLM judge;
- ``judged``: a pipeline whose judge talks to that server (or the offline screen), with its
  metrics on a fresh registry.
"""

from __future__ import annotations

__all__ = ["judged", "openai_server"]
