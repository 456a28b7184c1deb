"""The metrics port under hostile load on 127.0.0.1: probes still answered within the
manifests' probe timeouts.

The server runs in its own process (as in the pod), optionally with a lowered descriptor
limit; this process plays slowloris clients (a byte at a time, reconnecting when cut),
a thousand idle clients (reopened as they are closed) and the kubelet (a fresh connection per
probe, the manifests' timeoutSeconds as its timeout).
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

_SERVER = """
import resource, sys
nofile = int(sys.argv[1])
if nofile:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, hard))
from prometheus_client import CollectorRegistry
from exporters.http import serve
from exporters.prometheus import CitewatchMetrics
registry = CollectorRegistry()
CitewatchMetrics(registry=registry, apps=["shop"])
server = serve(registry, address="127.0.0.1", port=0, ready=lambda: True)
print(server.port, flush=True)
sys.stdin.read()
server.close()
"""


_SCRAPERS = """
import asyncio, sys
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
done = 0

async def scrape(end):
    global done
    loop = asyncio.get_running_loop()
    while loop.time() < end:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"GET /metrics HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
            await reader.read()
            writer.close()
            done += 1
        except OSError:
            await asyncio.sleep(0.01)

async def main():
    end = asyncio.get_running_loop().time() + seconds
    await asyncio.gather(*(scrape(end) for _ in range(count)))

asyncio.run(main())
print(done)
"""


def _probe_timeouts() -> dict[str, float]:
    deployment = yaml.safe_load(
        (ROOT / "deploy/kubernetes/base/deployment.yaml").read_text(encoding="utf-8")
    )
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    return {
        probe["httpGet"]["path"]: float(probe["timeoutSeconds"])
        for probe in (container["readinessProbe"], container["livenessProbe"])
    }


@dataclass
class Server:
    process: subprocess.Popen[str]
    port: int
    stderr: str | None = None

    def threads(self) -> int:
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:"))
        )

    def descriptors(self) -> int:
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def stop(self) -> str:
        """Stop the server; what it wrote to stderr."""
        if self.stderr is None:
            try:
                _, self.stderr = self.process.communicate(input="", timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                _, self.stderr = self.process.communicate()
        return self.stderr


def _start(nofile: int = 0) -> Iterator[Server]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(nofile)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    server = Server(process, int(process.stdout.readline()))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def server() -> Iterator[Server]:
    yield from _start()


@pytest.fixture
def starved_server() -> Iterator[Server]:
    yield from _start(nofile=256)


@dataclass
class Crowd:
    """Clients pressing on one port from background threads until stopped."""

    port: int
    stop: threading.Event = field(default_factory=threading.Event)
    threads: list[threading.Thread] = field(default_factory=list)
    opened: int = 0

    def _connect(self) -> socket.socket | None:
        try:
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=0.5)
        except OSError:
            return None
        self.opened += 1
        return sock

    def _open(self) -> socket.socket | None:
        """A connection started without waiting for it (the kernel retries its SYN), so a
        thousand are pending at once whatever the server accepts."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        if sock.connect_ex(("127.0.0.1", self.port)) not in (0, errno.EINPROGRESS):
            sock.close()
            return None
        self.opened += 1
        return sock

    def slowloris(self, count: int) -> None:
        """``count`` clients sending their request one byte at a time, reconnecting when cut."""
        request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 10_000

        def run() -> None:
            clients: dict[int, tuple[socket.socket | None, int]] = {
                i: (self._connect(), 0) for i in range(count)
            }
            while not self.stop.wait(0.05):
                for i, (sock, sent) in list(clients.items()):
                    if sock is None or sent >= len(request):
                        if sock is not None:
                            sock.close()
                        clients[i] = (self._connect(), 0)
                        continue
                    try:
                        sock.send(request[sent : sent + 1])
                        clients[i] = (sock, sent + 1)
                    except OSError:
                        sock.close()
                        clients[i] = (self._connect(), 0)
            for sock, _ in clients.values():
                if sock is not None:
                    sock.close()

        self._spawn(run)

    def idle(self, count: int) -> None:
        """``count`` clients that connect and send nothing, reopened when closed."""

        def run() -> None:
            clients = [self._open() for _ in range(count)]
            while not self.stop.wait(0.5):
                for i, sock in enumerate(clients):
                    if sock is not None and not _closed(sock):
                        continue
                    if sock is not None:
                        sock.close()
                    clients[i] = self._open()
            for sock in clients:
                if sock is not None:
                    sock.close()

        self._spawn(run)

    def _spawn(self, target: object) -> None:
        thread = threading.Thread(target=target, daemon=True)  # type: ignore[arg-type]
        thread.start()
        self.threads.append(thread)

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=30)


def _closed(sock: socket.socket) -> bool:
    """Whether a non-blocking client socket was closed by the server (or refused)."""
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:  # connected and quiet, or still connecting
        return False
    except OSError:
        return True


def _probe(port: int, path: str, timeout: float) -> tuple[int, float]:
    """What the kubelet does: a fresh connection, one GET, the status within ``timeout``."""
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            sock.settimeout(max(0.01, timeout - (time.monotonic() - started)))
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: pod\r\nConnection: close\r\n\r\n".encode())
            head = b""
            while b"\r\n" not in head:
                chunk = sock.recv(1024)
                if not chunk:
                    break
                head += chunk
    except OSError:
        return 0, time.monotonic() - started
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.") else 0
    return status, time.monotonic() - started


def _probe_for(port: int, seconds: float) -> list[tuple[str, int, float, float]]:
    """Probe both paths every 0.5 s for ``seconds``: (path, status, elapsed, timeout)."""
    timeouts = _probe_timeouts()
    results = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for path, timeout in timeouts.items():
            status, elapsed = _probe(port, path, timeout)
            results.append((path, status, round(elapsed, 3), timeout))
        time.sleep(0.5)
    return results


def _failed(results: list[tuple[str, int, float, float]]) -> list[tuple[str, int, float, float]]:
    return [r for r in results if r[1] != 200 or r[2] >= r[3]]


def test_probes_answer_while_slow_clients_trickle_requests(server: Server) -> None:
    crowd = Crowd(server.port)
    crowd.slowloris(200)
    try:
        time.sleep(1.0)
        results = _probe_for(server.port, 8.0)
    finally:
        crowd.close()
    assert len(results) >= 10
    assert _failed(results) == []
    # The slow clients were cut at the request deadline and came back: they really pressed.
    assert crowd.opened > 200


def test_probes_answer_while_200_clients_scrape_at_once(server: Server) -> None:
    scrapers = subprocess.Popen(
        [sys.executable, "-c", _SCRAPERS, str(server.port), "200", "10"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.0)
        results = _probe_for(server.port, 8.0)
        out, _ = scrapers.communicate(timeout=60)
    finally:
        if scrapers.poll() is None:
            scrapers.kill()
            scrapers.communicate()
    assert _failed(results) == []
    assert int(out.strip()) >= 200  # the scrapes were answered too


def test_probes_answer_with_a_thousand_idle_clients(server: Server) -> None:
    crowd = Crowd(server.port)
    crowd.idle(1_000)
    try:
        time.sleep(2.0)
        threads = server.threads()
        descriptors = server.descriptors()
        results = _probe_for(server.port, 8.0)
    finally:
        crowd.close()
    assert _failed(results) == []
    assert crowd.opened >= 1_000
    assert threads <= 8  # idle clients hold no thread each
    # The clients filled the connection cap (256), and the cap held.
    assert 200 <= descriptors <= 256 + 32 * 4 + 64


def test_probes_answer_under_descriptor_pressure(starved_server: Server) -> None:
    crowd = Crowd(starved_server.port)
    crowd.idle(1_000)
    crowd.slowloris(100)
    try:
        time.sleep(2.0)
        descriptors = starved_server.descriptors()
        results = _probe_for(starved_server.port, 8.0)
    finally:
        crowd.close()
    assert _failed(results) == []
    assert 64 <= descriptors < 256  # the clients pressed; the cap was lowered to fit the limit
    assert starved_server.process.poll() is None
    stderr = starved_server.stop()
    assert "connections at most (descriptor limit 256)" in stderr
    assert "Too many open files" not in stderr  # accept never ran out of descriptors
