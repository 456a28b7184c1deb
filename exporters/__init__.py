"""The ways results leave the process: Prometheus metrics, Kafka topics, OpenTelemetry."""

from __future__ import annotations

__all__: list[str] = []
