"""The vocabularies that the code, the metric labels and the documentation share.

Each is the one spelling of a contract: the judge's error kinds, why the judge did not run,
the circuit breaker's states, the timed pipeline stages and the finding codes. The metric
label lists in ``exporters.prometheus`` are derived from them; tests hold the checks'
declared codes, README.md's findings tables and docs/metrics.md to them.

The records keep these fields as plain strings (``FindingRecord.code``, ``JudgeRun.outcome``,
``EvaluationRecord.skip_reason``), so records written by an older or newer citewatch still
read.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "CircuitState",
    "FindingCode",
    "JudgeErrorKind",
    "SampledSkipReason",
    "SkipReason",
    "Stage",
]

JudgeErrorKind = Literal[
    "rate_limited",
    "timeout",
    "api_error",
    "parse_error",
    "refusal",
    "id_mismatch",
    "circuit_open",
    "reply_too_large",
    "redirect",
    "backend_error",
]
"""Why a judge call or a judged trace failed: ``JudgeError.kind``, the ``outcome`` of a
judge run and of ``citewatch_judge_requests_total``. rate_limited, timeout, api_error and
backend_error count as the judge failing (they trip the circuit breaker); parse_error and
refusal are the model's reply; id_mismatch is a reply whose verdicts do not match the
requested claims; circuit_open is a call the open breaker stopped; reply_too_large is a reply
over ``judge.max_reply_bytes``, or a reason or evidence quote over its limit (never a
verdict); redirect is an endpoint that answered with a redirect, which is not followed (the
packet is never sent to another address); backend_error is any other exception the backend or
its client raised (a TypeError or AttributeError from an SDK whose interface changed, a bug):
the judge failing, not the record."""

SampledSkipReason = Literal[
    "circuit_open",
    "budget_requests_per_minute",
    "budget_tokens_per_minute",
    "budget_tokens_per_day",
    "shutting_down",
]
"""Why a trace the judge should have seen got no call: the open breaker, the budget that
said no, or the judge closing. Its cited importance-3 claims are ``critical_unjudged``."""

SkipReason = Literal["no_cited_claims", "not_sampled", SampledSkipReason]
"""Why the judge did not run for a trace (``skip_reason``, ``citewatch_judge_skips_total``):
nothing to judge, not sampled, or one of :data:`SampledSkipReason`."""

CircuitState = Literal["closed", "open", "half_open"]
"""The judge circuit breaker's state (``citewatch_judge_circuit_state``)."""

Stage = Literal["decode", "checks", "redaction", "judge", "scoring", "emit"]
"""The pipeline stages timed in ``citewatch_stage_duration_seconds``."""

FindingCode = Literal[
    "no_claims",
    "claims_derived",
    "derived_claims_cut",
    "no_markers",
    "citation_numbering",
    "unknown_citation_id",
    "uncited_claim",
    "invalid_citation_claim",
    "citation_mismatch",
    "citation_id_case",
    "prescreen_flag",
    "uncited_source",
    "empty_source",
    "injection_suspect",
    "fabricated_quote",
    "quote_unverifiable",
    "citation_out_of_range",
    "source_truncated",
    "answer_chosen",
    "check_error",
    "misattributed",
    "injection_influenced",
]
"""Every finding code a check or the pipeline emits (``FindingRecord.code``, the ``code``
label of ``citewatch_findings_total``), in README.md's order."""
