"""Validation: the valid split's loss and perplexity, the translator's valid BLEU and chrF, logged and written to
TensorBoard, and the record of the best valid BLEU (the learning curve, best.pt, train.early_stop_patience)."""
from __future__ import annotations

import logging
import math
from typing import Optional

import torch
from torch.utils.tensorboard import SummaryWriter

from translate.data.batching import collate, make_batches
from translate.data.pipeline import TokenizedSplit
from translate.decoding.translator import Translator
from translate.model.transformer import Transformer
from translate.scoring.splits import score_split
from translate.training.config import TrainConfig
from translate.training.device import Runtime
from translate.training.loss import sequence_loss
from translate.training.progress import Progress

log = logging.getLogger("translate.training.trainer")  # a run's log keeps naming its validation lines so


class Validator:
    def __init__(self, model: Transformer, split: TokenizedSplit, translator: Translator, train: TrainConfig,
                 runtime: Runtime, writer: Optional[SummaryWriter] = None) -> None:
        """split: the valid split; train: its batch budget (max_tokens), valid_bleu_limit and samples."""
        self.model, self.split, self.translator, self.train_cfg = model, split, translator, train
        self.runtime, self.writer = runtime, writer

    @torch.no_grad()
    def loss(self) -> dict:
        """{"loss": mean NLL per target token, "ppl"} over the whole split, without label smoothing."""
        split, tok = self.split, self.translator.tokenizer
        self.model.eval()
        total_nll, total_tokens = 0.0, 0
        src_lens, tgt_lens = split.lengths()
        for indices in make_batches(src_lens, tgt_lens, self.train_cfg.max_tokens, seed=0, shuffle=False):
            batch = collate(split.src, split.tgt, indices, tok.pad_id, tok.bos_id, tok.eos_id).to(self.runtime.device)
            with self.runtime.autocast():
                hidden = self.model(batch.src, batch.tgt_in)
                result = sequence_loss(self.model, hidden, batch.tgt_out, tok.pad_id, 0.0)
            total_nll += float(result.nll)
            total_tokens += result.tokens
        nll = total_nll / max(total_tokens, 1)
        return {"loss": nll, "ppl": math.exp(min(nll, 50))}

    def scores(self, step: int) -> dict:
        """Loss, perplexity, BLEU and chrF at `step` (BLEU of the first train.valid_bleu_limit sentences), logged."""
        metrics = self.loss()
        scores, hyps = score_split(self.translator, self.split, self.train_cfg.valid_bleu_limit)
        metrics.update(bleu=scores["bleu"], chrf=scores["chrf"])
        if self.writer:
            for key, value in metrics.items():
                self.writer.add_scalar(f"valid/{key}", value, step)
            pairs = self.split.pairs
            samples = "\n\n".join(f"**fr**: {pairs[i].fr}  \n**ref**: {pairs[i].en}  \n**hyp**: {hyps[i]}"
                                  for i in range(min(self.train_cfg.samples, len(hyps))))
            self.writer.add_text("valid/samples", samples, step)
        log.info("step %d valid: loss %.3f ppl %.2f BLEU %.2f chrF %.2f", step, metrics["loss"], metrics["ppl"],
                 metrics["bleu"], metrics["chrf"])
        return metrics

    @staticmethod
    def record(progress: Progress, metrics: dict) -> bool:
        """Add the validation at progress.step to the learning curve and the count since the best; True when its
        valid BLEU is the best so far (then best.pt is due)."""
        step = progress.step
        progress.valid_curve.append([step, round(metrics["bleu"], 2), round(metrics["loss"], 4)])
        progress.validations_since_best += 1
        if not metrics["bleu"] > progress.best_bleu:  # a NaN BLEU is no improvement either
            return False
        progress.best_bleu, progress.best_step, progress.validations_since_best = metrics["bleu"], step, 0
        return True
