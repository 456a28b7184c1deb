"""A single-node Apache Kafka broker (KRaft) on 127.0.0.1, for local runs and tests.

The broker jars come from Maven Central through ``mvn dependency:copy-dependencies`` (the
pom beside this file) into a cache folder; nothing else is downloaded and no Docker is used.

    scripts/kafka-local fetch                  download the jars into the cache
    scripts/kafka-local start [--dir D]        format D, start a broker, print host:port
    scripts/kafka-local start --secured        the same with secured listeners beside it
                                               (SASL_SSL SCRAM-SHA-512 and PLAIN, MTLS,
                                               OAUTH), one name=host:port line each
    scripts/kafka-local stop  [--dir D]        stop the broker started in D, by its pid
    scripts/kafka-local status [--dir D]       print host:port if it is running

The cache folder is .cache/kafka at the repository root, or KAFKA_LOCAL_CACHE.

Used as a library by tests/integration: :class:`LocalKafka` starts, restarts and stops a
broker and never touches a process it did not start. The PLAINTEXT listener is always there
(the broker's own traffic and the tests' set-up use it); the secured ones, their keys and
their credentials are described in kafka_secured.py beside this file.
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from types import ModuleType

__all__ = ["DEFAULT_VERSION", "LocalKafka", "fetch", "free_port"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_VERSION = os.environ.get("KAFKA_VERSION", "4.1.2")
DEFAULT_CACHE = Path(os.environ.get("KAFKA_LOCAL_CACHE", ROOT / ".cache" / "kafka"))
DEFAULT_DIR = DEFAULT_CACHE / "run"
HEAP = os.environ.get("KAFKA_HEAP_OPTS", "-Xms256m -Xmx512m")
READY_LINE = "Kafka Server started"

_LOG4J2 = """\
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = file
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.apache.name = org.apache.kafka
logger.apache.level = INFO
"""


def fetch(version: str = DEFAULT_VERSION, cache: Path = DEFAULT_CACHE) -> Path:
    """The folder holding the broker's jars, downloading them first if needed."""
    lib = cache / f"lib-{version}"
    marker = lib / ".complete"
    if marker.exists():
        return lib
    if shutil.which("mvn") is None:
        raise RuntimeError("Maven (mvn) is needed to fetch the Kafka broker; apt-get install maven")
    tmp = cache / f"lib-{version}.partial"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    cmd = [
        "mvn",
        "-q",
        "-B",
        "-f",
        str(HERE / "pom.xml"),
        "dependency:copy-dependencies",
        f"-Dkafka.version={version}",
        f"-DoutputDirectory={tmp}",
    ]
    print(f"fetching Apache Kafka {version} into {lib}", file=sys.stderr)
    subprocess.run(cmd, check=True, stdout=sys.stderr)
    if not any(tmp.glob(f"kafka_2.13-{version}.jar")):
        raise RuntimeError(f"maven did not produce kafka_2.13-{version}.jar")
    (tmp / ".complete").write_text(version + "\n")
    shutil.rmtree(lib, ignore_errors=True)
    tmp.rename(lib)
    return lib


def secured_module() -> ModuleType:
    """kafka_secured.py beside this file, as a module (this file is loaded by path too)."""
    name = "kafka_secured"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "kafka_secured.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _cluster_id() -> str:
    # Like Kafka's own Uuid.randomUuid(): an ID starting with "-" would be read as an option
    # by the storage tool's argument parser (1 run in 64 failed to format).
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


class LocalKafka:
    """One broker+controller in ``directory``; ports are chosen once and kept on restart."""

    def __init__(
        self,
        directory: Path = DEFAULT_DIR,
        *,
        version: str = DEFAULT_VERSION,
        cache: Path = DEFAULT_CACHE,
        secured: bool = False,
    ) -> None:
        self.directory = Path(directory)
        self.version = version
        self.cache = cache
        self.secured = secured
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid_file(self) -> Path:
        return self.directory / "broker.pid"

    @property
    def log_file(self) -> Path:
        return self.directory / "server.log"

    @property
    def bootstrap_file(self) -> Path:
        return self.directory / "bootstrap"

    @property
    def bootstrap(self) -> str:
        """host:port of the broker's PLAINTEXT client listener."""
        return self.bootstrap_file.read_text().strip()

    @property
    def tls_directory(self) -> Path:
        """Where a secured broker's keys, certificates and credentials.json are."""
        return self.directory / "tls"

    def listener(self, name: str) -> str:
        """host:port of the listener ``name`` (PLAINTEXT, or with ``secured`` SASL_SSL,
        MTLS, OAUTH)."""
        found: dict[str, str] = json.loads((self.directory / "listeners.json").read_text())
        return found[name]

    def credentials(self) -> dict[str, str]:
        """The TLS files and the SASL user and password of a secured broker."""
        found: dict[str, str] = secured_module().credentials(self.tls_directory)
        return found

    def _java(self) -> list[str]:
        java_home = os.environ.get("JAVA_HOME")
        java = str(Path(java_home) / "bin" / "java") if java_home else "java"
        lib = fetch(self.version, self.cache)
        return [
            java,
            *HEAP.split(),
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            f"-Dlog4j2.configurationFile={self.directory / 'log4j2.properties'}",
            "-cp",
            f"{lib}/*",
        ]

    def format(self) -> None:
        """Write a fresh config and format a fresh KRaft storage directory."""
        if self.directory.exists():
            shutil.rmtree(self.directory)
        (self.directory / "data").mkdir(parents=True)
        names = ["PLAINTEXT", "CONTROLLER"]
        secured: ModuleType | None = secured_module() if self.secured else None
        if secured is not None:
            names += list(secured.LISTENERS)
        ports: dict[str, int] = {}
        while len(set(ports.values())) < len(names):
            ports = {name: free_port() for name in names}
        port, controller = ports["PLAINTEXT"], ports["CONTROLLER"]
        protocols = {"PLAINTEXT": "PLAINTEXT", "CONTROLLER": "PLAINTEXT"}
        extra: list[str] = []
        format_args: list[str] = []
        if secured is not None:
            material = secured.make_material(self.tls_directory)
            protocols.update(secured.LISTENERS)
            extra = secured.server_properties(material)
            format_args = secured.scram_arguments(material)
        client = [name for name in names if name != "CONTROLLER"]
        (self.directory / "listeners.json").write_text(
            json.dumps({name: f"127.0.0.1:{ports[name]}" for name in client}, indent=2) + "\n"
        )
        listeners = ",".join(f"{name}://127.0.0.1:{ports[name]}" for name in names)
        advertised = ",".join(f"{name}://127.0.0.1:{ports[name]}" for name in client)
        protocol_map = ",".join(f"{name}:{protocol}" for name, protocol in protocols.items())
        (self.directory / "log4j2.properties").write_text(_LOG4J2.format(log=self.log_file))
        (self.directory / "server.properties").write_text(
            "\n".join(
                [
                    "process.roles=broker,controller",
                    "node.id=1",
                    f"controller.quorum.voters=1@127.0.0.1:{controller}",
                    f"listeners={listeners}",
                    f"advertised.listeners={advertised}",
                    "controller.listener.names=CONTROLLER",
                    "inter.broker.listener.name=PLAINTEXT",
                    f"listener.security.protocol.map={protocol_map}",
                    f"log.dirs={self.directory / 'data'}",
                    "num.partitions=1",
                    "num.network.threads=2",
                    "num.io.threads=2",
                    "background.threads=2",
                    "offsets.topic.num.partitions=3",
                    "offsets.topic.replication.factor=1",
                    "transaction.state.log.replication.factor=1",
                    "transaction.state.log.min.isr=1",
                    "share.coordinator.state.topic.replication.factor=1",
                    "share.coordinator.state.topic.min.isr=1",
                    "group.initial.rebalance.delay.ms=0",
                    "auto.create.topics.enable=true",
                    "message.max.bytes=16777216",
                    "replica.fetch.max.bytes=16777216",
                    "log.segment.bytes=67108864",
                    *extra,
                    "",
                ]
            )
        )
        subprocess.run(
            [
                *self._java(),
                "kafka.tools.StorageTool",
                "format",
                "--ignore-formatted",
                "-t",
                _cluster_id(),
                "-c",
                str(self.directory / "server.properties"),
                *format_args,
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.bootstrap_file.write_text(f"127.0.0.1:{port}\n")

    def start(self, *, timeout: float = 90.0, fresh: bool = True) -> str:
        """Start the broker (formatting first when ``fresh``); returns host:port once it
        answers. Raises RuntimeError if it does not come up in ``timeout`` seconds."""
        if fresh or not (self.directory / "server.properties").exists():
            self.format()
        offset = self.log_file.stat().st_size if self.log_file.exists() else 0
        out = open(self.directory / "stdout.log", "ab")  # noqa: SIM115 - kept by the child
        self.process = subprocess.Popen(
            [*self._java(), "kafka.Kafka", str(self.directory / "server.properties")],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        out.close()
        self.pid_file.write_text(f"{self.process.pid}\n")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"broker exited with {self.process.returncode}; see {self.directory}"
                )
            if self._log_has(READY_LINE, offset) and self._answers():
                return self.bootstrap
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"broker did not start within {timeout:.0f}s; see {self.log_file}")

    def _log_has(self, text: str, offset: int) -> bool:
        try:
            with open(self.log_file, "rb") as handle:
                handle.seek(offset)
                return text.encode() in handle.read()
        except FileNotFoundError:
            return False

    def _answers(self) -> bool:
        host, port = self.bootstrap.rsplit(":", 1)
        try:
            with socket.create_connection((host, int(port)), timeout=1.0):
                return True
        except OSError:
            return False

    def _pid(self) -> int | None:
        if self.process is not None:
            return self.process.pid if self.process.poll() is None else None
        try:
            pid = int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None
        return pid if _is_our_broker(pid) else None

    def running(self) -> bool:
        """Whether the broker this object (or the pid file) started is alive."""
        return self._pid() is not None

    def stop(self, *, timeout: float = 30.0, kill: bool = False) -> None:
        """Stop the broker by its pid: SIGTERM (SIGKILL when ``kill`` or on timeout)."""
        pid = self._pid()
        if pid is None:
            return
        os.kill(pid, signal.SIGKILL if kill else signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None:
                if self.process.poll() is not None:
                    break
            elif not _is_our_broker(pid):
                break
            time.sleep(0.1)
        else:
            os.kill(pid, signal.SIGKILL)
            if self.process is not None:
                self.process.wait(10)
        self.pid_file.unlink(missing_ok=True)

    def restart(self, *, timeout: float = 90.0) -> str:
        """Stop and start again on the same ports and data."""
        self.stop()
        return self.start(timeout=timeout, fresh=False)


def _is_our_broker(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    return b"kafka.Kafka" in cmdline


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-local", description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["fetch", "start", "stop", "status"])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="broker state folder")
    parser.add_argument("--version", default=DEFAULT_VERSION, help="Kafka version")
    parser.add_argument(
        "--secured",
        action="store_true",
        help="also SASL_SSL (SCRAM-SHA-512, PLAIN), MTLS and OAUTH listeners; keys and the "
        "password in DIR/tls (credentials.json)",
    )
    args = parser.parse_args(argv)
    broker = LocalKafka(args.dir, version=args.version, secured=args.secured)
    if args.command == "fetch":
        print(fetch(args.version))
    elif args.command == "start":
        if broker.running():
            print(f"already running at {broker.bootstrap}", file=sys.stderr)
            return 1
        print(broker.start())
        if args.secured:
            for name in ("SASL_SSL", "MTLS", "OAUTH"):
                print(f"{name}={broker.listener(name)}")
            print(f"credentials={broker.tls_directory / 'credentials.json'}")
    elif args.command == "stop":
        broker.stop()
    else:
        if not broker.running():
            print("not running", file=sys.stderr)
            return 1
        print(broker.bootstrap)
    return 0


if __name__ == "__main__":
    sys.exit(main())
