"""Generates the checked-in JSON Schema files from the models.

Run ``python -m schemas._jsonschema`` after changing a model; a test fails while they drift.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from schemas.evaluation import EvaluationRecord
from schemas.judge import JudgeResult
from schemas.review import ReviewItem
from schemas.trace import Trace

SCHEMA_FILES: dict[str, type[BaseModel]] = {
    "trace.v1.json": Trace,
    "evaluation.v1.json": EvaluationRecord,
    "judge_result.v1.json": JudgeResult,
    "review_item.v1.json": ReviewItem,
}

_HERE = Path(__file__).parent


def render(model: type[BaseModel]) -> str:
    """The JSON Schema of ``model`` as the text checked in beside it."""
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_all(directory: Path = _HERE) -> list[Path]:
    """Write every schema file into ``directory``; returns the paths written."""
    written = []
    for name, model in SCHEMA_FILES.items():
        path = directory / name
        path.write_text(render(model), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_all():
        print(written_path)  # noqa: T201
