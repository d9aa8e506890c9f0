"""The trusted side's time on one notebook (`Limits.analysis_s`), counted in CPU seconds of the thread
that does the work: parsing, thinning, IPython's transformation and the static scan.

Wall-clock time depends on how busy the machine is: a valid notebook of 4,700 extra cells failed "too
slow to analyse" after 32 s on a loaded 2-core host and would have graded on a quiet one. The analysing
thread's CPU time is the work itself, whatever runs beside it (another grading thread waiting for the
GIL spends none). The work calls `check` as it goes (each cell, statement and scanned source), so the
budget is overrun by at most one statement's analysis, which the engine's size limits bound.
"""
from __future__ import annotations

import time
from typing import Callable


class OverBudget(Exception):
    """The analysis used up its CPU budget; the message is the submission's failure reason."""


class Budget:
    """`with budget:` around each stage that counts; `budget.check()` inside the work raises OverBudget."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.thread_time) -> None:
        self.seconds, self.clock = seconds, clock
        self.spent, self._since = 0.0, None

    def __enter__(self) -> "Budget":
        self._since = self.clock()
        return self

    def __exit__(self, *exc) -> None:
        self.spent += self.clock() - self._since
        self._since = None

    def used(self) -> float:
        return self.spent + (self.clock() - self._since if self._since is not None else 0.0)

    def check(self) -> None:
        if self.used() > self.seconds:
            raise OverBudget(f"too slow to analyse: the grader's own work on this notebook (thinning, IPython "
                             f"transformation, static scan) took more than {self.seconds:g} s of CPU time")
