"""Helpers for integration tests that start local servers: ports, JSON, waiting, stopping."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

__all__ = ["free_port", "get_json", "stop", "wait_for"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get_json(url: str) -> Any:
    """GET ``url`` and decode its JSON body."""
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def wait_for(
    what: str,
    probe: Callable[[], Any],
    proc: subprocess.Popen[bytes],
    *,
    deadline_seconds: float = 60.0,
    log: Path | None = None,
) -> Any:
    """Poll ``probe`` until it returns something truthy and return that; fail (with the
    tail of ``log`` if given) when the server exits or the deadline passes. Connection
    errors while the server starts count as not yet."""

    def tail() -> str:
        return f": {log.read_text(errors='replace')[-2000:]}" if log is not None else ""

    deadline = time.monotonic() + deadline_seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode} while waiting for {what}{tail()}")
        try:
            result = probe()
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            result = None
        if result:
            return result
        time.sleep(0.25)
    pytest.fail(f"timed out after {deadline_seconds:.0f}s waiting for {what}{tail()}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a server started by the test, by its own pid; kill it if it lingers."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
