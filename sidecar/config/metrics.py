"""The Prometheus endpoint and label policy (``metrics.*``)."""

from __future__ import annotations

from pydantic import Field

from sidecar.config._section import Section

__all__ = ["MetricsSettings"]


class MetricsSettings(Section):
    """The Prometheus endpoint and label policy."""

    port: int = Field(default=9464, ge=0, le=65535)
    """Port of /metrics, /healthz and /readyz (0 picks a free port)."""
    address: str = "127.0.0.1"
    """Bind address; this host only by default. In a pod or container, set the pod's
    address (the shipped manifests set 0.0.0.0) so Prometheus and the kubelet reach it."""
    max_connections: int = Field(default=256, ge=8, le=65_536)
    """Open connections to the metrics port; beyond it the oldest idle one is closed for
    each new one (lowered to fit the process's descriptor limit)."""
    request_timeout_seconds: float = Field(default=5.0, gt=0.0, le=300.0)
    """Seconds a client may take to send a complete request, or stay idle between two."""
    response_timeout_seconds: float = Field(default=30.0, gt=0.0, le=600.0)
    """Seconds a request may take to be answered and its response taken by the client."""
    backlog: int = Field(default=1024, ge=16, le=65_535)
    """Connections the kernel queues on the metrics port before they are accepted."""
    apps: list[str] = Field(default_factory=list)
    """Allow-list of app label values; any other app is reported as 'other'. When empty,
    the first ``max_apps`` apps seen are admitted instead."""
    max_apps: int = Field(default=20, ge=0, le=1000)
    """With no ``apps`` list: how many distinct apps get their own label value, first seen
    first; later ones are 'other' (bounded, so label cardinality stays bounded)."""
