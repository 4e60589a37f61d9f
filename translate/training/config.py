"""The `train` config group (conf/train/*.yaml): batches, budget, optimiser, checkpoints, device."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, List, Optional

from translate.config.fields import HOW_IT_RAN, Checked, Rule, above, at_least, number_in, one_of, setting

BOOL = Rule(lambda v: isinstance(v, bool), "true or false")


@dataclass
class TrainConfig(Checked):
    SECTION: ClassVar[str] = "train"

    max_tokens: int = setting(at_least(1))            # padded tokens per step and side, over all DDP ranks
    max_sentences: int = setting(at_least(1))
    max_steps: int = setting(at_least(1))
    max_epochs: int = setting(at_least(1))
    max_minutes: Optional[float] = setting(above(0, "a number of minutes > 0"), optional=True)
    lr: float = setting(Rule(lambda v: 0 < v < 1, "a learning rate in (0, 1)"))
    warmup_steps: int = setting(at_least(1))
    betas: List[float] = setting(Rule(lambda v: len(v) == 2 and all(0 <= b < 1 for b in v), "two numbers in [0, 1)"))
    weight_decay: float = setting(number_in(0, 1))
    label_smoothing: float = setting(number_in(0, 1, high_open=True))
    clip_norm: Optional[float] = setting(above(0, "a gradient norm > 0"), optional=True)
    max_bad_steps: int = setting(at_least(1))
    valid_every: int = setting(at_least(1))
    valid_bleu_limit: Optional[int] = setting(at_least(1), optional=True)
    log_every: int = setting(at_least(1), role=HOW_IT_RAN)
    save_every: int = setting(at_least(1), role=HOW_IT_RAN)
    resume: Optional[str] = setting(Rule(lambda v: v != "", "null, auto or a checkpoint path"), optional=True,
                                    role=HOW_IT_RAN)
    device: str = setting(one_of("auto", "cpu", "cuda", "mps"), role=HOW_IT_RAN)
    precision: str = setting(one_of("auto", "fp32", "bf16"), role=HOW_IT_RAN)
    compile: bool = setting(BOOL, role=HOW_IT_RAN)
    compile_backend: str = setting(one_of("inductor", "aot_eager", "eager"))
    pad_shapes: Any = setting(Rule(lambda v: v == "auto" or isinstance(v, bool), "auto, true or false"))
    flex_attention: bool = setting(BOOL)
    shape_multiple: int = setting(at_least(1))
    num_threads: Optional[int] = setting(at_least(1), optional=True, role=HOW_IT_RAN)
    samples: int = setting(at_least(0), role=HOW_IT_RAN)
    # stop after this many validations in a row without a better valid BLEU (null: train to the step/time budget)
    early_stop_patience: Optional[int] = setting(at_least(1), default=None, optional=True)
    # the model the test sets score: the last step's (every job of a comparison at its one step budget), or the
    # checkpoint of the best valid BLEU (a step that differs from job to job)
    test_checkpoint: str = setting(one_of("last", "best"), default="last")

    def fixed_shapes_wanted(self) -> bool:
        """Pad batches to a few shapes: asked for, or (auto) because compiled graphs want them."""
        return self.compile if self.pad_shapes == "auto" else bool(self.pad_shapes)
