"""DDP on CPU: two gloo processes train like one process on the union of their batches."""
from __future__ import annotations

import json
import multiprocessing
import os
import socket
from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

STEPS = 3
# No dropout (the ranks' masks differ from one process's) and no clipping (it would hide a wrong loss scale).
OVERRIDES = ("model.dropout=0", "train.clip_norm=null", "train.max_tokens=800", "train.max_sentences=200",
             "train.device=cpu", "train.precision=fp32")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rank_trainer(rank: int, world: int, port: int, config_yaml: str, out: str):
    """In a spawned process: the environment torchrun would give rank `rank`, then that rank's trainer."""
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))
    torch.set_num_threads(1)
    from translate.data.pipeline import prepare_data
    from translate.training.device import make_runtime
    from translate.assembly.settings import data_settings, validate_config
    from translate.assembly.trainer import build_trainer

    cfg = OmegaConf.create(config_yaml)
    return build_trainer(validate_config(cfg), prepare_data(data_settings(cfg)), make_runtime("cpu", "fp32"),
                         Path(out) / f"rank{rank}")


def run_two_ranks(target, cfg, out: Path, *extra) -> list[int]:
    """Spawns ranks 0 and 1 of `target(rank, 2, port, config_yaml, out, *extra)`, waits up to 2 minutes for each
    (then kills it), and returns their exit codes."""
    context = multiprocessing.get_context("spawn")
    port = free_port()
    config_yaml = OmegaConf.to_yaml(cfg, resolve=True)  # spawned ranks have no Hydra resolvers (${now:...})
    ranks = [context.Process(target=target, args=(r, 2, port, config_yaml, str(out), *extra)) for r in range(2)]
    for p in ranks:
        p.start()
    for p in ranks:
        p.join(timeout=120)
    for p in ranks:
        if p.is_alive():
            p.kill()
    return [p.exitcode for p in ranks]


def worker(rank: int, world: int, port: int, config_yaml: str, out: str) -> None:
    """One torchrun-like rank: trains STEPS steps on its shard, records its batches, losses and gradients."""
    trainer = rank_trainer(rank, world, port, config_yaml, out)
    record = {"batches": [], "losses": [], "tokens": []}
    for step, indices in enumerate(trainer.epoch_batches(0)[:STEPS]):
        stats = trainer.train_step(indices)
        record["batches"].append(indices)
        record["losses"].append(stats["loss"])
        record["tokens"].append(stats["tokens"])
        if step == 0:  # gradients after DDP's all-reduce, before the next step clears them
            torch.save({n: p.grad.clone() for n, p in trainer.model.named_parameters()},
                       Path(out) / f"grads{rank}.pt")
    (Path(out) / f"rank{rank}.json").write_text(json.dumps(record))


@pytest.mark.slow
def test_two_gloo_processes_match_one_process_on_the_same_global_batch(tiny_config, tiny_data, tmp_path):
    from translate.training.device import make_runtime
    from translate.assembly.settings import validate_config
    from translate.assembly.trainer import build_trainer

    cfg = tiny_config(*OVERRIDES)
    assert run_two_ranks(worker, cfg, tmp_path) == [0, 0]
    records = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert records[0]["losses"] == records[1]["losses"]  # every rank reports the global loss
    for step in range(STEPS):  # the ranks read disjoint shards
        assert not set(records[0]["batches"][step]) & set(records[1]["batches"][step])

    single = build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), tmp_path / "single")
    assert single.runtime.world_size == 1
    for step in range(STEPS):
        union = records[0]["batches"][step] + records[1]["batches"][step]
        stats = single.train_step(union)
        assert stats["tokens"] == records[0]["tokens"][step]
        # Later steps' losses check the updates too (weights themselves are not compared: Adam turns the ~1e-9
        # round-off in gradients that should be 0, such as the key bias's, into lr-sized differences).
        assert stats["loss"] == pytest.approx(records[0]["losses"][step], rel=1e-5), step
        if step == 0:
            ddp_grads = torch.load(tmp_path / "grads0.pt")
            for name, p in single.model.named_parameters():
                torch.testing.assert_close(ddp_grads[name], p.grad, rtol=1e-4, atol=1e-6, msg=name)


def stopping_worker(rank: int, world: int, port: int, config_yaml: str, out: str, cause: str) -> None:
    """A rank whose trainer runs train(); after its second step, rank 1 alone gets a signal or runs out of time."""
    import signal

    from translate.training.interruption import Interrupted

    trainer = rank_trainer(rank, world, port, config_yaml, out)
    step = trainer.train_step

    def step_then_maybe_stop(indices):
        stats = step(indices)
        if rank == 1 and trainer.progress.step == 1:  # this is the second step (progress counts after it)
            if cause == "signal":
                trainer.stop.signum = signal.SIGTERM
            else:  # this rank's clock says the time budget is spent; rank 0's does not
                trainer.progress.train_seconds = 1e9
        return stats

    trainer.train_step = step_then_maybe_stop
    try:
        trainer.train()
        ended = "budget"
    except Interrupted:
        ended = "interrupted"
    (Path(out) / f"rank{rank}.json").write_text(json.dumps({"step": trainer.progress.step, "ended": ended}))


@pytest.mark.slow
@pytest.mark.parametrize("cause, ended", [("signal", "interrupted"), ("clock", "budget")])
def test_one_rank_stopping_stops_every_rank_at_the_same_step(cause, ended, tiny_config, tiny_data, tmp_path):
    """Without agreement the other rank would wait in the next step's all-reduce for ever."""
    cfg = tiny_config(*OVERRIDES, "train.max_steps=50", "train.max_minutes=1000", "train.valid_every=1000",
                      "train.save_every=1000", "train.log_every=1")
    assert run_two_ranks(stopping_worker, cfg, tmp_path, cause) == [0, 0]
    records = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    assert records == [{"step": 2, "ended": ended}] * 2
    assert (tmp_path / "rank0" / "last.pt").exists()


def test_any_over_ranks_on_one_process_is_the_flags_themselves():
    from translate.training.device import Runtime
    from translate.training.distributed import any_over_ranks

    runtime = Runtime(torch.device("cpu"), None, rank=0, world_size=1)
    assert any_over_ranks(runtime, True, False, 0, 1) == [True, False, False, True]


def test_rank_budget_names_the_key_when_too_small():
    from translate.training.device import Runtime
    from translate.training.distributed import rank_budget

    runtime = Runtime(torch.device("cpu"), None, rank=0, world_size=4)
    assert rank_budget(6000, runtime, "train.max_tokens") == 1500
    with pytest.raises(ValueError, match="train.max_sentences=3 split over 4 processes"):
        rank_budget(3, runtime, "train.max_sentences")


def test_the_batch_plan_gives_each_rank_its_share_once_for_batches_and_shapes(tiny_data):
    from dataclasses import replace

    from translate.training.batch_plan import BatchPlan
    from translate.training.device import Runtime

    train = replace(typed_train(), pad_shapes=True)
    lengths = tiny_data.splits["train"].lengths()
    ranks = [BatchPlan.of(train, Runtime(torch.device("cpu"), None, rank=r, world_size=2), lengths, seed=1)
             for r in (0, 1)]
    single = BatchPlan.of(train, Runtime(torch.device("cpu"), None), lengths, seed=1)
    plan = ranks[0]
    assert (plan.max_tokens, plan.max_sentences) == (train.max_tokens // 2, train.max_sentences // 2)
    assert (plan.shapes.max_tokens, plan.shapes.max_sentences) == (plan.max_tokens, plan.max_sentences)
    assert single.shapes.max_tokens == train.max_tokens
    first, second = ranks[0].epoch(0), ranks[1].epoch(0)
    assert len(first) == len(second) and not {i for b in first for i in b} & {i for b in second for i in b}
    assert ranks[0].epoch(0) == first and ranks[0].epoch(1) != first  # fixed by seed and epoch, new each epoch
    assert max(len(b) for b in first) <= plan.max_sentences


def typed_train():
    from conftest import TINY_RUN, make_config
    from translate.assembly.settings import validate_config

    return validate_config(make_config(*TINY_RUN)).train


def test_a_callback_without_the_three_methods_is_refused_when_the_trainer_is_built(tiny_config, tiny_data, tmp_path):
    from translate.assembly.settings import validate_config
    from translate.assembly.trainer import build_trainer
    from translate.training.device import make_runtime

    class OnlyValidates:
        def on_validate(self, step: int) -> None:
            pass

    with pytest.raises(TypeError, match="needs on_start, on_validate and on_end"):
        build_trainer(validate_config(tiny_config()), tiny_data, make_runtime("cpu", "fp32"), tmp_path,
                      [lambda translator, writer: OnlyValidates()], writer=False)
