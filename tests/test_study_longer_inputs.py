"""The encodings page's section on encodings for longer inputs: BLEU and length ratio beyond the training lengths,
Δ against sinusoidal PE and against RoPE, and how far randomized positions and RoPE's scalings move the length
ratio of the model they change; exploratory (one seed: no star)."""
from __future__ import annotations

from pathlib import Path

from translate.analysis.sweep.aggregate import Report
from translate.analysis.sweep.rows import Comparison, Delta, ReportRow, Score
from translate.analysis.sweep.rules import Rules
from translate.study.pages.longer_inputs import changes, longer_inputs_section, ratio_lines

RULES = Rules(samples=1000, min_bucket=50, margin=1.0)
BUCKETS = (("1-10", "trained"), ("11-17", "beyond"), ("18-30", "beyond"))


def rows(setting: str, bleu: dict, ratio: dict, delta: dict | None = None) -> list[ReportRow]:
    out = [ReportRow(setting=setting, test_set="long_test", bucket="all", seeds=1, steps=600, jobs=setting.replace(" ", "_") + "_seed1",
                     bleu=Score(20.0), compared=Comparison())]
    for bucket, lengths in BUCKETS:
        compared = Comparison(Delta(delta[bucket], delta[bucket] - 1, delta[bucket] + 1, 0.01)
                              if delta else None)
        out.append(ReportRow(setting=setting, test_set="long_test", bucket=bucket, lengths=lengths, sentences=200,
                             seeds=1, bleu=Score(bleu[bucket], bleu[bucket] - 1, bleu[bucket] + 1),
                             length_ratio=ratio[bucket], decides=True, compared=compared))
    return out


def report() -> Report:
    level = {"1-10": 40.0, "11-17": 20.0, "18-30": 8.0}
    sinusoidal = rows("sinusoidal", level, {"1-10": 1.0, "11-17": 0.86, "18-30": 0.60})
    randomized = rows("sinusoidal + randomized(max_length=256)", level, {"1-10": 1.0, "11-17": 0.90, "18-30": 0.70},
                      {"1-10": 0.1, "11-17": 1.5, "18-30": 2.0})
    rope = rows("rope", level, {"1-10": 1.0, "11-17": 0.80, "18-30": 0.57}, {"1-10": 0.0, "11-17": 1.0, "18-30": -1.2})
    yarn = rows("rope_yarn_at_test", level, {"1-10": 1.0, "11-17": 0.78, "18-30": 0.60},
                {"1-10": 0.0, "11-17": 0.5, "18-30": -0.5})
    return Report(rules=RULES, rows=sinusoidal + randomized + rope + yarn, baseline="encoding=sinusoidal,ablation=none")


def test_each_change_is_set_beside_the_model_it_changes():
    settings = ["sinusoidal", "rope", "cope", "alibi_4_heads", "sinusoidal + randomized(max_length=256)",
                "rope_yarn_at_test", "rope_ntk_at_test"]
    assert [changes(s, settings) for s in settings] == [None, None, None, None, "sinusoidal", "rope", "rope"]


def test_the_length_ratio_table_reads_beyond_the_training_lengths_only():
    lines = ratio_lines(report())
    assert lines[0] == "### Does it move the length ratio? (exploratory, one seed)"
    table = "\n".join(lines)
    assert ("| sinusoidal + randomized(max_length=256) vs sinusoidal | 0.90 vs 0.86 (+0.04) | 0.70 vs 0.60 (+0.10) | "
            "longer in 2 of 2 buckets |") in table
    assert "| rope_yarn_at_test vs rope | 0.78 vs 0.80 (-0.02) | 0.60 vs 0.57 (+0.03) | longer in 1 of 2 buckets |" \
        in table
    assert "1-10" not in table   # the trained lengths are not what a change for longer inputs is about


def test_the_section_shows_bleu_ratio_and_the_delta_against_both_baselines():
    against_rope = Report(rules=RULES, rows=[r for r in report().rows if r.setting.startswith("rope")],
                          baseline="encoding=rope,ablation=none")
    lines = longer_inputs_section(report(), against_rope, Path("docs/results/runs/length_extrapolation_longer_cpu"))
    text = "\n".join(lines)
    assert lines[0] == "## Encodings for longer inputs (one seed, exploratory)"
    assert "From `docs/results/runs/length_extrapolation_longer_cpu` (4 jobs: 4 settings, one seed each)" in text
    assert "### BLEU and length ratio by length (`long_test`)" in text and "20.00 [19.00, 21.00], ratio 0.86" in text
    assert "### Δ BLEU against encoding=sinusoidal,ablation=none (`long_test`)" in text
    assert "### Δ BLEU against encoding=rope,ablation=none (`long_test`)" in text
    assert not any(line.startswith("## ") for line in lines[1:])
