"""Inverse-square-root schedule with linear warm-up (Vaswani et al. 2017, with the peak given directly)."""
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


def inverse_sqrt_factor(step: int, warmup_steps: int) -> float:
    """Multiplier of the peak lr: step / warmup before the peak, sqrt(warmup / step) after."""
    step = max(step, 1)
    return min(step / warmup_steps, (warmup_steps / step) ** 0.5)


def inverse_sqrt_schedule(optimizer: Optimizer, warmup_steps: int) -> LambdaLR:
    return LambdaLR(optimizer, lambda step: inverse_sqrt_factor(step + 1, warmup_steps))
