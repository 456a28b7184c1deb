"""The trust tools: calibration against people, the regression gate, judge stability, replay
and the weekly report. They use the runtime only through schemas, errors and the pipeline."""

from __future__ import annotations

from sidecar.quality.calibration import CalibrationReport, calibrate
from sidecar.quality.gate import decide, load_summary
from sidecar.quality.replay import load_traces, replay_labels
from sidecar.quality.report import WeeklyReport, weekly_from_records
from sidecar.quality.stability import measure_stability

__all__ = [
    "CalibrationReport",
    "WeeklyReport",
    "calibrate",
    "decide",
    "load_summary",
    "load_traces",
    "measure_stability",
    "replay_labels",
    "weekly_from_records",
]
