"""Where a figure comes from: every catalog figure a result shows carries one."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Citation(BaseModel):
    """A catalog source: its id, its public URL and the date its figures held. No URL = an assumption of
    blockfit's own (the catalog's note says which and why), never a private path."""

    id: str
    url: str | None = Field(description="public URL of the page the figure is on; None: assumed by blockfit")
    date: str = Field(description="ISO date the figure held on")

    def __str__(self) -> str:
        return f"{self.id} ({self.date}) {self.url or 'assumed by blockfit (no published figure)'}"
