"""The reviewers' page's views: the queue with the reviewer's latest labels, the next item,
an item, and the disputed items."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, get_args

from flask import Flask, g, redirect, render_template, request, url_for

from schemas import FailureType, ReviewPassage, ReviewReason
from sidecar.review.routing import locate_quote
from sidecar.review.store import ReviewStore

__all__ = ["BADGES", "register_pages"]

FAILURE_TYPES: tuple[str, ...] = get_args(FailureType)
KEYS = {"s": "supported", "p": "partial", "u": "unsupported", "k": "skip"}
LABELS = ("supported", "partial", "unsupported", "skip")
PAGE_SIZE = 20

BADGES: dict[str, str] = {
    "critical_unjudged": "an importance-3 claim the judge could not answer (error, budget, "
    "open circuit)",
    "injection_influenced": "text addressed to a model in the passages, question or claim "
    "changed the verdict, or left it unconfirmed once removed",
    "unverified": "a verdict citewatch did not trust: the quote does not cover the claim's "
    "numbers, dates, names or qualifiers",
    "suspect": "the offline screen saw a conflict (another number, a negation...) that no "
    "LLM resolved",
    "abstained_critical": "an importance-3 claim the offline screen could not decide",
    "disagreement": "the offline screen and the LLM judge disagreed",
    "audit": "chosen at random among the judge's verdicts: label it like any other, and "
    "skip it no more often",
}
"""Why an item is in the queue, one line per reason (the badges' hover text and legend)."""
assert set(BADGES) == set(get_args(ReviewReason)), "a badge for every review reason"


def _segments(passage: ReviewPassage, quote: str | None = None) -> tuple[str, str, str]:
    """The passage as (before, quote, after); quote empty when it is not in this passage.
    An item routed without the quote's place (its quote then carried datamarks, which the
    item no longer shows) has the place found again from ``quote``."""
    text, start, end = passage.text, passage.quote_start, passage.quote_end
    if (start is None or end is None) and quote:
        span = locate_quote(quote, text)
        start, end = span if span is not None else (None, None)
    if start is None or end is None or not 0 <= start < end <= len(text):
        return text, "", ""
    return text[:start], text[start:end], text[end:]


def register_pages(
    app: Flask,
    store: ReviewStore,
    *,
    error: Callable[[int, str], tuple[str, int]],
    may_adjudicate: Callable[[str], bool],
) -> None:
    """Add the page views to ``app``."""
    app.jinja_env.globals["badges"] = BADGES

    @app.get("/")
    def queue() -> str:
        reviewer = g.reviewer
        wanted = request.args.get("label") or ""
        try:
            page = max(1, int(request.args.get("page") or 1))
        except ValueError:
            page = 1
        mine = [
            row
            for row in reversed(store.labels())
            if row.reviewer == reviewer and (not wanted or row.label == wanted)
        ]
        shown = mine[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
        claims = {row.item_id: store.item(row.item_id) for row in shown}
        return render_template(
            "queue.html",
            reviewer=reviewer,
            items=store.queue(reviewer, limit=50),
            depth=store.queue_depth(),
            disputes=len(store.disagreements()),
            mine=[(row, claims.get(row.item_id)) for row in shown],
            label_filter=wanted,
            labels=LABELS,
            page=page,
            pages=max(1, -(-len(mine) // PAGE_SIZE)),
            total=len(mine),
        )

    @app.get("/next")
    def next_item() -> Any:
        items = store.queue(g.reviewer, limit=1)
        if not items:
            return render_template("done.html", reviewer=g.reviewer)
        return redirect(url_for("item", item_id=items[0].item_id))

    @app.get("/item/<item_id>")
    def item(item_id: str) -> Any:
        found = store.item(item_id)
        if found is None:
            return error(404, f"no review item {item_id[:64]!r}")
        reviewer = g.reviewer
        adjudicate = "adjudicate" in request.args
        if adjudicate and not may_adjudicate(item_id):
            return error(
                403,
                "adjudication is for disputed items, by an adjudicator who labelled neither side",
            )
        labels = store.labels(item_id)
        others = {row.reviewer: row for row in labels if not row.adjudication} if adjudicate else {}
        return render_template(
            "item.html",
            item=found,
            reviewer=reviewer,
            adjudicate=adjudicate,
            others=others,
            passages=[(p, _segments(p, found.evidence_quote)) for p in found.passages],
            failure_types=FAILURE_TYPES,
            keys=KEYS,
            form_token=store.issue_form(item_id, reviewer),
            history=[row for row in labels if row.reviewer == reviewer],
        )

    @app.get("/disagreements")
    def disagreements() -> str:
        disputes = store.disagreements()
        return render_template(
            "disagreements.html",
            reviewer=g.reviewer,
            disputes=[(item, labels, may_adjudicate(item.item_id)) for item, labels in disputes],
        )
