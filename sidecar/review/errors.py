"""Errors of the review store and the reviewers' page.

    ReviewError                (a CitewatchError; the CLI turns it into one line)
     ├── StoreError            the store cannot be opened, or a newer citewatch wrote it
     └── LabelError            a label that was not written; ``status`` is the HTTP status
          ├── LabelValueError  a label, reviewer, failure type or note not acceptable (400)
          ├── FormTokenError   a form the page did not issue to this reviewer for this
          │                    item, or an expired one (403)
          ├── ReplayedFormError a form already submitted (409)
          ├── AdjudicationError an adjudication of an item that is not disputed, or by
          │                    one of its reviewers, or by someone not an adjudicator (403)
          └── UnknownItemError no item with that ID (404)

Messages name IDs and fields, never trace text.
"""

from __future__ import annotations

from sidecar.errors import CitewatchError

__all__ = [
    "AdjudicationError",
    "FormTokenError",
    "LabelError",
    "LabelValueError",
    "ReplayedFormError",
    "ReviewError",
    "StoreError",
    "UnknownItemError",
]


class ReviewError(CitewatchError):
    """Base of the review queue's errors."""

    reason = "review"


class StoreError(ReviewError):
    """The review store cannot be opened or used."""

    reason = "review_store"


class LabelError(ReviewError):
    """A label that was refused; nothing was written."""

    status = 400


class LabelValueError(LabelError):
    """The label, reviewer, failure type or note is not acceptable."""

    status = 400


class FormTokenError(LabelError):
    """The form was not issued by the page for this item and reviewer, or has expired."""

    status = 403


class ReplayedFormError(LabelError):
    """The form was already submitted once."""

    status = 409


class UnknownItemError(LabelError):
    """No review item has that ID."""

    status = 404


class AdjudicationError(LabelError):
    """An adjudication the item or the reviewer does not allow."""

    status = 403
