"""torch.compile for training steps: a bounded number of graphs, counted, and eager execution when it fails.

Batches of fixed shapes (translate.data.batching.FixedShapes) give one graph per shape; `dynamic=False` keeps them
specialised (the fastest kernels) and the recompile limit is raised to the number of shapes so that none falls back
to eager silently.
"""
from __future__ import annotations

import logging
import time

import torch
from torch import nn

log = logging.getLogger(__name__)

BACKENDS = ("inductor", "aot_eager", "eager")


class CountingBackend:
    """A torch.compile backend that counts the graphs handed to `backend` (one per shape and graph break)."""

    def __init__(self, backend: str = "inductor") -> None:
        self.backend = backend
        self.graphs = 0

    def __call__(self, graph_module, example_inputs):
        from torch._dynamo.backends.registry import lookup_backend

        self.graphs += 1
        return lookup_backend(self.backend)(graph_module, example_inputs)


class CompiledSteps:
    """The training module compiled once per batch shape, with the seconds of the steps that compiled.

    `run(step)` calls step(module) with the compiled module; if that raises, it warns naming `what` (the encoding),
    switches to the eager module for good and runs the step again there (an eager failure is a real error)."""

    def __init__(self, module: nn.Module, what: str, backend: str, max_shapes: int) -> None:
        self.eager, self.what = module, what
        self.counter = CountingBackend(backend)
        limit = max(torch._dynamo.config.recompile_limit, 2 * max_shapes + 2)  # train and eval modes per shape
        torch._dynamo.config.recompile_limit = limit
        self.compiled = torch.compile(module, backend=self.counter, dynamic=False)
        self.failed = False
        self.seconds = 0.0  # wall time of the steps that compiled a graph (their own compute included)

    @property
    def graphs(self) -> int:
        return self.counter.graphs

    def run(self, step):
        if self.failed:
            return step(self.eager)
        graphs, started = self.counter.graphs, time.perf_counter()
        try:
            result = step(self.compiled)
        except Exception as error:  # noqa: BLE001 - any compile failure: tried eagerly next, which re-raises real errors
            self.failed = True
            log.warning("train.compile: %s cannot be compiled (%s: %s); training eagerly", self.what,
                        type(error).__name__, str(error).splitlines()[0] if str(error) else "")
            return step(self.eager)
        if self.counter.graphs > graphs:
            self.seconds += time.perf_counter() - started
            log.info("train.compile: %d graph(s) so far, %.1f s of compiling steps", self.counter.graphs, self.seconds)
        return result
