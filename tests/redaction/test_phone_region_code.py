"""The default phone region's country code is known without the phone metadata; any other
region's is looked up there, on first use."""

from __future__ import annotations

import subprocess
import sys

import phonenumbers
import pytest

from sidecar.config import RedactionSettings
from sidecar.redaction._scanner import DEFAULT_REGION_CODE, PatternDetector, _country_code


def test_the_default_region_is_the_settings_default_with_its_metadata_code() -> None:
    region, code = DEFAULT_REGION_CODE
    assert RedactionSettings().phone_region == region
    assert phonenumbers.country_code_for_region(region) == code


@pytest.mark.parametrize("region", ["US", "GB", "DE", "JP", "BR", "IN"])
def test_every_region_has_its_metadata_code(region: str) -> None:
    assert _country_code(region) == phonenumbers.country_code_for_region(region)


def test_a_region_the_metadata_does_not_know_keys_as_plus_one() -> None:
    assert _country_code("ZZ") == 1


_PROBE = """
import sys
from sidecar.redaction._scanner import PatternDetector
PatternDetector(phone_region=sys.argv[1]).detect("Call +44 20 7946 0958")
print("phonenumbers" in sys.modules)
"""


@pytest.mark.parametrize(("region", "imported"), [("US", "False"), ("GB", "True")])
def test_the_phone_metadata_is_imported_for_another_region_only(region: str, imported: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, region],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.strip() == imported
    assert PatternDetector(phone_region=region.lower()).phone_region == region
