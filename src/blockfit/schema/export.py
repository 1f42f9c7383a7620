"""JSON Schemas of every result kind, generated from the pydantic models (docs/schema/<kind>.json).

    python -m blockfit.schema.export docs/schema

A test checks that the files in docs/schema are what this writes today and that emitted results validate.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from blockfit.schema.kinds import RESULT_TYPES


def json_schemas() -> dict[str, dict[str, Any]]:
    """kind -> the JSON Schema of what blockfit writes for it (serialization mode: the JSON as emitted)."""
    out = {}
    for kind, model in RESULT_TYPES.items():
        schema = model.model_json_schema(mode="serialization")
        schema["$id"] = f"blockfit/{kind}.json"
        out[kind] = schema
    return out


def schema_text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for kind, schema in json_schemas().items():
        path = directory / f"{kind}.json"
        path.write_text(schema_text(schema))
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover
    for p in write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/schema")):
        print(p)
