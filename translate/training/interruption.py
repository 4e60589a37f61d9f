"""Stop training cleanly on SIGINT / SIGTERM: finish the step, save, flush, then say how to resume.

The first signal sets a flag that the training loop reads after each step. A step that has not ended `grace_seconds`
later (compiling, or just long) is abandoned where it stands, if it is still in its forward or backward pass: weights
are only changed after those, so the checkpoint then holds the last finished step. A second signal stops at once.
"""
from __future__ import annotations

import logging
import shlex
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Optional

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)
GRACE_SECONDS = 5.0  # a stop asked during a step waits this long for the step to end (then the run saves, in < 10 s)


class StepAbandoned(BaseException):
    """A stop signal's grace ran out in a step's forward or backward pass. Not an Exception, so that handlers of
    compile errors (translate.training.compilation) let it through."""


class Interrupted(Exception):
    """Training stopped on a signal after saving `checkpoint` at `step`."""

    def __init__(self, signum: int, step: int, checkpoint: Path) -> None:
        self.signum, self.step, self.checkpoint = signum, step, Path(checkpoint)
        super().__init__(f"{signal.Signals(signum).name} received: stopped at step {step}, checkpoint {checkpoint}")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum  # the shell's convention for "ended by signal N"


class StopRequests:
    """Context manager: while active, SIGINT / SIGTERM set `signum` instead of killing the process."""

    def __init__(self, grace_seconds: float = GRACE_SECONDS) -> None:
        self.signum: Optional[int] = None
        self.previous: dict = {}
        self.grace_seconds = grace_seconds
        self.in_abortable = False  # inside a forward or backward pass, which can be dropped without harm
        self.grace_over = False

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:  # asked twice: stop now, without a checkpoint
            raise KeyboardInterrupt
        self.signum = signum
        log.warning("%s received: stopping after this step and saving a checkpoint (send it again to stop at once)",
                    signal.Signals(signum).name)
        if signal.SIGALRM in self.previous:
            signal.setitimer(signal.ITIMER_REAL, self.grace_seconds)

    def _grace_over(self, signum, frame) -> None:
        self.grace_over = True
        if self.in_abortable:
            log.warning("the step did not end within %.0f s of the stop signal: abandoning it", self.grace_seconds)
            raise StepAbandoned

    @contextmanager
    def abortable(self):
        """Marks a forward or backward pass: abandoned (StepAbandoned) once a stop signal's grace is over."""
        self.in_abortable = True
        try:
            if self.grace_over:
                raise StepAbandoned
            yield
        finally:
            self.in_abortable = False

    def __enter__(self) -> "StopRequests":
        if threading.current_thread() is threading.main_thread():  # Python only delivers signals there
            for sig in SIGNALS:
                self.previous[sig] = signal.signal(sig, self._handle)
            self.previous[signal.SIGALRM] = signal.signal(signal.SIGALRM, self._grace_over)
        return self

    def __exit__(self, *exc) -> None:
        if signal.SIGALRM in self.previous:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        self.previous = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None


def resume_command(overrides: Iterable[str], run_dir: Path) -> str:
    """The command line that continues the run in `run_dir`, keeping every other override."""
    replaced = ("hydra.run.dir=", "train.resume=")
    kept = [o for o in overrides if not o.lstrip("+~").startswith(replaced)]
    args = [*kept, f"hydra.run.dir={run_dir}", "train.resume=auto"]
    return "python -m translate.train " + " ".join(shlex.quote(a) for a in args)
