"""The bench's plan: its stages in order, the most steps each may take, and the rounds of each measure.

Why one object: the progress bar's total and the loop that does the work must agree. The plan is made once
from the request; the loop takes its rounds from it and marks each step as it starts; the bar reads the same
counts. A stage that ends early (the warm-up steady, the ratio's interval narrow enough) is closed, and from
then on counts the steps it took instead of the most it could have, so the total shrinks instead of the bar
jumping.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

_T = TypeVar("_T")
Progress = Callable[[str, int, int], None]  # (phase, steps done, steps planned)


def round_order(layouts: Sequence[_T], n: int) -> list[_T]:
    """Round n's order (n from 1): as given in odd rounds, reversed in even ones (counterbalanced: a drift within
    a round cannot favour whoever runs second)."""
    return list(layouts) if n % 2 else list(reversed(layouts))


@dataclass
class Stage:
    name: str
    most: int          # steps it may take
    done: int = 0
    closed: bool = False

    @property
    def counted(self) -> int:
        """Its share of the total: what it took once closed, else the most it may take."""
        return self.done if self.closed else max(self.most, self.done)


@dataclass
class Plan(Generic[_T]):
    """Stages in order; ``rounds(measure)`` yields that measure's counterbalanced rounds of layouts."""

    layouts: list[_T]
    stages: dict[str, Stage] = field(default_factory=dict)
    repeat: int = 1
    progress: Progress | None = None

    @classmethod
    def make(cls, count: int, measures: Sequence[str], repeat: int, primes: bool,
             progress: Progress | None = None) -> Plan[_T]:
        """The plan for ``count`` layouts (added to ``layouts`` as each is set up)."""
        n = count
        plan: Plan[_T] = cls(layouts=[], repeat=repeat, progress=progress)
        plan.add("setup", 2 * n)            # initdb and load per layout
        if primes:
            plan.add("prime", n)
        plan.add("hook", 1)
        for m in measures:
            plan.add(f"{m}: warm-up", n)     # one step per layout; its windows are reported, not counted
            plan.add(f"{m}: rounds", n * repeat)
        return plan

    def add(self, name: str, most: int) -> None:
        self.stages[name] = Stage(name, most)

    @property
    def total(self) -> int:
        return sum(s.counted for s in self.stages.values())

    @property
    def done(self) -> int:
        return sum(s.done for s in self.stages.values())

    def say(self, phase: str) -> None:
        """Report a phase without counting a step (a warm-up window)."""
        if self.progress is not None:
            self.progress(phase, self.done, self.total)

    def step(self, stage: str, phase: str) -> None:
        """Report a step of ``stage`` as it starts, then count it."""
        self.say(phase)
        self.stages[stage].done += 1

    def close(self, stage: str) -> None:
        self.stages[stage].closed = True

    def rounds(self, measure: str) -> Iterator[tuple[int, list[_T]]]:
        """(round number, layouts in that round's order) for up to ``repeat`` rounds; the caller stops early."""
        for n in range(1, self.repeat + 1):
            yield n, round_order(self.layouts, n)
