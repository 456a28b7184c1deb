"""A seeded value disguised by any normalisation class (tests/redaction/_obfuscate.py) never
reaches a channel: not the judge request, the evaluation record, a log line or /metrics,
neither as written, nor as the plain value, nor as a reader folding the output would see it
(Hypothesis)."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, generate_latest

from exporters.prometheus import CitewatchMetrics
from sidecar.config import load_settings
from sidecar.decode import DecodeLimits
from sidecar.judge import LexicalBackend
from sidecar.judge.packet import JudgePacket, unmark
from sidecar.judge.rubric import Rubric
from sidecar.judge.stage import JudgeStageImpl
from sidecar.pipeline import Pipeline
from sidecar.redaction import PLACEHOLDER, build_redactor
from sidecar.runtime.guard import Evaluated
from sidecar.runtime.records import RecordProcessor
from sidecar.runtime.slow import SlowRecords
from tests.redaction._obfuscate import CLASSES, fold
from tests.redaction.build_corpus import GENERATORS
from tests.redaction.test_properties import (
    _ambiguous,
    _international_phone,
    _spaced,
    _value,
)
from tests.support.factories import claim, source, trace_dict

CLAIM = "My details are {v}, thanks."


class RecordingBackend(LexicalBackend):
    """The lexical judge, keeping every request as the API would see it."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []

    async def judge(self, packet: JudgePacket, rubric: Rubric, *, timeout: float) -> Any:
        self.requests.append(packet.render())
        return await super().judge(packet, rubric, timeout=timeout)


class Lines(logging.Handler):
    """Every log line, formatted as the CLI's handler would write it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


SETTINGS = load_settings(
    overrides={
        "sampling.rate": 1.0,
        "sampling.requests_per_minute": 10**9,
        "sampling.tokens_per_minute": 10**12,
        "judge.cache_size": 0,
        "judge.screen": False,
    }
)
BACKEND = RecordingBackend()
PIPELINE = Pipeline(
    SETTINGS,
    redactor=build_redactor(SETTINGS.redaction),
    judge=JudgeStageImpl(
        BACKEND, judge_settings=SETTINGS.judge, sampling_settings=SETTINGS.sampling
    ),
)
TRACE_IDS = itertools.count(1)


def _channels(written: str) -> tuple[dict[str, str], str]:
    """What each channel shows of one trace carrying ``written`` in every text and in two
    label fields, and the redacted claim text of its record."""
    registry = CollectorRegistry()
    metrics = CitewatchMetrics(registry=registry)
    records = RecordProcessor(
        pipeline=PIPELINE,
        limits=DecodeLimits.from_settings(SETTINGS),
        metrics=metrics,
        slow=SlowRecords(threshold_seconds=30.0),
        dedup_window=0,
    )
    raw = trace_dict(
        trace_id=f"{next(TRACE_IDS):032x}",
        tenant=written,
        question=f"Is this right: {written}?",
        answer=f"{CLAIM.format(v=written)} [S1]",
        sources=[source("S1", f"On file: {written}.", title=f"About {written}")],
        claims=[claim("c1", CLAIM.format(v=written), ["S1"], importance=3)],
        customer=written,
    )
    handler, root = Lines(), logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    del BACKEND.requests[:]
    try:
        outcome = asyncio.run(records.evaluate(json.dumps(raw).encode(), token=0))
        assert isinstance(outcome, Evaluated), outcome
        records.emitted(outcome.record, emit_seconds=0.0, new=True)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert len(BACKEND.requests) == 1  # the judge saw the trace
    channels = {
        "judge request": unmark(BACKEND.requests[0]),
        "evaluation record": outcome.payload.decode("utf-8"),
        "log lines": "\n".join(handler.lines),
        "metrics": generate_latest(registry).decode("utf-8"),
    }
    return channels, outcome.record.claims[0].text


@pytest.mark.parametrize("disguise", sorted(CLASSES))
@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(st.sampled_from(sorted(GENERATORS)), st.integers(0, 2**32), st.integers(0, 2**32))
def test_a_disguised_value_reaches_no_channel(
    disguise: str, entity_type: str, seed: int, how: int
) -> None:
    plain = GENERATORS[entity_type](random.Random(seed))
    assume(not _ambiguous(entity_type, plain))
    written = CLASSES[disguise](plain, random.Random(how))
    assume(written != plain)  # a dash class on a value without dashes, say
    channels, claim_text = _channels(written)
    # The claim's value is a placeholder, whole: nothing of it stays beside it.
    assert PLACEHOLDER.sub("", claim_text) == CLAIM.format(v="")
    looked_for = {plain, written, fold(plain)}
    leaked = {
        name: sorted(v for v in looked_for if v in shown or v in fold(shown))
        for name, shown in channels.items()
    }
    assert leaked == dict.fromkeys(channels, [])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["CREDIT_CARD", "US_SSN", "PHONE"]),
    st.integers(0, 2**32),
    st.sampled_from(["spaced", "underscore"]),
    st.sampled_from(["", "order ", "claim ", "transaction "]),
)
def test_a_spaced_or_glued_value_reaches_no_channel(
    entity_type: str, seed: int, disguise: str, word: str
) -> None:
    """A card, an SSN or a phone number written one digit at a time or glued to a word by an
    underscore, after a thing's word or none: its digits reach no channel, in a row or
    spaced out."""
    value = _international_phone(seed) if entity_type == "PHONE" else _value(entity_type, seed)
    written = word + (_spaced(entity_type, value) if disguise == "spaced" else f"cust_{value}")
    channels, _ = _channels(written)
    digits = "".join(c for c in value if c.isdigit())
    for name, shown in channels.items():
        assert value not in shown, name
        assert written not in shown, name
        assert digits not in re.sub(r"[\s-]", "", fold(shown)), name


def test_every_class_disguises_and_folding_undoes_it() -> None:
    rng = random.Random(7)
    plain = "jane.doe@example.com 415-555-2671 DE89 3704"
    for name, disguise in CLASSES.items():
        written = disguise(plain, rng)
        assert written != plain, name
        assert fold(written) == plain, name
    assert re.fullmatch(r"\S+", fold("\u200b\u00ad")) is None
