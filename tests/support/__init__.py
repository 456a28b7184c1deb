"""Shared test and benchmark support: what the tests and bench/ both use.

bench/ imports from tests/ only through this package (tests/test_layout.py holds it to that),
so a benchmark and the tests it is measured against run on the same fakes and data:

- ``factories``: small builders of valid traces; ``traces``: the judge tests' traces and
  packets; ``payloads``: records of each input format built with the SDKs' own models;
- ``openai_server``: a local HTTP server speaking the OpenAI Responses and Chat Completions
  APIs, the one fake of an LLM judge; ``judged``: a pipeline whose judge talks to that
  server (or the offline screen), with its metrics on a fresh registry;
- ``kafka``: the local broker, topics (set up in one way), producing, reading, offsets and
  `citewatch run` as a child process; ``servers``: ports, waiting for and stopping servers;
- ``redaction_corpus``: the redaction corpora and how they are scored.
"""

from __future__ import annotations

__all__ = [
    "factories",
    "judged",
    "kafka",
    "openai_server",
    "payloads",
    "redaction_corpus",
    "servers",
    "traces",
]
