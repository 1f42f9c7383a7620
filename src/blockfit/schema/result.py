"""The envelope every top-level result carries, so a JSON file says what it is and which schema wrote it.

`blockfit report` (and any other reader) dispatches on `kind` and refuses a `schema_version` newer than
the one it knows. Bump SCHEMA_VERSION when a result changes in a way an older reader would misread.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = 3

ResultKind = Literal["model", "plan", "calibrate", "lab", "diagnose", "build", "bench", "lab-bench", "fleet",
                     "inventory"]


class ResultEnvelope(BaseModel):
    """Base of every result model; each subclass pins `kind` to its own Literal."""

    schema_version: int = Field(default=SCHEMA_VERSION, description="schema version of the blockfit that wrote it")
