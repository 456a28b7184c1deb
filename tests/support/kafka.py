"""The local Kafka broker for tests and benchmarks: starting it, topics, producing and
reading, offsets, and `citewatch run` as a child process.

Topics are set up in one way only: :func:`create_topics` (the names given, each ready with a
leader for every partition before it returns) and, on top of it, :func:`new_topics` (names
made unique per test) and :func:`run_topics` (the three topics and the group of one
`citewatch run`). The broker itself is scripts/kafka/kafka_local.py (:func:`kafka_local`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import uuid
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

# kafka-python 3.0 reads its protocol schemas with importlib.resources.read_text, deprecated
# in Python 3.11: only the first import warns, and filterwarnings=error would fail on it.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.errors import KafkaError

from tests.support.factories import trace_dict
from tests.support.servers import free_port

__all__ = [
    "ROOT",
    "Sidecar",
    "Topics",
    "create_topics",
    "evaluated_ids",
    "kafka_local",
    "new_topics",
    "offsets",
    "produce",
    "read_topic",
    "run_topics",
    "trace_bytes",
    "trace_id",
    "unique",
    "wait_until",
]

ROOT = Path(__file__).resolve().parents[2]


def kafka_local() -> ModuleType:
    """scripts/kafka/kafka_local.py as a module."""
    path = ROOT / "scripts" / "kafka" / "kafka_local.py"
    spec = importlib.util.spec_from_file_location("kafka_local", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("kafka_local", module)
    spec.loader.exec_module(module)
    return module


def unique(prefix: str) -> str:
    """A name starting with ``prefix`` that no other test or run uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def trace_id(i: int, salt: str = "") -> str:
    return uuid.uuid5(uuid.NAMESPACE_OID, f"{salt}{i}").hex


def trace_bytes(i: int, salt: str = "") -> bytes:
    return json.dumps(trace_dict(trace_id=trace_id(i, salt))).encode()


def create_topics(
    bootstrap: str, names: Iterable[str], partitions: int = 3, *, timeout_seconds: float = 30.0
) -> None:
    """Create the topics ``names`` with ``partitions`` partitions each (one replica); return
    once every partition of every one has a leader, so producers and consumers can use them
    at once. Raises what kafka-python raises (an existing name, a timeout)."""
    topics = list(names)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics(
            {name: {"num_partitions": partitions, "replication_factor": 1} for name in topics},
            timeout_ms=int(timeout_seconds * 1000),
        )
        admin.wait_for_topics(topics, timeout_ms=int(timeout_seconds * 1000))
    finally:
        admin.close()


def new_topics(bootstrap: str, *prefixes: str, partitions: int = 3) -> list[str]:
    """One new topic per prefix, named uniquely (see :func:`unique`), created and ready."""
    names = [unique(prefix) for prefix in prefixes]
    create_topics(bootstrap, names, partitions)
    return names


class Topics(NamedTuple):
    """What one `citewatch run` under test reads and writes, each name unique."""

    source: str
    """The topic of traces it consumes."""
    evaluations: str
    dead_letters: str
    group: str
    """Its consumer group (not a topic: nothing is created for it)."""


def run_topics(bootstrap: str, *, partitions: int = 3, source: str = "traces") -> Topics:
    """New source, evaluations and dead-letter topics (``partitions`` each) and a new group
    name; ``source`` is the prefix of the source topic's name."""
    topic, evaluations, dead_letters = new_topics(
        bootstrap, source, "evals", "dlt", partitions=partitions
    )
    return Topics(topic, evaluations, dead_letters, unique("group"))


def produce(
    bootstrap: str, topic: str, values: Iterable[bytes], keys: Iterable[bytes | None] | None = None
) -> int:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, acks="all", linger_ms=20, max_request_size=16_777_216
    )
    count = 0
    try:
        key_iter = iter(keys) if keys is not None else None
        for value in values:
            key = next(key_iter) if key_iter is not None else None
            producer.send(topic, value=value, key=key)
            count += 1
        producer.flush(60)
    finally:
        producer.close(10)
    return count


def read_topic(bootstrap: str, topic: str, *, timeout: float = 30.0) -> list[Any]:
    """Every record now in ``topic`` (reads up to the end offsets taken at the start)."""
    consumer = KafkaConsumer(
        bootstrap_servers=bootstrap, enable_auto_commit=False, max_partition_fetch_bytes=16_777_216
    )
    try:
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        consumer.assign(parts)
        consumer.seek_to_beginning(*parts)
        ends = consumer.end_offsets(parts)
        records: list[Any] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and any(consumer.position(tp) < ends[tp] for tp in parts):
            for batch in consumer.poll(timeout_ms=500).values():
                records.extend(
                    r for r in batch if r.offset < ends[TopicPartition(r.topic, r.partition)]
                )
        return records
    finally:
        consumer.close()


def offsets(bootstrap: str, topic: str, group: str) -> tuple[dict[int, int], dict[int, int]]:
    """(committed offset, end offset) per partition of ``topic`` for ``group``."""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    try:
        committed = {
            tp.partition: meta.offset
            for tp, meta in admin.list_group_offsets({group: None}).get(group, {}).items()
            if tp.topic == topic and meta.offset >= 0
        }
        parts = [TopicPartition(topic, p) for p in consumer.partitions_for_topic(topic) or ()]
        ends = {tp.partition: end for tp, end in consumer.end_offsets(parts).items()}
        return committed, ends
    finally:
        consumer.close()
        admin.close()


def wait_until(
    check: Callable[[], bool], *, timeout: float, interval: float = 0.5, what: str = "condition"
) -> None:
    """Poll ``check`` until true; a Kafka error while the cluster settles counts as false."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except KafkaError:
            pass
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


class Sidecar:
    """`citewatch run` as a child process on a free metrics port."""

    def __init__(
        self,
        bootstrap: str,
        *,
        topic: str,
        group: str,
        evaluations: str,
        dead_letters: str,
        extra: Iterable[str] = (),
        env: dict[str, str] | None = None,
        log: Path | None = None,
        verbosity: int = 1,
    ) -> None:
        self.metrics_port = free_port()
        args = [
            sys.executable,
            "-c",
            "import sys; from sidecar.cli import main; sys.exit(main())",
            *(["-" + "v" * verbosity] if verbosity else []),
            "run",
            "--bootstrap-servers",
            bootstrap,
            "--topic",
            topic,
            "--group",
            group,
            "--evaluations-topic",
            evaluations,
            "--dead-letter-topic",
            dead_letters,
            "--metrics-port",
            str(self.metrics_port),
            "--metrics-address",
            "127.0.0.1",
            *extra,
        ]
        full_env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWATCH_")}
        full_env.update(
            {
                "CITEWATCH_KAFKA_SESSION_TIMEOUT_MS": "6000",
                "CITEWATCH_KAFKA_COMMIT_INTERVAL_SECONDS": "0.5",
                "CITEWATCH_KAFKA_REJOIN_AFTER_SECONDS": "30",
                "OPENAI_API_KEY": "",
                **(env or {}),
            }
        )
        self.log = log
        stderr = open(log, "ab") if log is not None else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            args,
            env=full_env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        if log is not None:
            stderr.close()  # type: ignore[union-attr]

    def metrics(self) -> str:
        url = f"http://127.0.0.1:{self.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode())

    def sample(self, name: str, labels: dict[str, str]) -> float:
        """The value of one sample scraped from /metrics (0 if absent)."""
        from prometheus_client.parser import text_string_to_metric_families

        for family in text_string_to_metric_families(self.metrics()):
            for s in family.samples:
                if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                    return float(s.value)
        return 0.0

    def ready(self) -> bool:
        try:
            url = f"http://127.0.0.1:{self.metrics_port}/readyz"
            with urllib.request.urlopen(url, timeout=2) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def signal(self, signum: int) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signum)

    def wait(self, timeout: float) -> int:
        return self.process.wait(timeout)

    def stop(self) -> None:
        """Make sure the process is gone (SIGKILL if it does not stop on SIGTERM)."""
        if self.process.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.process.wait(10)


def evaluated_ids(records: Iterable[Any]) -> list[str]:
    return [r.key.decode() for r in records]
