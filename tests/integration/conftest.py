"""Session fixtures for integration tests: one local Apache Kafka broker (KRaft, 127.0.0.1).

The broker is started lazily, only when a test asks for ``kafka_bootstrap``, and stopped by its
own pid at the end of the session. It needs Java 17+ and Maven (to fetch the broker jars into
.cache/kafka on first use); without them the Kafka tests are skipped with the reason.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.kafka import kafka_local


def _require_tools() -> None:
    missing = [tool for tool in ("java", "mvn") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"Kafka broker tests need {' and '.join(missing)} on PATH")


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A running LocalKafka (see scripts/kafka/kafka_local.py) for the whole session."""
    _require_tools()
    module = kafka_local()
    broker = module.LocalKafka(Path(tmp_path_factory.mktemp("kafka")) / "broker")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture(scope="session")
def kafka_bootstrap(kafka_broker: Any) -> str:
    """host:port of the session broker."""
    return str(kafka_broker.bootstrap)


@pytest.fixture(scope="module")
def secured_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A LocalKafka with secured listeners beside its PLAINTEXT one (SASL_SSL, MTLS,
    OAUTH; keys made now, see scripts/kafka/kafka_secured.py), one per test module: a
    broker start is slow on a busy machine."""
    _require_tools()
    if shutil.which("openssl") is None:
        pytest.skip("secured broker tests need openssl on PATH")
    broker = kafka_local().LocalKafka(
        Path(tmp_path_factory.mktemp("kafka-secured")) / "broker", secured=True
    )
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def fresh_broker(tmp_path: Path) -> Iterator[Any]:
    """A broker of its own, for tests that stop or restart it."""
    _require_tools()
    broker = kafka_local().LocalKafka(tmp_path / "broker")
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
