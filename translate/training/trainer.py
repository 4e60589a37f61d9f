"""The training loop: token-budget batches (BatchPlan), AdamW + inverse-sqrt warm-up, validation (Validator),
checkpoints, TensorBoard. Callbacks (TrainingCallback: on_start / on_validate / on_end) plug reports in without
touching the loop.
"""
from __future__ import annotations

import logging
import random
import signal
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Sequence

import torch
from torch.utils.tensorboard import SummaryWriter

from translate.data.batching import Batch, collate, padding_fraction
from translate.data.pipeline import PreparedData
from translate.decoding.translator import Translator
from translate.model.transformer import Transformer
from translate.io import previous_path
from translate.training.batch_plan import BatchPlan
from translate.training.callbacks import TrainingCallback
from translate.training.checkpoint import (RESUME_RECORDS, CheckpointError, check_compatible, check_records,
                                           load_checkpoint, save_checkpoint)
from translate.training import distributed
from translate.training.compilation import CompiledSteps
from translate.training.console import ConsoleProgress
from translate.training.config import TrainConfig
from translate.training.device import Runtime
from translate.training.interruption import Interrupted, StepAbandoned, StopRequests
from translate.training.loss import ChunkedProjectionLoss, logits_then_loss, sequence_loss
from translate.training.progress import Progress, budget_spent, plateaued
from translate.training.schedule import inverse_sqrt_schedule
from translate.training.validator import Validator

log = logging.getLogger(__name__)


@dataclass
class StepRecord:
    """One step's numbers, left on the device until the trainer settles them (at log, validation and save steps):
    reading them every step would make the host wait for the device every step."""

    loss: "torch.Tensor | float"        # summed over the batch's target tokens
    nll: "torch.Tensor | float"
    grad_norm: "torch.Tensor | float"
    finite: "torch.Tensor | bool"       # loss and gradient finite: the optimizer applied the step
    tokens: "torch.Tensor | int"        # target tokens (over all ranks)

    def __getitem__(self, key: str) -> "float | int":
        """The step's stats as settle() gives them ("loss", "nll", "grad_norm", "tokens"), read now (a sync)."""
        tokens = int(self.tokens)
        stats = {"tokens": tokens, "loss": float(self.loss) / tokens, "nll": float(self.nll) / tokens,
                 "grad_norm": float(self.grad_norm)} if key != "tokens" else {"tokens": tokens}
        return stats[key]


class TrainingDiverged(RuntimeError):
    """Too many consecutive steps had a non-finite loss or gradient (train.max_bad_steps)."""


def rng_state() -> dict:
    """Every random stream training draws from (dropout included), so a resumed run draws the same numbers."""
    state = {"torch": torch.get_rng_state(), "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


class Trainer:
    """Runs the loop over finished objects; translate.assembly.trainer.build_trainer makes them from a config."""

    def __init__(self, model: Transformer, data: PreparedData, train: TrainConfig, runtime: Runtime, run_dir: Path, *,
                 plan: BatchPlan, validator: Validator, writer: Optional[SummaryWriter], config_record: dict,
                 callbacks: Sequence[TrainingCallback] = (), train_model: Optional[torch.nn.Module] = None,
                 compiled: Optional[CompiledSteps] = None) -> None:
        """model: on the runtime's device; data: the tokenizer and the train split the plan's batches index;
        train_model: what training steps run through (model, or its DDP wrapper); config_record: the whole resolved
        config, saved in checkpoints and compared on resume; compiled: the compiled steps (train.compile)."""
        self.model, self.train_cfg, self.runtime, self.run_dir = model, train, runtime, Path(run_dir)
        self.plan, self.validator, self.writer, self.config_record = plan, validator, writer, config_record
        self.callbacks, self.compiled = list(callbacks), compiled
        self.tokenizer = data.tokenizer
        self.train_model = model if train_model is None else train_model
        self.train_src, self.train_tgt = data.splits["train"].src, data.splits["train"].tgt
        self.train_lens, self.shapes = plan.lengths, plan.shapes
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=train.lr, betas=tuple(train.betas),
                                           weight_decay=train.weight_decay, fused=runtime.fused_adamw or None)
        self.scheduler = inverse_sqrt_schedule(self.optimizer, train.warmup_steps)
        self.projected_loss = ChunkedProjectionLoss(runtime.autocast_dtype) if runtime.cpu_bf16 else logits_then_loss
        self.progress = Progress()
        self.bad_steps_in_a_row = 0
        self.pending: list[StepRecord] = []   # steps not yet settled (see StepRecord)
        self.prefetched: Optional[tuple[list[int], Batch]] = None
        self.stop = StopRequests()

    @property
    def translator(self) -> Translator:
        return self.validator.translator

    # -- checkpoints -----------------------------------------------------------------------------------------------
    def state(self) -> dict:
        return {
            "config": self.config_record,
            "tokenizer": self.tokenizer.model_proto,
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            "progress": asdict(self.progress),
            "rng": rng_state(),
        }

    def save(self, name: str) -> Path:
        """Write a checkpoint atomically: the one it replaces stays whole until the new one is complete. A run keeps
        best.pt and last.pt; a <name>.prev.pt that an older run kept beside it is removed once the new one is saved."""
        path = self.run_dir / name
        if self.runtime.is_main:
            save_checkpoint(path, self.state())
            previous_path(path).unlink(missing_ok=True)
            if self.writer:  # TensorBoard then holds every step the checkpoint covers
                self.writer.flush()
        return path

    def resume(self, path: Path, state: Optional[dict] = None) -> None:
        """Continue from a checkpoint: weights, optimizer, scheduler, progress (data position) and RNG states."""
        state = load_checkpoint(path, RESUME_RECORDS) if state is None else state
        check_records(state, RESUME_RECORDS, path)
        check_compatible(state["config"], self.config_record, path)
        if not self.tokenizer.tokenizes_like(state["tokenizer"]):
            raise CheckpointError(f"checkpoint {path} was trained with another SentencePiece model (data settings "
                                  f"changed); start a new run folder")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.progress = Progress(**state["progress"])
        set_rng_state(state["rng"])
        log.info("resumed from %s at step %d", path, self.progress.step)

    # -- data order ------------------------------------------------------------------------------------------------
    def epoch_batches(self, epoch: int) -> list[list[int]]:
        """This rank's batches of `epoch` (BatchPlan.epoch)."""
        return self.plan.epoch(epoch)

    # -- one step --------------------------------------------------------------------------------------------------
    def load_batch(self, indices: list[int]) -> Batch:
        """The batch on the device: the one prefetched for these indices, else collated now."""
        if self.prefetched is not None and self.prefetched[0] is indices:
            batch, self.prefetched = self.prefetched[1], None
            return batch
        tok = self.tokenizer
        batch = collate(self.train_src, self.train_tgt, indices, tok.pad_id, tok.bos_id, tok.eos_id, self.shapes)
        return batch.to(self.runtime.device, non_blocking=self.runtime.non_blocking)

    def prefetch(self, indices: list[int]) -> None:
        """Collate the next batch and start its copy while the device still works on this step's kernels."""
        self.prefetched = (indices, self.load_batch(indices))

    def forward_backward(self, module: torch.nn.Module, batch: Batch) -> tuple:
        """Loss and backward through `module` (compiled or not); returns the summed loss, NLL and tokens."""
        with self.stop.abortable(), self.runtime.autocast():
            hidden = module(batch.src, batch.tgt_in)
            result = sequence_loss(self.model, hidden, batch.tgt_out, self.tokenizer.pad_id,
                                   self.train_cfg.label_smoothing, batch.target_positions, self.projected_loss)
        tokens = result.tokens
        if self.runtime.world_size > 1:  # one all-reduce: the global batch's tokens scale the loss
            loss_sum, nll_sum, tokens = distributed.sum_on_device(self.runtime, result.loss.detach(), result.nll,
                                                                  result.tokens)
        else:
            loss_sum, nll_sum = result.loss.detach(), result.nll
        self.optimizer.zero_grad(set_to_none=True)
        with self.stop.abortable():
            # Divided by the global batch's tokens; DDP then averages over the N ranks, hence the factor N.
            (result.loss * (self.runtime.world_size / tokens)).backward()
        return loss_sum, nll_sum, tokens

    def train_step(self, indices: list[int]) -> StepRecord:
        """One optimizer step, queued without waiting for the device: a non-finite loss or gradient makes the fused
        AdamW skip the update on the device (its found_inf), and the trainer learns of it when it settles."""
        batch = self.load_batch(indices)
        self.train_model.train()
        if self.compiled is not None:
            loss_sum, nll_sum, tokens = self.compiled.run(lambda module: self.forward_backward(module, batch))
        else:
            loss_sum, nll_sum, tokens = self.forward_backward(self.train_model, batch)
        clip = self.train_cfg.clip_norm
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), clip if clip else float("inf"))
        finite = torch.isfinite(loss_sum) & torch.isfinite(grad_norm)
        if self.runtime.fused_adamw:
            self.optimizer.found_inf = (~finite).float()
            self.optimizer.step()
        elif bool(finite):  # no fused AdamW (MPS): the host decides
            self.optimizer.step()
        self.scheduler.step()
        return StepRecord(loss_sum, nll_sum, grad_norm, finite, tokens)

    def settle(self) -> Optional[dict]:
        """Read the pending steps' numbers (one device-to-host copy): undo the step count, schedule and tokens of the
        skipped ones, stop after train.max_bad_steps in a row. Returns the last settled step's stats, or None."""
        if not self.pending:
            return None
        pending, self.pending = self.pending, []
        device = pending[0].loss.device
        on_device = torch.stack([torch.stack([r.finite.double(), r.loss.double(), r.nll.double(), r.grad_norm.double(),
                                              torch.as_tensor(r.tokens, device=device).double()]) for r in pending])
        stats = None
        for i, (finite, loss, nll, grad_norm, tokens) in enumerate(on_device.tolist()):  # (steps, 5): the one sync
            if finite:
                self.bad_steps_in_a_row = 0
                self.progress.target_tokens += int(tokens)
                stats = {"loss": loss / tokens, "nll": nll / tokens, "tokens": int(tokens), "grad_norm": grad_norm}
                continue
            self.progress.step -= 1
            self.progress.skipped_steps += 1
            self.scheduler.last_epoch -= 1
            log.warning("step %d: non-finite loss or gradient, step skipped (%d so far)", self.progress.step,
                        self.progress.skipped_steps)
            if self.bad_steps_in_a_row + 1 >= self.train_cfg.max_bad_steps:
                self.progress.step -= len(pending) - 1 - i  # the steps after it are not counted either
            self.count_bad_step()
        for group, lr_lambda, base in zip(self.optimizer.param_groups, self.scheduler.lr_lambdas,
                                          self.scheduler.base_lrs):
            group["lr"] = base * lr_lambda(self.scheduler.last_epoch)
        self.scheduler._last_lr = [group["lr"] for group in self.optimizer.param_groups]
        if self.compiled is not None:
            self.progress.compile_seconds, self.progress.compiled_graphs = self.compiled.seconds, self.compiled.graphs
        return stats

    # -- validation ------------------------------------------------------------------------------------------------
    def validate(self) -> dict:
        """Score the model on the valid split; best.pt when its valid BLEU is the best so far; callbacks."""
        started = time.perf_counter()
        metrics = self.validator.scores(self.progress.step)
        if self.validator.record(self.progress, metrics):
            self.save("best.pt")
        for callback in self.callbacks:
            callback.on_validate(self.progress.step)
        self.progress.valid_seconds += time.perf_counter() - started
        return metrics

    # -- the loop --------------------------------------------------------------------------------------------------
    def out_of_budget(self) -> bool:
        return budget_spent(self.train_cfg, self.progress) is not None

    def plateaued(self) -> bool:
        """train.early_stop_patience validations in a row without a better valid BLEU (null: never)."""
        return plateaued(self.train_cfg, self.progress)

    def agreed_stop(self) -> tuple[bool, bool]:
        """(out of budget, stop asked by a signal), the same on every rank. Each rank has its own clock and gets its
        own signal; were one to stop alone, the others would wait for it in the next all-reduce for ever."""
        out_of_budget, stop_asked = distributed.any_over_ranks(self.runtime, self.out_of_budget(), self.stop.requested)
        return out_of_budget, stop_asked

    def log_step(self, stats: dict, tokens: int, seconds: float) -> None:
        step = self.progress.step
        if self.writer:
            self.writer.add_scalar("train/loss", stats["loss"], step)
            self.writer.add_scalar("train/lr", self.scheduler.get_last_lr()[0], step)
            self.writer.add_scalar("train/grad_norm", stats["grad_norm"], step)
            self.writer.add_scalar("train/target_tokens_per_s", tokens / max(seconds, 1e-9), step)
            self.writer.add_scalar("train/skipped_steps", self.progress.skipped_steps, step)
            if self.compiled is not None:
                self.writer.add_scalar("train/compile_seconds", self.progress.compile_seconds, step)
                self.writer.add_scalar("train/compiled_graphs", self.progress.compiled_graphs, step)

    def count_bad_step(self) -> None:
        """After a skipped (non-finite) step: stop once train.max_bad_steps of them come in a row."""
        self.bad_steps_in_a_row += 1
        limit = self.train_cfg.max_bad_steps
        if self.bad_steps_in_a_row >= limit:
            t = self.train_cfg
            raise TrainingDiverged(
                f"training stopped after step {self.progress.step}: the {self.bad_steps_in_a_row} steps after it "
                f"all had a non-finite loss or gradient (train.max_bad_steps={limit}; {self.progress.skipped_steps} "
                f"skipped in all). Likely causes: a learning rate too high (train.lr={t.lr}, train.warmup_steps="
                f"{t.warmup_steps}), overflow in reduced precision (train.precision={t.precision}; try fp32), no "
                f"gradient clipping (train.clip_norm={t.clip_norm}). Skipped steps never change the weights, so "
                f"last.pt stays usable.")

    def train(self) -> None:
        """Train until a budget runs out. Raises Interrupted after saving when SIGINT / SIGTERM arrives."""
        with self.stop:
            self._train()

    def _train(self) -> None:
        t = self.train_cfg
        for callback in self.callbacks:
            callback.on_start(self.progress.step)
        pad = padding_fraction(self.epoch_batches(self.progress.epoch), self.train_lens[1])
        log.info("model: %d parameters; target padding %.1f%% of batch tokens",
                 sum(p.numel() for p in self.model.parameters()), 100 * pad)
        bar = ConsoleProgress(self.progress.step, t.max_steps, t.max_minutes,
                              self.progress.train_seconds + self.progress.valid_seconds, self.runtime.is_main)
        window_tokens, window_start = 0, time.perf_counter()
        batches, stop_asked = None, False
        while True:
            out_of_budget, stop_asked = self.agreed_stop()
            if stop_asked or (out_of_budget and not self.pending):
                break
            if out_of_budget:  # counted optimistically: settle, then look again
                window_tokens += self.settle_timed()[1]
                continue
            if batches is None:
                batches = self.epoch_batches(self.progress.epoch)
            if self.progress.batch_in_epoch >= len(batches):  # epoch done: the next one, in a new order
                self.progress.epoch += 1
                self.progress.batch_in_epoch = 0
                batches = None
                continue
            started, before = time.perf_counter(), rng_state()
            upcoming = batches[self.progress.batch_in_epoch + 1] if self.progress.batch_in_epoch + 1 < len(batches) \
                else None
            try:
                self.pending.append(self.train_step(batches[self.progress.batch_in_epoch]))
                if upcoming is not None:  # collated and copied while the device still runs this step
                    self.prefetch(upcoming)
            except StepAbandoned:  # a stop signal's grace ran out inside the step: it never happened
                self.optimizer.zero_grad(set_to_none=True)
                set_rng_state(before)
                stop_asked = True
                break
            finally:
                self.progress.train_seconds += time.perf_counter() - started
            self.progress.batch_in_epoch += 1
            self.progress.step += 1  # optimistically: settle() takes back the skipped ones
            bar.advance(self.progress.step)
            if not any(self.progress.step % every == 0 for every in (t.log_every, t.valid_every, t.save_every)):
                continue
            step = self.progress.step
            stats, tokens = self.settle_timed()
            window_tokens += tokens
            if self.progress.step != step:  # steps were skipped: no longer at this multiple
                bar.advance(self.progress.step)
                continue
            if self.progress.step % t.log_every == 0:
                elapsed = time.perf_counter() - window_start
                self.log_step(stats, window_tokens, elapsed)
                bar.report(stats["loss"], window_tokens / max(elapsed, 1e-9), self.scheduler.get_last_lr()[0])
                window_tokens, window_start = 0, time.perf_counter()
            if self.progress.step % t.valid_every == 0:
                self.validate()
                window_start = time.perf_counter()
            if self.progress.step % t.save_every == 0 and not self.out_of_budget():  # the end saves it below
                self.save("last.pt")
        self.settle_timed()
        if stop_asked:
            bar.close()
            raise Interrupted(self.stop.signum or signal.SIGTERM, self.progress.step,
                              self.save("last.pt"))
        bar.close()
        log.info("training stopped: %s", budget_spent(t, self.progress) or "the stop was asked")
        if self.progress.step % t.valid_every:
            self.validate()
        self.save("last.pt")
        for callback in self.callbacks:
            callback.on_end(self.progress.step)
        if self.writer:
            self.writer.flush()

    def settle_timed(self) -> tuple[Optional[dict], int]:
        """settle(), its wait for the device counted as training time; also the settled steps' target tokens."""
        started, tokens = time.perf_counter(), self.progress.target_tokens
        stats = self.settle()
        self.progress.train_seconds += time.perf_counter() - started
        return stats, self.progress.target_tokens - tokens

    def summary(self) -> dict:
        """What metrics.json says of the training: device, steps, minutes, speed, size."""
        return {"device": self.runtime.describe(),
                "steps": self.progress.step, "train_minutes": round(self.progress.train_seconds / 60, 2),
                "target_tokens_per_s": round(self.tokens_per_second(), 1),
                "parameters": sum(p.numel() for p in self.model.parameters()),
                "stopped_early": self.plateaued(), "best_valid_bleu": round(self.progress.best_bleu, 2),
                "best_valid_step": self.progress.best_step,
                "valid_curve": self.progress.valid_curve}

    def tokens_per_second(self) -> float:
        return self.progress.target_tokens / max(self.progress.train_seconds, 1e-9)
