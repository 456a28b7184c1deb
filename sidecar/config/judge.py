"""The LLM judge and the screen in front of it (``judge.*``)."""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator

from schemas import JudgeChoice, VerdictLabel
from sidecar.config._section import Section

__all__ = ["JudgeSettings"]


# Measured on public human-labelled claims (docs/screen.md): the screen's "supported" is
# precise (0.88-0.998 on four public sets), its "unsupported" is not (0.10-0.45 on three of
# them), so only "supported" may skip the LLM, and only below importance 3.
_SCREEN_TRUSTED_DEFAULT: tuple[VerdictLabel, ...] = ("supported",)


class JudgeSettings(Section):
    """The LLM judge."""

    backend: JudgeChoice | None = None
    """Judge backend. Unset: lexical (the offline screen); an API key alone never selects an
    LLM judge."""
    model: str = "gpt-4.1-mini-2025-04-14"
    """Pinned judge model snapshot."""
    base_url: str | None = None
    """OpenAI-compatible endpoint; OPENAI_BASE_URL when unset."""
    api_key: SecretStr | None = None
    """API key; OPENAI_API_KEY when unset."""
    timeout_seconds: float = Field(default=30.0, gt=0.0)
    """Per-call timeout."""
    max_retries: int = Field(default=4, ge=0, le=10)
    """Retries on 429, 5xx, connection errors and timeouts."""
    concurrency: int = Field(default=16, ge=1, le=1024)
    """Judge calls in flight at once."""
    rubric_file: str | None = None
    """A rubric Markdown file replacing the built-in one; its first line names its version
    (``rubric_version: ...``)."""
    max_output_tokens: int = Field(default=4096, ge=64)
    """Upper bound on the tokens of one judge reply."""
    max_reply_bytes: int = Field(default=4 * 2**20, ge=1024)
    """Largest judge reply read, in bytes; a longer one is refused while it is read (never
    held whole in memory) and is the judge error reply_too_large."""
    max_reason_chars: int = Field(default=2_000, ge=16)
    """Longest reason of one verdict; a longer one makes the reply reply_too_large."""
    max_quote_chars: int = Field(default=2_000, ge=16)
    """Longest evidence quote of one verdict; a longer one makes the reply reply_too_large.
    A shorter quote that is longer than the claim's cited passages is found in none of them:
    quote_not_found, as any fabricated quote."""
    quote_min_chars: int = Field(default=8, ge=1, le=1_000)
    """Shortest evidence quote of a supported or partial verdict, in characters after
    whitespace is collapsed (a Chinese, Japanese or Korean character counts two; a whole
    cited passage that is shorter is accepted); a shorter one is refused: the verdict
    becomes unsupported, quote_not_found, its reason saying why."""
    quote_min_content_words: int = Field(default=2, ge=0, le=100)
    """Content words of the claim (not function words like "the", "of"; compared as lemmas,
    numbers as numbers) an evidence quote must carry, or all of the claim's when it has
    fewer; a quote carrying fewer is refused like a short one (0: no such rule)."""
    retry_base_seconds: float = Field(default=0.5, gt=0.0)
    """First backoff delay; doubled on each retry, with jitter."""
    retry_max_seconds: float = Field(default=20.0, gt=0.0)
    """Longest backoff delay, and the longest Retry-After honoured."""
    call_deadline_seconds: float = Field(default=120.0, gt=0.0)
    """Longest time one trace may spend in the judge, retries included."""
    circuit_failures: int = Field(default=5, ge=1)
    """Consecutive failed calls (after retries) that open the circuit breaker."""
    circuit_reset_seconds: float = Field(default=30.0, gt=0.0)
    """How long the breaker stays open before one probe call may close it."""
    cache_size: int = Field(default=10_000, ge=0)
    """Claim verdicts kept in the in-memory LRU cache (0 disables it)."""
    cache_max_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    """Bytes of the verdict cache (keys, verdicts, reasons, quotes); the least recently used
    are evicted beyond it or beyond cache_size, whichever comes first (0 disables it)."""
    cache_text_chars: int = Field(default=2_048, ge=64, le=1_000_000)
    """Characters of a judge reason or evidence quote kept in the cache; longer ones are
    stored cut, ending in " [truncated]" (the quote is checked whole before)."""
    screen: bool = True
    """With an LLM backend, run the offline screen first: a claim it resolves with a verdict
    of a trusted class is not sent to the LLM."""
    screen_trusted_verdicts: list[VerdictLabel] = Field(
        default_factory=lambda: list(_SCREEN_TRUSTED_DEFAULT)
    )
    """Screen verdict classes that skip the LLM, for claims up to
    ``screen_skip_max_importance``; set from the screen's measured precision per class
    (bench.screen). ``unsupported`` is refused: the screen's "unsupported" is a suspicion
    the LLM must confirm, never a final verdict."""
    datamark: bool = True
    """Join the words of the question and the passages in the judge request by a mark
    (U+02C6, "datamarking"), which the rubric says sets them apart as document text, never
    instructions. It costs about one prompt token per word of passage text (bench.judge_cost:
    1.48x the prompt tokens per judged trace); off sends them with plain spaces."""
    quote_coverage_min_importance: int = Field(default=3, ge=1, le=4)
    """The lowest claim importance whose "supported" or "partial" stands only when its
    evidence quote carries the claim's numbers, dates, quantities and names (else the claim
    is unverified, quote_incomplete); 4 turns the check off."""
    screen_skip_max_importance: int = Field(default=2, ge=0, le=3)
    """The highest claim importance a trusted screen verdict settles without the LLM;
    importance-3 claims always go to the LLM by default (0: every claim does)."""
    screen_cache_bytes: int = Field(default=160 * 2**20, ge=0)
    """Bound, in (estimated) bytes, of the screen's cache of prepared passages; 0 turns it
    off. The default holds one record of the largest accepted size (1 MiB of text prepared
    is at most about 140 MB), so each trace's passages are prepared once; raise it with
    ``limits.max_record_bytes``."""

    @field_validator("screen_trusted_verdicts")
    @classmethod
    def _screen_never_settles_unsupported(cls, value: list[VerdictLabel]) -> list[VerdictLabel]:
        if "unsupported" in value:
            raise ValueError(
                "the screen's 'unsupported' cannot skip the LLM: on public labelled sets it "
                "is right 10-45% of the time (docs/screen.md), so it is a suspicion the LLM "
                "judges; trust 'supported' and 'partial' only"
            )
        return value
