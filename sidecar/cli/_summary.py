"""What the judge did in one command run: the rows every summary shows, and exit code 3.

Counted from the evaluation records (one judge request per judged trace): ``ok`` when the
judge returned verdicts, ``settled`` when the screen and the cache left nothing for the LLM,
a failure kind (``api_error``, ``timeout``...) when it did not, and the reason when it was
not asked at all (``not_sampled``, ``no_cited_claims``...).
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from schemas import EvaluationRecord
from sidecar._userinfo import mask_userinfo
from sidecar.config import Settings
from sidecar.judge import resolve_backend_name
from sidecar.judge._api_key import api_key_configured

__all__ = ["JudgeTally", "judge_choice", "judge_description", "judge_endpoint"]

_OPENAI_DEFAULT_URL = "https://api.openai.com/v1"


def judge_endpoint(settings: Settings) -> str:
    """Where the configured judge is, for display: its base URL with any credentials in it
    masked, or "embedded" for the offline judge."""
    name = resolve_backend_name(settings)
    if name in ("none", "lexical"):
        return "embedded" if name == "lexical" else "none"
    return mask_userinfo(
        settings.judge.base_url or os.environ.get("OPENAI_BASE_URL") or _OPENAI_DEFAULT_URL
    )


def judge_description(settings: Settings) -> str:
    """One phrase naming backend, model and endpoint, for start-up and failure lines."""
    name = resolve_backend_name(settings)
    if name in ("none", "lexical"):
        return name if name == "none" else "lexical (offline)"
    return f"{name} model {settings.judge.model} at {judge_endpoint(settings)}"


def judge_choice(settings: Settings) -> str:
    """Which judge runs and why, for the start-up line: named by the user, or the default
    (an API key alone never turns an LLM judge on)."""
    if settings.judge.backend is not None:
        return f"{judge_description(settings)}, as --judge or judge.backend names it"
    why = f"{judge_description(settings)}, the default: no --judge or judge.backend given"
    if api_key_configured(settings.judge):
        why += "; the API key that is set selects no LLM judge without one"
    return why


@dataclass
class JudgeTally:
    """Judge outcomes of the traces of one run. ``name`` says which judge ran (see
    :func:`judge_description`); an LLM judge's calls are requests, the offline screen's
    verdicts are not (it makes none)."""

    name: str = ""
    backend: str = ""
    """The configured backend's name (``lexical``, ``none``, an LLM's); empty when unknown."""
    ok: int = 0
    settled: int = 0
    screened: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    first_failure: str | None = None

    @classmethod
    def for_settings(cls, settings: Settings) -> JudgeTally:
        """An empty tally naming the judge ``settings`` configure."""
        tally = cls()
        tally.describe(settings)
        return tally

    def describe(self, settings: Settings) -> None:
        """Name the judge ``settings`` configure (:attr:`name`, :attr:`backend`)."""
        self.name, self.backend = judge_description(settings), resolve_backend_name(settings)

    def add(self, record: EvaluationRecord) -> None:
        """Count the judge outcome of one evaluation record."""
        run = record.judge
        if run is not None and run.outcome == "ok" and run.judge == "lexical":
            self.screened += 1  # the offline screen alone: no request was made
        elif run is not None and run.outcome == "ok":
            # An LLM judge's trace that the screen and the cache settled made no request: it
            # says nothing about whether the LLM answers.
            if run.judge != "lexical" and not any(c.resolved_by == "llm" for c in record.claims):
                self.settled += 1
            else:
                self.ok += 1
        elif run is not None:
            self.failed[run.outcome] += 1
            if self.first_failure is None:
                self.first_failure = run.outcome + (f": {run.error}" if run.error else "")
        elif record.skip_reason:
            self.skipped[record.skip_reason] += 1

    @property
    def asked(self) -> int:
        """Traces the judge was asked about."""
        return self.ok + sum(self.failed.values())

    @property
    def all_failed(self) -> bool:
        """The judge was asked at least once and never answered (exit code 3)."""
        return self.asked > 0 and self.ok == 0

    @property
    def llm(self) -> bool:
        """An LLM judge is configured (its calls are requests), or one was asked."""
        offline = self.backend in ("none", "lexical")
        return not offline or self.ok > 0 or bool(self.failed)

    def rows(self) -> list[tuple[str, str]]:
        """(measure, value) rows for a summary table: which judge ran, then what it did;
        each failure kind right under the failed requests."""
        rows = [("judge", self.name)] if self.name else []
        if self.screened or self.backend == "lexical":
            rows.append(("traces judged by the offline screen", str(self.screened)))
        if self.llm:
            rows.append(("judge requests ok", str(self.ok)))
            rows.append(("judge requests failed", str(sum(self.failed.values()))))
            rows += [(f"  judge failed: {kind}", str(n)) for kind, n in sorted(self.failed.items())]
        if self.settled:
            rows.append(("judged without a request (screen, cache)", str(self.settled)))
        rows += [(f"judge skipped: {reason}", str(n)) for reason, n in sorted(self.skipped.items())]
        return rows

    def lines(self, settings: Settings) -> list[str]:
        """The rows on one line, then the first failure's cause if there was one."""
        rows = ", ".join(
            f"{measure.strip().removeprefix('judge ')} {value}"
            for measure, value in self.rows()
            if measure != "judge"
        )
        cause = self.cause(settings)
        name = f" {self.name}" if self.name else ""
        return [f"judge{name}: {rows}"] + ([cause] if cause is not None else [])

    def cause(self, settings: Settings) -> str | None:
        """One line naming how often the judge failed and the first failure's cause."""
        if self.first_failure is None:
            return None
        failed = sum(self.failed.values())
        return (
            f"judge failed on {failed} of {self.asked} requests; first: "
            f"{self.first_failure} ({judge_description(settings)})"
        )
