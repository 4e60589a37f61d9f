"""translate: a French-to-English Transformer trainer for studying positional encodings."""
import os

# Idle OpenMP threads otherwise spin while they wait, taking the cores that other runs of a sweep (or anything
# else on a shared machine) need: measured 4x the CPU time for the same work at model=small (docs/speed.md).
# Set before torch is imported; an explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _keep_large_buffers_in_the_heap() -> None:
    """glibc serves blocks over 32 MiB (a step's (tokens, vocabulary) logits and their gradients) with a fresh mmap
    and unmaps them on free, so every step pays page faults for them again: a 64 MiB softmax took 21 ms instead of
    9, and a model=small training step 1.29x longer (docs/speed.md). Heap memory is reused instead; freed memory is
    kept up to 1 GiB. Only where glibc is the allocator; MALLOC_MMAP_MAX_ in the environment wins."""
    import ctypes
    import sys

    if not sys.platform.startswith("linux") or "MALLOC_MMAP_MAX_" in os.environ:
        return
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl, another allocator preloaded under another name)
        return
    m_trim_threshold, m_mmap_max = -1, -4  # <malloc.h>
    mallopt(m_mmap_max, 0)
    mallopt(m_trim_threshold, 1 << 30)


_keep_large_buffers_in_the_heap()

# The config schemas are registered where configs are composed (the command mains, translate.assembly.compose), so
# importing one encoding loads no data pipeline.
