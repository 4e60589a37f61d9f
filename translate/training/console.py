"""What the console says while a run trains, so that a slow run can be told from a hung one.

On a terminal: a tqdm bar whose total is the planned number of steps (train.max_steps, or what the time budget
train.max_minutes leaves at the speed so far, whichever comes first). Elsewhere (a log file, nohup, a sweep job): one
line every train.log_every steps, `step 250/1400 (18%) | loss 4.213 | 1,234 target tokens/s | 6.5 min, ETA 29.9 min`.
"""
from __future__ import annotations

import logging
import sys
import time
from typing import Optional, TextIO

from tqdm import tqdm

log = logging.getLogger("translate.training")


def minutes_text(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


class ConsoleProgress:
    def __init__(self, start_step: int, max_steps: int, max_minutes: Optional[float], spent_seconds: float,
                 enabled: bool = True, stream: Optional[TextIO] = None) -> None:
        self.start_step, self.step, self.max_steps, self.max_minutes = start_step, start_step, max_steps, max_minutes
        self.spent_before = spent_seconds          # training + validation time of earlier sessions (a resumed run)
        self.started = time.perf_counter()
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.bar = tqdm(total=self.planned(), initial=start_step, file=self.stream, dynamic_ncols=True) \
            if enabled and self.stream.isatty() else None

    def seconds(self) -> float:
        """Training and validation time so far, this session and earlier ones."""
        return self.spent_before + time.perf_counter() - self.started

    def seconds_per_step(self) -> Optional[float]:
        done = self.step - self.start_step
        return (time.perf_counter() - self.started) / done if done > 0 else None

    def planned(self) -> int:
        """The step the run will stop at: max_steps, or earlier where the time budget runs out first."""
        pace = self.seconds_per_step()
        if self.max_minutes is None or pace is None:
            return self.max_steps
        left = max(0.0, self.max_minutes * 60 - self.seconds())
        return min(self.max_steps, self.step + int(left / pace))

    def eta_seconds(self) -> Optional[float]:
        pace = self.seconds_per_step()
        return None if pace is None else (self.planned() - self.step) * pace

    def advance(self, step: int) -> None:
        if self.bar is not None:
            self.bar.update(step - self.bar.n)
        self.step = step

    def report(self, loss: float, tokens_per_s: float, lr: float) -> None:
        """At a log step: the bar's numbers on a terminal, a progress line elsewhere."""
        if not self.enabled:
            return
        planned, eta = self.planned(), self.eta_seconds()
        if self.bar is not None:
            self.bar.total = planned
            self.bar.set_postfix(loss=f"{loss:.3f}", lr=f"{lr:.2e}", tok_s=f"{tokens_per_s:.0f}")
            return
        log.info("step %d/%d (%d%%) | loss %.3f | %s target tokens/s | %s, ETA %s", self.step, planned,
                 100 * self.step // max(planned, 1), loss, f"{tokens_per_s:,.0f}", minutes_text(self.seconds()),
                 "?" if eta is None else minutes_text(eta))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
