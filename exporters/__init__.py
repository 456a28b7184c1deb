"""The ways results leave the process: Prometheus metrics, Kafka topics, OpenTelemetry."""

from __future__ import annotations

from exporters.http import MetricsServer, serve
from exporters.prometheus import CitewatchMetrics

__all__: list[str] = ["CitewatchMetrics", "MetricsServer", "serve"]
