"""LineSource: the JSON Lines trace source of `citewatch check` and the file source."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import threading

from sidecar.runtime.lines import LineSource, TraceSource
from sidecar.runtime.ordered import IDLE


async def _take(source: TraceSource, stop: threading.Event, count: int) -> list[tuple[int, bytes]]:
    out = []
    async with contextlib.aclosing(source.records(stop)) as records:
        async for item in records:
            out.append(item)
            if len(out) == count:
                break
    return out


def test_non_blank_lines_are_numbered_as_in_the_file_without_line_endings() -> None:
    stream = io.BytesIO(b'{"a": 1}\r\n\n   \n{"b": 2}\n{"c": 3}')
    got = asyncio.run(_take(LineSource(stream), threading.Event(), 10))
    assert got == [(1, b'{"a": 1}'), (4, b'{"b": 2}'), (5, b'{"c": 3}')]


def test_a_pipe_is_read_off_the_event_loop_until_its_lines_arrive() -> None:
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb", buffering=0)
    source = LineSource(reader, follow=True, interval=0.01)
    stop = threading.Event()
    os.write(write_fd, b'{"a": 1}\n{"b"')

    async def run() -> list[tuple[int, bytes]]:
        loop = asyncio.get_running_loop()
        loop.call_later(0.2, os.write, write_fd, b": 2}\n")
        got = []
        async with contextlib.aclosing(source.records(stop)) as records:
            async for item in records:
                got.append(item)
                if len([x for x in got if x[0] != IDLE]) == 2:
                    break
        return got

    try:
        got = asyncio.run(run())
    finally:
        os.close(write_fd)
        reader.close()
    # While the pipe is quiet the source may say it is idle; the lines come whole.
    assert [item for item in got if item[0] != IDLE] == [(1, b'{"a": 1}'), (2, b'{"b": 2}')]


def test_a_followed_file_at_its_end_is_idle() -> None:
    source = LineSource(io.BytesIO(b'{"a": 1}\n'), follow=True, interval=0.01)
    got = asyncio.run(_take(source, threading.Event(), 3))
    assert got == [(1, b'{"a": 1}'), (IDLE, b""), (IDLE, b"")]


def test_a_followed_file_waits_for_the_rest_of_a_line_being_written() -> None:
    stream = io.BytesIO(b'{"a": 1}\n{"b"')
    source = LineSource(stream, follow=True, interval=0.01)

    async def run() -> list[tuple[int, bytes]]:
        def finish_the_line() -> None:
            position = stream.tell()
            stream.seek(0, io.SEEK_END)
            stream.write(b": 2}\n")
            stream.seek(position)

        asyncio.get_running_loop().call_later(0.05, finish_the_line)
        got = []
        async with contextlib.aclosing(source.records(threading.Event())) as records:
            async for item in records:
                if item[0] != IDLE:
                    got.append(item)
                if len(got) == 2:
                    break
        return got

    assert asyncio.run(run()) == [(1, b'{"a": 1}'), (2, b'{"b": 2}')]


def test_a_quiet_pipe_is_idle_while_its_read_goes_on() -> None:
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb", buffering=0)
    os.write(write_fd, b'{"a": 1}\n')

    async def run() -> list[tuple[int, bytes]]:
        got = []
        async with contextlib.aclosing(LineSource(reader).records(threading.Event())) as lines:
            async for item in lines:
                got.append(item)
                if item[0] == IDLE:
                    os.write(write_fd, b'{"b": 2}\n')
                if item[0] == 2:
                    break
        return got

    try:
        got = asyncio.run(run())
    finally:
        os.close(write_fd)
        reader.close()
    assert got == [(1, b'{"a": 1}'), (IDLE, b""), (2, b'{"b": 2}')]


def test_a_pipe_read_by_the_chunk_numbers_its_lines_as_a_file_does() -> None:
    """Many lines a chunk, a line split across chunks, blank lines, CRLF, a last line with
    no line end: the records and their numbers are a file's."""
    content = b'{"a": 1}\r\n\n{"b": 2}\n   \n' + b'{"c": "' + b"x" * 200_000 + b'"}\n{"d": 4}'
    from_file = asyncio.run(_take(LineSource(io.BytesIO(content)), threading.Event(), 10))
    read_fd, write_fd = os.pipe()
    reader = os.fdopen(read_fd, "rb")

    def write_all() -> None:
        with os.fdopen(write_fd, "wb") as writer:
            for start in range(0, len(content), 70_001):
                writer.write(content[start : start + 70_001])
                writer.flush()

    writer = threading.Thread(target=write_all)
    writer.start()
    try:
        from_pipe = asyncio.run(_take(LineSource(reader), threading.Event(), 10))
    finally:
        writer.join()
        reader.close()
    assert [number for number, _ in from_file] == [1, 3, 5, 6]
    assert from_pipe == from_file
