"""A comparison is read at the seed count its sweep planned: the plan comes from the committed sweep file that
launched the jobs, and a verdict with fewer paired seeds than planned is pending (its interim figures shown, no
verdict word, no star), so a sequential design is never stopped at the first look that passes."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from translate.study.verdicts.claims import no_pe_claim, zero_dims_claim
from translate.study.verdicts.controls import CONTROLS, check_control
from translate.analysis.sweep.jobs import SweepError, find_jobs
from translate.analysis.sweep.plan import planned_but_missing, planned_seeds, sweep_plan
from translate.analysis.sweep.rules import pending

from test_study_claims import RULES, span, two_groups, zero_dims


def write_conf(conf: Path) -> None:
    (conf / "sweep").mkdir(parents=True)
    (conf / "sweep" / "short.yaml").write_text(
        "# @package _global_\nhydra:\n  sweeper:\n    params:\n      seed: 1,2,3\n"
        "      +sweep/pe: sinusoidal,sinusoidal_zero_dims\n      encoding: glob(*)\n")
    (conf / "sweep" / "longer.yaml").write_text(
        "# @package _global_\ndefaults:\n  - short\n  - override /model: base_cpu\n  - _self_\n"
        "hydra:\n  sweeper:\n    params:\n      seed: range(1,12)\n")


def job_folder(root: Path, name: str, *overrides: str) -> Path:
    folder = root / name
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    return folder


def test_the_plan_follows_the_sweep_files_it_extends(tmp_path):
    write_conf(tmp_path)
    short, longer = sweep_plan("short", str(tmp_path)), sweep_plan("longer", str(tmp_path))
    assert short.seeds == 3 and longer.seeds == 11   # its own seed list wins over the one it extends
    assert longer.options == {"+sweep/pe": ("sinusoidal", "sinusoidal_zero_dims")}   # glob(*): any encoding
    assert sweep_plan("no_such_sweep", str(tmp_path)).seeds is None


def test_a_job_outside_its_sweeps_plan_has_no_planned_seeds(tmp_path):
    write_conf(tmp_path)
    conf = str(tmp_path)
    planned = job_folder(tmp_path / "runs", "a", "seed=4", "+sweep/pe=sinusoidal_zero_dims", "+sweep=[longer]")
    extra = job_folder(tmp_path / "runs", "b", "seed=1", "+sweep/pe=sinusoidal_zero_low_dims", "+sweep=[longer]")
    alone = job_folder(tmp_path / "runs", "c", "seed=1", "encoding=rope")
    assert planned_seeds(planned, conf) == 11
    assert planned_seeds(extra, conf) is None          # e.g. a one-seed positive control added by hand
    assert planned_seeds(alone, conf) is None          # no sweep
    assert planned_seeds(tmp_path / "runs" / "missing", conf) is None


def test_a_seed_list_the_report_cannot_count_is_refused_by_name(tmp_path):
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "odd.yaml").write_text("hydra:\n  sweeper:\n    params:\n      seed: glob(*)\n")
    with pytest.raises(SweepError, match=r"odd.yaml: hydra.sweeper.params.seed='glob\(\*\)'.*allowed: a comma"):
        sweep_plan("odd", str(tmp_path))


def test_the_committed_claim_runs_carry_their_sweeps_plan():
    """Every job of the committed claim runs is planned at the seed count of the sweep its folder is named after
    (conf/sweep/claim_a_cpu.yaml: 11, claim_b_within_cpu.yaml: 8; the jobs at the top: claims_cpu.yaml, 3), the
    test-time controls like the sinusoidal model they score, claim (a)'s one-seed positive control at none."""
    runs = Path(__file__).resolve().parents[1] / "docs" / "results" / "runs" / "claims_cpu"
    folders = set()
    for job in find_jobs(runs):
        folder = job.path.parent.name
        folders.add(folder)
        planned = sweep_plan(folder).seeds
        if job.settings.ablation == "zero_low_dims":
            planned = None
        assert job.planned_seeds == planned, job.name
    assert {"claims_cpu", "claim_a_cpu", "claim_b_within_cpu"} <= folders
    assert sweep_plan("claim_b_within_cpu").seeds == 8 and sweep_plan("claim_a_cpu").seeds == 11


def with_seeds(row, paired: int, planned):
    """`row` as if `paired` seeds were paired against the baseline, of `planned` planned."""
    bleu = dataclasses.replace(row.compared.bleu, seeds=[row.compared.bleu.delta] * paired)
    return dataclasses.replace(row, seeds=paired, planned_seeds=planned,
                               compared=dataclasses.replace(row.compared, bleu=bleu))


def test_a_claim_with_fewer_paired_seeds_than_planned_is_pending_and_decides_at_the_plan():
    tight = zero_dims(0.1, 0.3)                        # about the same, as a verdict
    early = zero_dims_claim([with_seeds(tight, 9, 11)], "test", RULES)
    assert pending(with_seeds(tight, 9, 11)) == "pending: 9 of 11 planned seeds"
    assert early.status == "pending: 9 of 11 planned seeds"
    line = early.details[0]
    assert "+0.10 [" in line and "90% [" in line       # the interim figures are shown
    assert "about the same" not in line and "inconclusive" not in line and "interim look" in line
    assert early.family == ""                          # no test in the family: no star
    assert zero_dims_claim([with_seeds(tight, 11, 11)], "test", RULES).halves[0].word == "holds"
    assert zero_dims_claim([with_seeds(tight, 9, None)], "test", RULES).halves[0].word == "holds"   # no plan recorded
    wrong = zero_dims_claim([with_seeds(zero_dims(-3.0, 0.4), 9, 11)], "test", RULES)
    assert wrong.status.startswith("pending") and "*" not in wrong.details[0]


def test_claim_b_and_a_control_wait_for_their_planned_seeds_too():
    short, long, decoy = two_groups()
    verdict = no_pe_claim([with_seeds(short, 2, 3), long, decoy], "test", RULES)
    assert verdict.status == "pending: 2 of 3 planned seeds"
    assert not any("lose more." in d and "not shown" not in d and "interim" not in d for d in verdict.details)
    control = next(c for c in CONTROLS if c.ablation == "zero_dims_at_test")
    row = with_seeds(span("at test", "train words 1-9", "sinusoidal", "zero_dims_at_test", "test", 1, 9, -1.4, 0.2),
                     9, 11)
    checked = check_control(control, [row], "test", RULES)
    assert checked.status == "pending: 9 of 11 planned seeds" and "different" not in checked.details[0]


def test_the_page_names_a_pending_claim_apart_from_those_the_data_contradict():
    from translate.study.pages.results import undecided_lines

    early = zero_dims_claim([with_seeds(zero_dims(0.1, 0.3), 9, 11)], "test", RULES)
    short, long, decoy = two_groups(long_delta=-0.1)
    lines = undecided_lines([early, no_pe_claim([short, long, decoy], "test", RULES)])
    assert lines[0].startswith("Where the data disagree or cannot decide: (b) is ") and "(a)" not in lines[0]
    assert lines[2] == ("Not decided yet: (a) is pending (short half pending: 9 of 11 planned seeds, long half not "
                        "run). A verdict is read when its sweep's planned seeds are in, not at an "
                        "earlier look.")


def test_a_page_from_a_sweep_in_progress_names_the_planned_settings_it_lacks(tmp_path):
    write_conf(tmp_path)
    runs = tmp_path / "runs"
    ran = [job_folder(runs, f"s{seed}", f"seed={seed}", "+sweep/pe=sinusoidal", "+sweep=[longer]") for seed in (1, 2)]
    assert planned_but_missing(ran, "+sweep/pe", str(tmp_path)) == ["sinusoidal_zero_dims"]
    ran.append(job_folder(runs, "z1", "seed=1", "+sweep/pe=sinusoidal_zero_dims", "+sweep=[longer]"))
    assert planned_but_missing(ran, "+sweep/pe", str(tmp_path)) == []
