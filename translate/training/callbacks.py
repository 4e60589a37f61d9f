"""What the trainer calls besides its loop: a report plugs in by implementing these three methods (e.g.
translate.analysis.run.callback.LengthReport), made by a factory from the run's translator and TensorBoard writer."""
from __future__ import annotations

from typing import Callable, Optional, Protocol, runtime_checkable

from torch.utils.tensorboard import SummaryWriter

from translate.decoding.translator import Translator


@runtime_checkable
class TrainingCallback(Protocol):
    """step: the trainer's progress.step at the call."""

    def on_start(self, step: int) -> None:
        """Before the first step (of this process: a resumed run starts again here)."""

    def on_validate(self, step: int) -> None:
        """After each validation, best.pt already saved when it was the best."""

    def on_end(self, step: int) -> None:
        """After the last validation and last.pt (not when a stop signal ends the run)."""


# Makes a callback from the run's translator and TensorBoard writer (None: no writer, or not the main rank).
CallbackFactory = Callable[[Translator, Optional[SummaryWriter]], TrainingCallback]
