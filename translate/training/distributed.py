"""Data-parallel training over processes started by `torchrun` (one per GPU, or per CPU core group with gloo).

torchrun sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT; `init_process_group` reads them. Every
rank trains on its own shard of each epoch's batches (BatchPlan.epoch) and DistributedDataParallel averages
the gradients. `train.max_tokens` stays the budget of one optimizer step over all ranks (each rank gets 1/N of it),
so a run's hyperparameters mean the same on 1 or N processes, and the loss of a step is divided by the token count
of the *global* batch: the update equals that of one process training on the union of the ranks' batches.
"""
from __future__ import annotations

import atexit

import torch
import torch.distributed as dist
from torch import nn

from translate.training.device import Runtime

BACKENDS = {"cuda": "nccl", "cpu": "gloo"}


def init_process_group(runtime: Runtime) -> None:
    """Join the process group of a `torchrun` launch (no-op for a single process)."""
    if runtime.world_size == 1 or dist.is_initialized():
        return
    backend = BACKENDS.get(runtime.device.type)
    if backend is None:
        raise ValueError(f"train.device={runtime.device.type} cannot train on several processes; allowed with "
                         f"torchrun: {sorted(BACKENDS)}")
    if runtime.device.type == "cuda":
        torch.cuda.set_device(runtime.device)
    dist.init_process_group(backend, rank=runtime.rank, world_size=runtime.world_size)
    atexit.register(close_process_group)


def close_process_group() -> None:
    if dist.is_initialized():
        dist.destroy_process_group()


def wrap_model(model: nn.Module, runtime: Runtime) -> nn.Module:
    """The module training steps run through: DistributedDataParallel over `model` when there are several ranks.

    Parameters stay those of `model` (checkpoints, decoding and validation use `model` directly)."""
    if runtime.world_size == 1:
        return model
    device_ids = [runtime.device.index] if runtime.device.type == "cuda" else None
    return nn.parallel.DistributedDataParallel(model, device_ids=device_ids)


def sum_over_ranks(runtime: Runtime, *values: "torch.Tensor | float | int") -> list[float]:
    """Sums of scalars over all ranks, in one all-reduce (the values themselves for a single process)."""
    if runtime.world_size == 1:
        return [float(v) for v in values]
    packed = torch.tensor([float(v) for v in values], dtype=torch.float64, device=runtime.device)  # (n,)
    dist.all_reduce(packed)
    return packed.tolist()


def sum_on_device(runtime: Runtime, *values: "torch.Tensor | int") -> list[torch.Tensor]:
    """Sums of scalars over all ranks as device tensors, in one all-reduce; the host does not wait for it."""
    packed = torch.stack([torch.as_tensor(v, device=runtime.device).double() for v in values])  # (n,)
    dist.all_reduce(packed)
    return list(packed.unbind())


def any_over_ranks(runtime: Runtime, *flags: bool) -> list[bool]:
    """For each flag, whether it is set on any rank (one all-reduce; the flags themselves for a single process)."""
    return [total > 0 for total in sum_over_ranks(runtime, *(int(bool(f)) for f in flags))]


def rank_budget(total: int, runtime: Runtime, key: str) -> int:
    """A rank's share of a per-step budget (train.max_tokens, train.max_sentences) summed over all ranks."""
    share = total // runtime.world_size
    if share < 1:
        raise ValueError(f"{key}={total} split over {runtime.world_size} processes leaves none per process; "
                         f"allowed: >= {runtime.world_size}")
    return share
