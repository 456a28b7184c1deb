"""The entity types live once, in the engine (native/src/types.rs): the record's
``RedactionType`` and ``BUILTIN_TYPES`` are held to them."""

from __future__ import annotations

from typing import get_args

import pytest

from schemas import RedactionType
from sidecar.redaction import BUILTIN_TYPES, PatternDetector, _native
from sidecar.redaction._base import check_types


def test_the_engine_types_are_the_record_types_in_order() -> None:
    assert _native.TYPES == get_args(RedactionType) == BUILTIN_TYPES


def test_the_engine_reports_each_of_its_types_by_that_name() -> None:
    text = (
        "a@example.com, (415) 555-2671, 4111 1111 1111 1111, DE89 3704 0044 0532 0130 00, "
        "SSN 536-22-1234, 203.0.113.7, key AKIAIOSFODNN7EXAMPLE, NI number QQ123456C"
    )
    assert {e.type for e in PatternDetector().detect_kept(text)} == set(_native.TYPES)


def test_types_that_differ_stop_the_import_with_both_lists() -> None:
    engine = ("EMAIL", "PHONE")
    with pytest.raises(
        ImportError,
        match=r"\['EMAIL', 'PHONE'\] differ from schemas"
        r"\.RedactionType \['EMAIL'\]",
    ):
        check_types(engine, ("EMAIL",))
    with pytest.raises(ImportError, match="differ"):
        check_types(("PHONE", "EMAIL"), engine)  # one list, in one order
    assert check_types(engine, engine) == engine
