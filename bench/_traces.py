"""Synthetic 6 KB traces shared by the benchmarks: 5 sources of about 1 KB, 6 claims."""

from __future__ import annotations

import hashlib
import json
import random

_WORDS = (
    "refund policy customers plan within days purchase billing account support request "
    "annual monthly subscription team enterprise warranty coverage device service credit "
    "uptime region backup retention data access logs invoice payment method card renewal"
).split()


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    words.insert(rng.randrange(len(words)), str(rng.randrange(1, 400)))
    return " ".join(words).capitalize() + "."


def make_trace(index: int, *, seed: int = 7) -> dict[str, object]:
    """One realistic-size trace (about 6 KB of JSON)."""
    rng = random.Random(seed * 1_000_003 + index)
    sources = []
    sentences: dict[str, list[str]] = {}
    for s in range(1, 6):
        source_id = f"S{s}"
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < 800:
            parts.append(_sentence(rng, 14))
        sentences[source_id] = parts
        sources.append(
            {
                "id": source_id,
                "title": f"Policy document {s}",
                "text": " ".join(parts),
                "authority": "primary",
                "url": f"https://docs.example.com/policies/{s}",
            }
        )
    claims = []
    answer_parts = []
    for c in range(1, 7):
        cites = [f"S{rng.randrange(1, 6)}"]
        if rng.random() < 0.2:
            cites.append(f"S{rng.randrange(1, 8)}")
        # Claims restate a sentence of their first cited source, as a faithful answer
        # does; one in five changes a number, as an unfaithful one does.
        text = rng.choice(sentences[cites[0]])
        if rng.random() < 0.2:
            text = text.replace(text.split()[-1], f"{rng.randrange(400, 999)}.")
        claims.append(
            {"id": f"c{c}", "text": text, "citation_ids": cites, "importance": rng.randrange(1, 4)}
        )
        answer_parts.append(text[:-1] + " " + "".join(f"[{i}]" for i in cites) + ".")
    return {
        "schema_version": "1",
        "trace_id": hashlib.sha256(f"{seed}-{index}".encode()).hexdigest()[:32],
        "timestamp": "2026-11-30T10:00:00Z",
        "app": "support",
        "generator": {"model": "gen-a", "prompt_version": "v3"},
        "question": _sentence(rng, 10),
        "answer": " ".join(answer_parts),
        "sources": sources,
        "claims": claims,
    }


def encoded_traces(count: int, *, seed: int = 7) -> list[bytes]:
    """``count`` traces as UTF-8 JSON bytes."""
    return [json.dumps(make_trace(i, seed=seed)).encode() for i in range(count)]
