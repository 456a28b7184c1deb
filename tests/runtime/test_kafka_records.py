"""Which producer errors dead-letter a record: kafka-python's own classes, not their names."""

from __future__ import annotations

import warnings

import pytest

from sidecar.runtime.kafka_records import _refused_for_good

with warnings.catch_warnings():  # kafka-python 3.0's import warns on Python 3.11
    warnings.simplefilter("ignore", DeprecationWarning)
    from kafka.errors import (
        CorruptRecordError,
        InvalidRecordError,
        KafkaTimeoutError,
        MessageSizeTooLargeError,
        NotLeaderForPartitionError,
    )


class MessageSizeTooLargeError_(Exception):  # noqa: N801
    """Not kafka-python's error, whatever it is called."""


MessageSizeTooLargeError_.__name__ = "MessageSizeTooLargeError"


@pytest.mark.parametrize(
    ("error", "for_good"),
    [
        pytest.param(MessageSizeTooLargeError("2000000 bytes"), True, id="too-large"),
        pytest.param(InvalidRecordError(), True, id="invalid"),
        pytest.param(CorruptRecordError(), True, id="corrupt"),
        pytest.param(KafkaTimeoutError(), False, id="timeout-waited-out"),
        pytest.param(NotLeaderForPartitionError(), False, id="leader-moving-waited-out"),
        pytest.param(MessageSizeTooLargeError_(), False, id="same-name-other-class"),
    ],
)
def test_only_errors_about_the_record_itself_are_final(
    error: BaseException, for_good: bool
) -> None:
    assert _refused_for_good(error) is for_good
