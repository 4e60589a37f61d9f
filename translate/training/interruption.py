"""Stop training cleanly on SIGINT / SIGTERM: finish the step, save, flush, then say how to resume.

The first signal only sets a flag that the training loop reads after each step; a second one stops at once.
"""
from __future__ import annotations

import logging
import shlex
import signal
import threading
from pathlib import Path
from typing import Iterable, Optional

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)


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

    def __init__(self) -> None:
        self.signum: Optional[int] = None
        self.previous: dict = {}

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:  # asked twice: stop now, without a checkpoint
            raise KeyboardInterrupt
        self.signum = signum
        log.warning("%s received: stopping after this step and saving a checkpoint (send it again to stop at once)",
                    signal.Signals(signum).name)

    def __enter__(self) -> "StopRequests":
        if threading.current_thread() is threading.main_thread():  # Python only delivers signals there
            for sig in SIGNALS:
                self.previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
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
