"""Shared printing helpers: one rich console for humans, plain JSON for machines."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from pydantic import BaseModel
from rich.console import Console

# Tables are wide; when output is piped or captured (no terminal to measure) use 120 columns, not 80.
_PIPED = not sys.stdout.isatty() and "COLUMNS" not in os.environ
console = Console(width=120 if _PIPED else None)
err_console = Console(stderr=True)


def print_json(obj: BaseModel | dict[str, Any] | list[Any]) -> None:
    """Print a model or plain data as indented JSON on stdout (no rich markup, safe to pipe)."""
    if isinstance(obj, BaseModel):
        text = obj.model_dump_json(indent=2)
    else:
        text = json.dumps(obj, indent=2, default=str)
    sys.stdout.write(text + "\n")
