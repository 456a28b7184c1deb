"""The one failure policy of every runtime: whatever goes wrong with one record is a value.

`citewatch check`, the file source and the Kafka consumer all go through
:func:`evaluate_raw`: decoding, the pipeline (checks, redaction, judge, scoring) and
serialisation of one record either produce an :class:`Evaluated` or a :class:`Failure`
(reason code, error class and a message without trace text), never an exception. The
runtime then dead-letters the failure, counts it and goes on with the neighbours.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import overload

from schemas import EvaluationRecord, Trace
from sidecar.decode import DecodeLimits, decode_trace
from sidecar.errors import CitewatchError
from sidecar.pipeline import Pipeline

__all__ = [
    "SAMPLED_REASONS",
    "SAMPLE_LINES",
    "Admit",
    "Evaluated",
    "Failure",
    "Skipped",
    "decode_guarded",
    "evaluate_guarded",
    "evaluate_raw",
    "serialise_record",
    "where",
]

logger = logging.getLogger(__name__)

SAMPLE_LINES = 5
"""Bad lines a file run keeps (the first ones) to try other input formats on."""
SAMPLED_REASONS = frozenset({"invalid_trace", "unreadable_input"})
"""Failures another input format may read: the line is JSON, only not this format."""


@dataclass(frozen=True, slots=True)
class Failure:
    """Why one record could not be evaluated; every field is safe for logs and headers."""

    reason: str
    """Dead-letter reason code, also the ``reason`` label of citewatch_dead_letters_total."""
    error_class: str
    message: str
    """Never contains trace text: our own errors promise that; others are named only."""

    @classmethod
    def of(cls, exc: BaseException, *, reason: str, during: str) -> Failure:
        """The failure for ``exc``. A citewatch error keeps its reason and message; any other
        exception (a bug, MemoryError, RecursionError) gets ``reason`` and a message that
        names its class and the step only, as its text could quote the record."""
        if isinstance(exc, CitewatchError):
            return cls(exc.reason, type(exc).__name__, str(exc))
        return cls(reason, type(exc).__name__, f"{type(exc).__name__} raised during {during}")


@dataclass(frozen=True, slots=True)
class Evaluated:
    """An evaluation record and its UTF-8 JSON, ready to be written or produced."""

    record: EvaluationRecord
    payload: bytes


@dataclass(frozen=True, slots=True)
class Skipped:
    """A record that decoded but that the caller chose not to evaluate (a duplicate)."""

    trace: Trace


Admit = Callable[[Trace], Awaitable[bool]]
"""Asked once a record has decoded: evaluate it (True) or skip it (False)."""


def decode_guarded(value: bytes | str, limits: DecodeLimits) -> Trace | Failure:
    """:func:`decode_trace`, with every exception turned into a :class:`Failure`."""
    try:
        return decode_trace(value, limits=limits)
    except Exception as exc:
        if not isinstance(exc, CitewatchError):
            logger.error("decoding raised %s at %s", type(exc).__name__, where(exc))
        return Failure.of(exc, reason="decode_error", during="decoding")


def serialise_record(record: EvaluationRecord) -> bytes:
    """The record as UTF-8 JSON (the bytes of ``record.model_dump_json()``, made without the
    str in between). Raises whatever pydantic raises."""
    return type(record).__pydantic_serializer__.to_json(record)


async def evaluate_guarded(pipeline: Pipeline, trace: Trace) -> Evaluated | Failure:
    """Evaluate and serialise one trace; any exception becomes a :class:`Failure`
    (``evaluation_error`` from a stage, ``serialisation_error`` from writing the record).

    Cancellation is not a failure: it propagates.
    """
    try:
        record = await pipeline.evaluate(trace)
    except Exception as exc:
        logger.error(
            "evaluation of trace %s raised %s at %s", trace.trace_id, type(exc).__name__, where(exc)
        )
        return Failure.of(exc, reason="evaluation_error", during="evaluation")
    try:
        return Evaluated(record, serialise_record(record))
    except Exception as exc:
        logger.error(
            "evaluation record of trace %s cannot be serialised (%s)",
            trace.trace_id,
            type(exc).__name__,
        )
        return Failure.of(exc, reason="serialisation_error", during="serialisation")


@overload
async def evaluate_raw(
    pipeline: Pipeline, value: bytes | str, limits: DecodeLimits, *, admit: None = None
) -> Evaluated | Failure: ...


@overload
async def evaluate_raw(
    pipeline: Pipeline, value: bytes | str, limits: DecodeLimits, *, admit: Admit
) -> Evaluated | Failure | Skipped: ...


async def evaluate_raw(
    pipeline: Pipeline, value: bytes | str, limits: DecodeLimits, *, admit: Admit | None = None
) -> Evaluated | Failure | Skipped:
    """One raw record, decoded under ``limits`` and evaluated under the failure policy.

    ``admit`` sees the decoded trace before anything is evaluated: the runtimes use it to
    skip duplicates, wait for a copy already in flight, and note the trace ID. Whatever goes
    wrong in decoding, evaluating or serialising is a :class:`Failure`; an exception
    raised by ``admit`` itself, or a cancellation, propagates.
    """
    trace = decode_guarded(value, limits)
    if isinstance(trace, Failure):
        return trace
    if admit is not None and not await admit(trace):
        return Skipped(trace)
    return await evaluate_guarded(pipeline, trace)


def where(exc: BaseException) -> str:
    """The innermost code location of ``exc`` (file:line in function), for logs.

    Exception messages can quote trace text, so logs of foreign exceptions carry their
    class and location only, never ``str(exc)`` or a formatted traceback.
    """
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "unknown location"
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}"
