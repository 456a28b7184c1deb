"""A pipeline with a judge (an LLM backend against the local OpenAI server, or the offline
screen), its metrics on a fresh registry, and the records of the traces it evaluated."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client import CollectorRegistry

from exporters.prometheus import CitewatchMetrics
from schemas import EvaluationRecord, Trace
from sidecar.assembly import build_pipeline
from sidecar.config import Settings
from sidecar.judge import JudgeStageImpl
from sidecar.pipeline import Pipeline
from tests.support.openai_server import FakeOpenAI

__all__ = ["MODEL", "Judged"]

MODEL = "judge-model-2026-01-01"


class Judged:
    """``server`` None means the offline screen (judge="lexical") is the backend.

    By default the judge is the cascade (screen, then the LLM) that fails a call at once
    (``max_retries`` 0), the metrics know the app "support" and every evaluated record is
    observed too; :meth:`llm_only` is the LLM judge alone with its retries. ``judge`` and
    ``sampling`` override any judge or sampling setting.
    """

    def __init__(
        self,
        server: FakeOpenAI | None,
        backend: str = "openai-chat",
        sampling: dict[str, Any] | None = None,
        *,
        apps: list[str] | None = None,
        observe_records: bool = True,
        **judge: Any,
    ) -> None:
        judge_settings: dict[str, Any] = {"backend": "lexical"}
        if server is not None:
            judge_settings = {
                "backend": backend,
                "base_url": server.base_url,
                "api_key": "test-key",
                "model": MODEL,
                "timeout_seconds": 2.0,
                "max_retries": 0,
                "retry_base_seconds": 0.001,
            }
        apps = ["support"] if apps is None else apps
        settings = Settings(
            judge={**judge_settings, **judge},
            sampling={"rate": 1.0, **(sampling or {})},
            metrics={"apps": apps},
        )
        self.observe_records = observe_records
        self.registry = CollectorRegistry()
        self.metrics = CitewatchMetrics(registry=self.registry, apps=apps)
        self.pipeline: Pipeline = build_pipeline(settings, judge_observer=self.metrics)
        assert isinstance(self.pipeline.judge, JudgeStageImpl)
        self.stage: JudgeStageImpl = self.pipeline.judge

    @classmethod
    def llm_only(
        cls, server: FakeOpenAI, backend: str = "openai-responses", **judge: Any
    ) -> Judged:
        """The LLM judge without the screen, retrying up to 4 times with backoff capped at
        2 s; only the judge's own metrics are recorded (records are not observed)."""
        settings: dict[str, Any] = {"screen": False, "max_retries": 4, "retry_max_seconds": 2.0}
        return cls(server, backend, observe_records=False, **{**settings, **judge})

    def evaluate(self, *traces: Trace) -> list[EvaluationRecord]:
        async def run() -> list[EvaluationRecord]:
            try:
                return [await self.pipeline.evaluate(t) for t in traces]
            finally:
                await self.stage.aclose(1.0)

        records = asyncio.run(run())
        if self.observe_records:
            for record in records:
                self.metrics.observe_record(record)
        return records

    def value(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0
