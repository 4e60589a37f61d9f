"""`piece=K/N`: run one of N pieces of a sweep, jobs K, K+N, K+2N, ... of its job list (K from 1), and skip the
others. Pieces let a long sweep run in short sessions (e.g. ~10-minute GPU calls): each piece trains its jobs to the
end, translate.study collect gathers their small files into one folder, and the report reads them together."""
from __future__ import annotations

import re
from typing import Optional

from translate.config import ConfigError

PIECE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_piece(value) -> Optional[tuple[int, int]]:
    """None (every job) or (K, N) with 1 <= K <= N."""
    if value is None:
        return None
    found = PIECE.match(str(value))
    k, n = (int(found[1]), int(found[2])) if found else (0, 0)
    if not 1 <= k <= n:
        raise ConfigError(f"piece={value!r} is not allowed: expected null or K/N with 1 <= K <= N (e.g. piece=2/7: "
                          f"jobs 2, 9, 16, ... of the sweep)")
    return k, n


def in_piece(value, job_num: Optional[int]) -> bool:
    """Whether the job numbered `job_num` (Hydra's hydra.job.num, from 0; None outside a sweep) belongs to the piece."""
    piece = parse_piece(value)
    if piece is None:
        return True
    if job_num is None:
        raise ConfigError(f"piece={value!r} only applies to a sweep (+sweep=... or -m); this is a single run")
    k, n = piece
    return job_num % n == k - 1
