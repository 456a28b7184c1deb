"""Trace sources: where raw records come from, one Protocol for the ordered loop.

A :class:`TraceSource` yields numbered raw records (bytes, not yet decoded: decoding is
:func:`~sidecar.runtime.guard.evaluate_raw`'s job, so every runtime judges a record the
same way) and :data:`~sidecar.runtime.ordered.IDLE` when it is waiting for more.
:class:`LineSource` is the JSON Lines one, for a file or stdin, used by `citewatch check`
and the file source of `citewatch run`.
"""

from __future__ import annotations

import asyncio
import io
import threading
from collections.abc import AsyncGenerator, Callable
from typing import IO, Protocol

from sidecar.runtime.ordered import IDLE

__all__ = ["CHUNK_BYTES", "QUIET_SECONDS", "LineSource", "TraceSource"]

QUIET_SECONDS = 0.5
"""How long a pipe or terminal may keep the next line before the source says it is idle."""
CHUNK_BYTES = 1 << 16
"""Most bytes one read of a pipe or terminal takes: whatever has arrived, up to this."""


class TraceSource(Protocol):
    """Numbered raw records, in order, until the source ends or ``stop`` is set."""

    def records(self, stop: threading.Event) -> AsyncGenerator[tuple[int, bytes], None]:
        """Yield ``(position, raw record)``; ``(IDLE, b"")`` while waiting for more."""
        ...


class LineSource:
    """The non-blank lines of a JSON Lines stream opened in binary mode, numbered from 1
    (blank lines count), without their line ending.

    With ``follow``, the end of the stream is not the end: the source yields IDLE, waits
    ``interval`` seconds and reads on; a line still being written (no newline yet) waits
    for the rest. A pipe or terminal that stays quiet for :data:`QUIET_SECONDS` yields IDLE
    once while the read goes on, so what finished meanwhile is written instead of waiting
    for the next line. A pipe is read off the event loop by the chunk of whatever has
    arrived, not by the line: one hand-off to a thread and back per chunk, however many
    lines it holds.
    """

    def __init__(self, stream: IO[bytes], *, follow: bool = False, interval: float = 1.0) -> None:
        self.stream = stream
        self.follow = follow
        self.interval = interval
        try:
            self._blocking = not stream.seekable()
        except (AttributeError, ValueError):
            self._blocking = True
        read1 = getattr(stream, "read1", None)
        if read1 is None and isinstance(stream, io.RawIOBase):
            read1 = stream.read  # one read of a raw stream returns what has arrived
        self._read_chunk: Callable[[int], bytes] | None = read1

    async def records(
        self, stop: threading.Event | None = None
    ) -> AsyncGenerator[tuple[int, bytes], None]:
        """Yield ``(line number, line)`` until the stream ends (or, following, ``stop``)."""
        stop = stop if stop is not None else threading.Event()
        if self._blocking and self._read_chunk is not None:
            async for item in self._chunked(self._read_chunk, stop):
                yield item
            return
        number = 0
        partial = b""
        while not stop.is_set():
            # A pipe or terminal blocks in readline(); a regular file never does.
            if self._blocking:
                reading = asyncio.ensure_future(asyncio.to_thread(self.stream.readline))
                done, _ = await asyncio.wait([reading], timeout=QUIET_SECONDS)
                if not done:
                    yield IDLE, b""
                line = await reading
            else:
                line = self.stream.readline()
            if line:
                if not line.endswith(b"\n") and self.follow:
                    partial += line  # the writer is mid-line: wait for the rest
                    continue
                number += 1
                line, partial = partial + line, b""
                if line.strip():
                    yield number, line.rstrip(b"\r\n")
                continue
            if not self.follow:
                break
            yield IDLE, b""  # idle: the loop writes out what has finished meanwhile
            await asyncio.sleep(self.interval)
        if partial.strip() and not stop.is_set():
            yield number + 1, partial.rstrip(b"\r\n")

    async def _chunked(
        self, read_chunk: Callable[[int], bytes], stop: threading.Event
    ) -> AsyncGenerator[tuple[int, bytes], None]:
        """The records of a pipe or terminal, read a chunk at a time in a thread."""
        number = 0
        partial: list[bytes] = []  # the start of a line whose end has not arrived yet
        while not stop.is_set():
            reading = asyncio.ensure_future(asyncio.to_thread(read_chunk, CHUNK_BYTES))
            done, _ = await asyncio.wait([reading], timeout=QUIET_SECONDS)
            if not done:
                yield IDLE, b""
            chunk = await reading
            if chunk:
                if b"\n" not in chunk:
                    partial.append(chunk)
                    continue
                partial.append(chunk)
                lines = b"".join(partial).split(b"\n")
                last = lines.pop()  # what follows the last line end: a line begun
                partial = [last] if last else []
                for line in lines:
                    number += 1
                    if line.strip():
                        yield number, line.rstrip(b"\r")
                    if stop.is_set():
                        return
                continue
            if not self.follow:
                break
            yield IDLE, b""  # idle: the loop writes out what has finished meanwhile
            await asyncio.sleep(self.interval)
        rest = b"".join(partial)
        if rest.strip() and not stop.is_set():
            yield number + 1, rest.rstrip(b"\r\n")
