"""The error of a run whose input held no trace, and the input format that would read it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence

from schemas import InputFormat
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import CitewatchError
from sidecar.inputs import LINE_FORMATS
from sidecar.runtime.guard import SAMPLE_LINES, SAMPLED_REASONS

__all__ = ["SAMPLE_LINES", "SAMPLED_REASONS", "formats_reading", "no_traces_message"]


def formats_reading(values: Sequence[bytes], limits: DecodeLimits) -> list[InputFormat]:
    """The line formats other than ``limits.input_format`` under which every one of
    ``values`` decodes to a trace (none when ``values`` is empty), in a fixed order."""
    if not values:
        return []
    found: list[InputFormat] = []
    for candidate in sorted(LINE_FORMATS - {limits.input_format}):
        other = dataclasses.replace(limits, input_format=candidate)
        try:
            for value in values:
                decode_trace(value, limits=other)
        except CitewatchError:
            continue
        found.append(candidate)
    return found


def no_traces_message(
    where: str, *, bad: Counter[str], readers: Iterable[InputFormat], kept: str | None
) -> str:
    """One line: nothing in ``where`` was a trace, the bad lines by reason, which format
    would read them (``readers``), and that the earlier output ``kept`` was left as it was."""
    if not bad:
        text = f"no traces in {where}: the input is empty"
    else:
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(bad.items()))
        text = f"no traces in {where}: every line is bad ({reasons})"
        names = list(readers)
        if names:
            text += f"; they read as {' or '.join(names)} records: add --input-format {names[0]}"
    return text + (f" ({kept} left as it was)" if kept else "")
