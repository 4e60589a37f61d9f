"""The console while training: a progress line with the planned steps, loss, speed and ETA when the output is not a
terminal; the planned total follows the time budget when there is one."""
from __future__ import annotations

import io
import logging

from translate.training.console import ConsoleProgress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_log_gets_a_progress_line_with_the_plan_and_an_eta(monkeypatch, caplog):
    clock = Clock()
    monkeypatch.setattr("translate.training.console.time.perf_counter", clock)
    progress = ConsoleProgress(0, 1400, None, 0.0, stream=io.StringIO())
    assert progress.bar is None  # not a terminal
    clock.now += 100
    progress.advance(250)
    with caplog.at_level(logging.INFO, logger="translate.training"):
        progress.report(4.2134, 1234.4, 1e-3)
    assert "step 250/1400 (17%) | loss 4.213 | 1,234 target tokens/s | 1.7 min, ETA 7.7 min" in caplog.text


def test_a_time_budget_plans_the_steps_it_leaves(monkeypatch):
    clock = Clock()
    monkeypatch.setattr("translate.training.console.time.perf_counter", clock)
    progress = ConsoleProgress(100, 100_000, 14.0, 120.0, stream=io.StringIO())  # resumed: 2 minutes spent before
    assert progress.planned() == 100_000  # no pace yet
    clock.now += 60
    progress.advance(130)  # 2 s a step; 14 - 3 = 11 minutes left: 330 more steps
    assert progress.planned() == 130 + 330 and progress.eta_seconds() == 660


def test_other_ranks_say_nothing(caplog):
    progress = ConsoleProgress(0, 10, None, 0.0, enabled=False, stream=io.StringIO())
    progress.advance(5)
    with caplog.at_level(logging.INFO, logger="translate.training"):
        progress.report(1.0, 1.0, 1.0)
    assert "step 5" not in caplog.text


def test_a_finished_run_names_every_test_set_and_what_to_do_next():
    from translate.cli.train import outcome_text

    metrics = {"steps": 600, "tested_step": 600, "target_tokens_per_s": 1776.4, "checkpoint": "runs/x/last.pt",
               "test_set": "test", "test_sets": {"test": {"bleu": 32.8, "chrf": 49.4, "sentences": 2884},
                                                 "multi30k": {"bleu": 7.0, "chrf": 30.1, "sentences": 1000}}}
    text = outcome_text(metrics, "runs/x")
    assert "test BLEU and chrF of the model at step 600 (600 steps trained, 1,776 target tokens/s)" in text
    assert "  test: BLEU 32.80  chrF 49.40  (2884 sentences; by length: runs/x/by_length.md)" in text
    assert "  multi30k: BLEU 7.00  chrF 30.10  (1000 sentences; by length: runs/x/by_length.multi30k.md)" in text
    assert "python -m translate.evaluate checkpoint=runs/x/last.pt 'eval.test_sets=[{name: mine" in text
    assert "tensorboard --logdir runs/x/tb" in text
