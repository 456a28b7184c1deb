"""A pipeline with a judge (an LLM backend against the local server, or the screen), its
metrics on a fresh registry, and the records of the traces it evaluated."""

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
from tests.judge.openai_server import FakeOpenAI

__all__ = ["MODEL", "Judged"]

MODEL = "judge-model-2026-01-01"


class Judged:
    """``server`` None means the offline screen (judge="lexical") is the backend."""

    def __init__(self, server: FakeOpenAI | None, backend: str = "openai-chat",
                 sampling: dict[str, Any] | None = None, **judge: Any) -> None:
        judge_settings: dict[str, Any] = {"backend": "lexical"}
        if server is not None:
            judge_settings = {"backend": backend, "base_url": server.base_url,
                              "api_key": "test-key", "model": MODEL, "timeout_seconds": 2.0,
                              "max_retries": 0, "retry_base_seconds": 0.001}
        settings = Settings(judge={**judge_settings, **judge},
                            sampling={"rate": 1.0, **(sampling or {})},
                            metrics={"apps": ["support"]})
        self.registry = CollectorRegistry()
        self.metrics = CitewatchMetrics(registry=self.registry, apps=["support"])
        self.pipeline: Pipeline = build_pipeline(settings, judge_observer=self.metrics)
        assert isinstance(self.pipeline.judge, JudgeStageImpl)
        self.stage: JudgeStageImpl = self.pipeline.judge

    def evaluate(self, *traces: Trace) -> list[EvaluationRecord]:
        async def run() -> list[EvaluationRecord]:
            try:
                return [await self.pipeline.evaluate(t) for t in traces]
            finally:
                await self.stage.aclose(1.0)

        records = asyncio.run(run())
        for record in records:
            self.metrics.observe_record(record)
        return records

    def value(self, name: str, **labels: str) -> float:
        return self.registry.get_sample_value(name, labels) or 0.0
