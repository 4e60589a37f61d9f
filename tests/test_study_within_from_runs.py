"""Claim (b) read within one model from real tiny runs: sinusoidal and no-PE models trained on every length, two
seeds each, scored on `test` and `long_test`; the report pairs them by seed across both test sets and the claim is
read within them (the reading across groups has no runs here and says nothing)."""
from __future__ import annotations

import json

import pytest
from conftest import TINY_RUN, make_config

from translate.analysis.sweep import build_report
from translate.analysis.sweep.report_files import report_of_json
from translate.cli.train import run
from translate.study.verdicts.claims import no_pe_claim
from translate.study.verdicts.wording import in_group

SHORT = ("report.edges=[10,17]", "report.bootstrap_samples=50", "report.probes_per_bucket=0", "train.max_steps=8",
         "train.valid_every=1000", "decode.max_length_extra=7", "data.test_limit=200",
         "eval.test_sets=[{name: test, split: test}, {name: long_test, split: long_test}]")


@pytest.mark.slow
def test_the_within_model_reading_from_a_real_sweep(tmp_path_factory, cache_dir):
    root = tmp_path_factory.mktemp("within")
    for seed in (1, 2):
        for encoding in ("sinusoidal", "none"):
            run(make_config(*TINY_RUN, f"data.cache_dir={cache_dir}", *SHORT, f"encoding={encoding}",
                            f"seed={seed}"), root / f"{encoding}_none_all_lengths_seed{seed}")
    report = build_report(root, samples=60, hparams=False)
    rows = {r.metric: r for r in report.within}
    # τ needs two shared words a sentence: an 8-step model has too few, and a metric undefined there has no row
    assert {"bleu", "chrf", "token_accuracy", "unigram_f"} <= set(rows)
    assert all(r.interaction.delta == r.interaction.delta for r in report.within)   # never NaN
    bleu = rows["bleu"]
    assert (bleu.encoding, bleu.seeds, bleu.short_test_set, bleu.long_test_set) == ("none", 2, "test", "long_test")
    assert bleu.jobs == "none_none_all_lengths_seed1 none_none_all_lengths_seed2"
    assert bleu.interaction.per_seed == pytest.approx(
        [lg - sh for lg, sh in zip(bleu.delta_long.per_seed, bleu.delta_short.per_seed)], abs=0.02)
    assert bleu.delta_short.method.startswith("t over 2 seeds")
    verdict = no_pe_claim(report.spans, "test", report.rules, one_model=report.within)
    assert verdict.details[0].startswith("short, within one model: `test`, 1-10 words")
    assert in_group(bleu.group) in verdict.details[0] or bleu.group == ""
    assert not any(d.startswith("across groups") for d in verdict.details)   # no length groups were trained
    reread = build_report(root, samples=60, hparams=False)   # deterministic: the same rows again
    assert [r.interaction for r in reread.within] == [r.interaction for r in report.within]
    table = (root / "report" / "report.md").read_text()   # the sweep report shows them to any user
    assert "## One model on its short and its long sentences" in table and "| none | bleu | 2 |" in table
    written = report_of_json(json.loads((root / "report" / "report.json").read_text()))
    assert written.within == report.within   # report.json keeps them, as the pages read them back
