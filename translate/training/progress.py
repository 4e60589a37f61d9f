"""Where a run stands (saved in every checkpoint, so a resumed run continues exactly) and the budgets that end it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from translate.training.config import TrainConfig


@dataclass
class Progress:
    """Where training stands; saved in every checkpoint so a resumed run continues exactly."""

    step: int = 0
    epoch: int = 0
    batch_in_epoch: int = 0       # batches of `epoch` already trained on
    target_tokens: int = 0
    train_seconds: float = 0.0    # in training steps (for tokens/s)
    valid_seconds: float = 0.0    # in validation (counted in the time budget too)
    best_bleu: float = -1.0
    best_step: int = 0                # the step of best_bleu (a pilot's plateau step)
    validations_since_best: int = 0   # train.early_stop_patience counts these
    # [step, valid BLEU, valid loss] at every validation: the learning curve, in metrics.json and the sweep report
    valid_curve: list = field(default_factory=list)
    skipped_steps: int = 0
    compile_seconds: float = 0.0  # in steps that compiled a graph (train.compile)
    compiled_graphs: int = 0


def plateaued(train: TrainConfig, progress: Progress) -> bool:
    """train.early_stop_patience validations in a row without a better valid BLEU (null: never)."""
    patience = train.early_stop_patience
    return patience is not None and progress.validations_since_best >= patience


def budget_spent(train: TrainConfig, progress: Progress) -> Optional[str]:
    """The budget a run at `progress` has used up, in words; None while it has training left."""
    t, p = train, progress
    if p.step >= t.max_steps:
        return f"step {p.step} of train.max_steps={t.max_steps}"
    if p.epoch >= t.max_epochs:
        return f"epoch {p.epoch} of train.max_epochs={t.max_epochs}"
    if plateaued(t, p):
        return (f"{p.validations_since_best} validations without a better valid BLEU (train.early_stop_patience="
                f"{t.early_stop_patience})")
    minutes = (p.train_seconds + p.valid_seconds) / 60
    if t.max_minutes and minutes >= t.max_minutes:
        return f"{minutes:.1f} minutes of train.max_minutes={t.max_minutes:g}"
    return None
