"""Device, precision and distributed set-up, chosen once at start-up."""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import torch


@dataclass
class Runtime:
    device: torch.device
    autocast_dtype: "torch.dtype | None"   # None: full fp32
    rank: int = 0
    world_size: int = 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def non_blocking(self) -> bool:
        """Copy batches asynchronously (from pinned memory) where the device runs behind the host: CUDA."""
        return self.device.type == "cuda"

    @property
    def fused_adamw(self) -> bool:
        """One kernel per step for the whole AdamW update (CPU and CUDA have it; the per-tensor loop
        costs ~10% of a CPU step at model=small)."""
        return self.device.type in ("cpu", "cuda")

    @property
    def cpu_bf16(self) -> bool:
        """The CPU bf16 path: autocast plus the kernels that make bf16 pay on a CPU (the chunked projection loss,
        dropout masks from packed random words, explicit attention matmuls). fp32 and CUDA keep the reference kernels, so their
        runs reproduce bit for bit (docs/speed.md)."""
        return self.device.type == "cpu" and self.autocast_dtype == torch.bfloat16

    def describe(self) -> str:
        """What a run's numbers name as its device: "NVIDIA H200, fp32", "CPU, fp32" (metrics.json's `device`)."""
        name = torch.cuda.get_device_name(self.device) if self.device.type == "cuda" else self.device.type.upper()
        return f"{name}, {'bf16' if self.autocast_dtype == torch.bfloat16 else 'fp32'}"

    def autocast(self):
        if self.autocast_dtype is None:
            return contextlib.nullcontext()
        return torch.autocast(self.device.type, dtype=self.autocast_dtype)


def avoid_cudnn_attention() -> None:
    """Attention on CUDA through FlashAttention or the memory-efficient kernel, never cuDNN's. On Hopper torch prefers
    cuDNN's, which builds a graph for each new (batch, heads, length) shape: our batches change shape every step
    (eager training) and every decoding step lengthens the keys, so it paid ~8.7 ms of host time per attention call
    on an H100 (torch 2.11; a model=base eager step 387 ms with it, against 81 ms for t5, whose biased attention
    takes another kernel; docs/speed.md)."""
    torch.backends.cuda.enable_cudnn_sdp(False)


def pick_device(name: str) -> torch.device:
    """The device `name` asks for (auto: CUDA, else MPS, else CPU), set up for our attention on CUDA."""
    device = _device_named(name)
    if device.type == "cuda":
        avoid_cudnn_attention()
    return device


def _device_named(name: str) -> torch.device:
    if name != "auto":
        if name == "cuda" and not torch.cuda.is_available():
            raise ValueError("train.device=cuda but no CUDA device is available; allowed here: auto, cpu")
        if name == "mps" and not torch.backends.mps.is_available():
            raise ValueError("train.device=mps but MPS is not available; allowed here: auto, cpu")
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0))) if name == "cuda" else torch.device(name)
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def make_runtime(device_name: str, precision: str) -> Runtime:
    device = pick_device(device_name)
    if precision == "auto":
        dtype = torch.bfloat16 if device.type == "cuda" else None
    else:
        dtype = torch.bfloat16 if precision == "bf16" else None
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    return Runtime(device, dtype, rank, world)
