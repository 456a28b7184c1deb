"""Every in-memory table of the runtime holds its bound in bytes when filled past it.

Each table is filled in a fresh interpreter with far more data than its bound (names and
judge replies of megabytes, millions of ids), and the memory the interpreter holds
afterwards is read with tracemalloc: what the table keeps, not what passed through it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from sidecar.config import JudgeSettings, RuntimeSettings, SamplingSettings
from sidecar.judge.cache import VerdictCache
from sidecar.scoring import ClaimVerdict

ROOT = Path(__file__).resolve().parents[2]
MiB = 1024 * 1024

_PRELUDE = """
import gc, json, tracemalloc
{imports}
tracemalloc.start()
gc.collect()
before = tracemalloc.get_traced_memory()[0]
volume = 0
{fill}
gc.collect()
held = tracemalloc.get_traced_memory()[0] - before
print(json.dumps({{"held": held, "volume": volume, "size": {size}}}))
"""


def _held(imports: str, fill: str, size: str) -> dict[str, int]:
    """Run ``fill`` in a fresh interpreter; the bytes it left allocated and what it fed."""
    script = _PRELUDE.format(
        imports=textwrap.dedent(imports), fill=textwrap.dedent(fill), size=size
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    result: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _within(held: int, bound: int) -> bool:
    """Filled to its bound (more than 80% of it held) and not beyond it; the estimate per
    entry is rounded up, a few KiB are the interpreter's own churn."""
    return 0.8 * bound < held <= bound + 64 * 1024


def test_generator_table_holds_its_bytes_with_huge_names() -> None:
    bound = SamplingSettings().generators_max_bytes
    result = _held(
        """
        from types import SimpleNamespace
        from sidecar.config import SamplingSettings
        from sidecar.judge.sampling import Sampler
        sampler = Sampler(SamplingSettings(rate=0.0))
        analysis = SimpleNamespace(claims=[])
        """,
        """
        for i in range(40_000):
            model = f"{i}-" + "m" * 16_000
            generator = SimpleNamespace(model=model, prompt_version="p" * 4_000 + str(i))
            sampler.priority_reason(SimpleNamespace(generator=generator), analysis)
            volume += len(model) + 4_000
        del model, generator
        """,
        "len(sampler._seen)",
    )
    assert result["volume"] > 100 * bound
    assert result["size"] < 40_000  # the oldest were forgotten
    assert _within(result["held"], bound), result


def test_verdict_cache_holds_its_bytes_with_megabyte_reasons() -> None:
    settings = JudgeSettings(cache_size=1_000_000)
    result = _held(
        """
        from sidecar.judge.cache import VerdictCache
        from sidecar.scoring import ClaimVerdict
        """
        + f"""
        cache = VerdictCache({settings.cache_size}, max_bytes={settings.cache_max_bytes},
                             text_chars={settings.cache_text_chars})
        """,
        """
        for i in range(30):  # replies of 5 MB reasons
            reason = f"{i} " + "r" * 5_000_000
            cache.put(f"{i:064x}", ClaimVerdict("supported", reason=reason))
            volume += len(reason)
        for i in range(30, 20_030):  # then many ordinary ones with long quotes
            quote = f"{i} " + "q" * 20_000
            cache.put(f"{i:064x}", ClaimVerdict("partial", reason="r" * 300 + str(i),
                                               evidence_quote=quote))
            volume += len(quote) + 300
        del reason, quote
        """,
        "len(cache)",
    )
    assert result["volume"] > 10 * settings.cache_max_bytes
    assert result["size"] < 20_030
    assert _within(result["held"], settings.cache_max_bytes), result


def test_dedup_window_holds_its_bytes() -> None:
    bound = 2 * MiB
    result = _held(
        "from sidecar.runtime.dedup import RecentIds\n"
        f"window = RecentIds(10_000_000, max_bytes={bound})\n",
        """
        for i in range(60_000):
            window.add(f"{i + 1:032x}")
            volume += 32
        """,
        "len(window)",
    )
    assert result["size"] < 60_000  # the oldest were forgotten
    assert _within(result["held"], bound), result


def test_dedup_window_at_its_defaults_fits_its_bytes() -> None:
    settings = RuntimeSettings()
    result = _held(
        "from sidecar.runtime.dedup import RecentIds\n"
        f"window = RecentIds({settings.dedup_window}, max_bytes={settings.dedup_max_bytes})\n",
        f"""
        for i in range({settings.dedup_window} + 1_000):
            window.add(f"{{i + 1:032x}}")
            volume += 32
        """,
        "len(window)",
    )
    assert result["size"] == settings.dedup_window  # the count bound came first
    assert result["held"] <= settings.dedup_max_bytes, result


def test_stored_reasons_and_quotes_are_cut_with_a_marker() -> None:
    cache = VerdictCache(10, text_chars=100)
    whole = ClaimVerdict(
        "partial", reason="because " * 100, evidence_quote="q" * 500, quote_not_found=True
    )
    cache.put("k", whole)
    stored = cache.get("k")
    assert stored is not None
    assert (len(stored.reason), len(stored.evidence_quote)) == (100, 100)
    assert stored.reason.endswith(" [truncated]") and stored.evidence_quote.endswith(" [truncated]")
    assert stored.reason.startswith("because because")
    assert (stored.verdict, stored.quote_not_found) == ("partial", True)
    short = ClaimVerdict("supported", reason="fine", evidence_quote="30 days")
    cache.put("s", short)
    assert cache.get("s") == short


def test_cache_forgets_least_recently_used_by_bytes() -> None:
    cache = VerdictCache(1_000, max_bytes=10_000, text_chars=2_048)
    for key in "abcdefghij":  # about 2.4 KB each: four fit
        cache.put(key, ClaimVerdict("supported", reason=key * 2_000))
        if key == "c":
            assert cache.get("a") is not None  # refreshed: "b" is now the oldest
    kept = [key for key in "abcdefghij" if key in cache._items]
    assert kept == ["g", "h", "i", "j"]
    assert 0 < cache.bytes <= 10_000


@pytest.mark.parametrize("bound", [0])
def test_zero_bytes_disables_the_cache(bound: int) -> None:
    cache = VerdictCache(100, max_bytes=bound)
    cache.put("k", ClaimVerdict("supported"))
    assert cache.get("k") is None and len(cache) == 0


def test_default_bounds_fit_the_pod_memory_limit_with_headroom() -> None:
    """The tables' default bytes together (the screen's passage cache too) stay under half
    the shipped pod limit: the rest is the process itself (about 130 MiB) and headroom."""
    deployment = yaml.safe_load(
        (ROOT / "deploy/kubernetes/base/deployment.yaml").read_text(encoding="utf-8")
    )
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    limit = container["resources"]["limits"]["memory"]
    assert limit.endswith("Mi")
    limit_bytes = int(limit[:-2]) * MiB
    judge = JudgeSettings()
    tables = (
        judge.cache_max_bytes
        + judge.screen_cache_bytes
        + SamplingSettings().generators_max_bytes
        + RuntimeSettings().dedup_max_bytes
    )
    assert tables <= limit_bytes // 2, json.dumps({"tables": tables, "limit": limit_bytes})
