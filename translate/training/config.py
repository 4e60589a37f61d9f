"""The `train` config group (conf/train/*.yaml): batches, budget, optimiser, checkpoints, device. The defaults are
here, the default run's (conf/train/default.yaml lists nothing else); a preset such as conf/train/gpu.yaml lists what
it changes."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, List, Optional

from translate.config.fields import HOW_IT_RAN, Checked, Rule, above, at_least, number_in, one_of, setting

BOOL = Rule(lambda v: isinstance(v, bool), "true or false")


@dataclass
class TrainConfig(Checked):
    SECTION: ClassVar[str] = "train"

    # padded tokens per step and side (over all DDP ranks): small batches, many updates in a CPU budget
    max_tokens: int = setting(at_least(1), default=2500)
    max_sentences: int = setting(at_least(1), default=1000)
    # the budget, in steps: the same model on a busy or a quiet machine (make train: 21 minutes in all on 2 quiet CPU
    # cores, set-up and test decoding included: docs/results/runs/default_train)
    max_steps: int = setting(at_least(1), default=1500)
    max_epochs: int = setting(at_least(1), default=100)
    # an optional cap in minutes of training + validation (the log names it when it stops a run)
    max_minutes: Optional[float] = setting(above(0, "a number of minutes > 0"), default=None, optional=True)
    lr: float = setting(Rule(lambda v: 0 < v < 1, "a learning rate in (0, 1)"), default=0.002)  # peak, after warm-up
    warmup_steps: int = setting(at_least(1), default=300)
    betas: List[float] = setting(Rule(lambda v: len(v) == 2 and all(0 <= b < 1 for b in v), "two numbers in [0, 1)"),
                                 factory=lambda: [0.9, 0.98])
    weight_decay: float = setting(number_in(0, 1), default=0.0)
    label_smoothing: float = setting(number_in(0, 1, high_open=True), default=0.1)
    clip_norm: Optional[float] = setting(above(0, "a gradient norm > 0"), default=1.0, optional=True)
    # stop after this many consecutive steps with a non-finite loss or gradient
    max_bad_steps: int = setting(at_least(1), default=10)
    valid_every: int = setting(at_least(1), default=250)   # steps; validation is also run at the end
    # sentences decoded for valid BLEU (null: all)
    valid_bleu_limit: Optional[int] = setting(at_least(1), default=500, optional=True)
    log_every: int = setting(at_least(1), default=50, role=HOW_IT_RAN)
    save_every: int = setting(at_least(1), default=250, role=HOW_IT_RAN)
    # null, auto (newest checkpoint in the run folder) or a path
    resume: Optional[str] = setting(Rule(lambda v: v != "", "null, auto or a checkpoint path"), default=None,
                                    optional=True, role=HOW_IT_RAN)
    device: str = setting(one_of("auto", "cpu", "cuda", "mps"), default="auto", role=HOW_IT_RAN)  # auto: cuda, mps, cpu
    # auto: bf16 autocast on CUDA, fp32 elsewhere; or fp32 / bf16 (on a CPU: autocast plus the CPU bf16 kernels, about
    # 2x fp32's tokens/s where the CPU has bf16 matmul units: docs/speed.md)
    precision: str = setting(one_of("auto", "fp32", "bf16"), default="auto", role=HOW_IT_RAN)
    # torch.compile the training steps (CUDA, or CPU with a C++ compiler); first steps slow
    compile: bool = setting(BOOL, default=False, role=HOW_IT_RAN)
    # or aot_eager / eager (tests: traces and counts graphs without generating kernels)
    compile_backend: str = setting(one_of("inductor", "aot_eager", "eager"), default="inductor")
    # pad batches to a few shapes (one compiled graph each); auto: when compile is on
    pad_shapes: Any = setting(Rule(lambda v: v == "auto" or isinstance(v, bool), "auto, true or false"), default="auto")
    # with compile on CUDA: attention with a bias through flex_attention (README, GPU)
    flex_attention: bool = setting(BOOL, default=False)
    shape_multiple: int = setting(at_least(1), default=8)   # with pad_shapes: lengths rounded up to a multiple of this
    # torch threads; null: all cores (1 on a machine other jobs share: docs/speed.md)
    num_threads: Optional[int] = setting(at_least(1), default=None, optional=True, role=HOW_IT_RAN)
    # sample translations logged to TensorBoard at each validation
    samples: int = setting(at_least(0), default=4, role=HOW_IT_RAN)
    # stop after this many validations in a row without a better valid BLEU (null: train to the step/time budget;
    # max_steps still caps)
    early_stop_patience: Optional[int] = setting(at_least(1), default=None, optional=True)
    # the model the test sets score: the last step's (the step budget's model: every job of a comparison at its one
    # step budget, what a sweep compares), or the checkpoint of the best valid BLEU (a step that differs from job to
    # job)
    test_checkpoint: str = setting(one_of("last", "best"), default="last")

    def fixed_shapes_wanted(self) -> bool:
        """Pad batches to a few shapes: asked for, or (auto) because compiled graphs want them."""
        return self.compile if self.pad_shapes == "auto" else bool(self.pad_shapes)
