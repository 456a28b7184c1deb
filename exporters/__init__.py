"""The ways results leave the process: Prometheus metrics, Kafka topics, OpenTelemetry."""

from __future__ import annotations

from exporters.http import MetricsServer, serve
from exporters.prometheus import CitewatchMetrics
from exporters.tracing import configure_tracing

__all__: list[str] = ["CitewatchMetrics", "MetricsServer", "configure_tracing", "serve"]
