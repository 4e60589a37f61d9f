"""translate.report on fabricated sweep folders: run folders with a config.yaml, a metrics.json following the agreed
schema and a test.hyp.txt made from the real Tatoeba test references, so every expected number is known."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from omegaconf import OmegaConf
from sacrebleu.metrics import BLEU, CHRF

from translate.assembly.settings import data_settings
from conftest import make_config
from translate.data.pipeline import load_splits
from translate.analysis.sweep import build_report
from translate.cli.report import main as report_main
from translate.analysis.sweep.aggregate import Baseline
from translate.analysis.run.bleu_by_length import length_ratio
from translate.analysis.sweep.jobs import SweepError, find_jobs, group_settings
from translate.analysis.sweep.rows import ReportRow
from translate.analysis.sweep.report_files import CSV_COLUMNS
from translate.analysis.sweep.cells import devices
from translate.analysis.significance import Groups, SentenceStats, compare

EDGES = ((1, 5), (6, 10), (11, 15), (16, 20), (21, None))
SAMPLES = 200
SMALL_TEST = "data.corpus.test_size=500"  # English sentences; ~700 pairs, about 60 of 11-15 French words
ZERO_DIMS = {"_target_": "translate.ablations.zero_dims.ZeroDims", "name": "zero_dims", "from": 400}


@pytest.fixture(scope="module")
def references() -> list:
    return load_splits(data_settings(make_config("model=tiny", SMALL_TEST))).test


def bucket_name(low, high) -> str:
    return f"{low}+" if high is None else f"{low}-{high}"


def perfect(pairs) -> list[str]:
    return [p.en for p in pairs]


def broken_long(pairs) -> list[str]:
    """Right on sentences of up to 10 French words, the first three words of the reference beyond."""
    return [p.en if len(p.fr.split()) <= 10 else " ".join(p.en.split()[:3]) for p in pairs]


def fake_metrics(pairs, hyps, encoding, ablation, diagonal, bleu=None) -> dict:
    refs = [p.en for p in pairs]
    buckets = []
    for low, high in EDGES:
        idx = [i for i, p in enumerate(pairs) if low <= len(p.fr.split()) and (high is None or len(p.fr.split()) <= high)]
        score = round(BLEU().corpus_score([hyps[i] for i in idx], [[refs[i] for i in idx]]).score, 2) if idx else None
        buckets.append({"bucket": bucket_name(low, high), "low": low, "high": high, "sentences": len(idx),
                        "bleu": score, "chrf": score, "bleu_ci": [score - 1, score + 1] if idx else None,
                        "chrf_ci": [score - 2, score + 2] if idx else None,
                        "length_ratio": length_ratio([hyps[i] for i in idx], [refs[i] for i in idx]) if idx else None,
                        "diagonal_share": diagonal if idx else None, "attention_entropy": 1.0})
    whole = round(BLEU().corpus_score(hyps, [refs]).score, 2)
    return {"bleu": whole if bleu is None else bleu, "chrf": round(CHRF().corpus_score(hyps, [refs]).score, 2),
            "sentences": len(hyps), "bleu_signature": "x", "chrf_signature": "x", "split": "test",
            "corpus": "tatoeba", "encoding": encoding, "ablation": ablation, "model": "tiny", "steps": 100,
            "train_minutes": 2.5, "target_tokens_per_s": 1000.0, "parameters": 231680, "checkpoint": "best.pt",
            "by_length": {"bucketed_by": "source_words", "buckets": buckets},
            "valid_curve": [[step, round(whole * step / 100, 2), 3.1] for step in (25, 50, 75, 100)]}


def make_job(folder: Path, encoding: str, seed: int, words: tuple, hyps: list[str], pairs, diagonal: float,
             ablation: dict | None = None, bleu: float | None = None, finished: bool = True) -> Path:
    cfg = make_config("model=tiny", SMALL_TEST, f"encoding={encoding}", f"seed={seed}",
                      f"data.train_min_words={words[0]}", f"data.train_max_words={words[1]}")
    if ablation:
        cfg.ablation = ablation
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True))
    if finished:
        (folder / "test.hyp.txt").write_text("".join(h + "\n" for h in hyps))
        metrics = fake_metrics(pairs, hyps, encoding, cfg.ablation.name, diagonal, bleu)
        (folder / "metrics.json").write_text(json.dumps(metrics))
    return folder


@pytest.fixture(scope="module")
def sweep(tmp_path_factory, references) -> Path:
    """Group "1-9" words: sinusoidal (perfect, seeds 1-2, BLEU 60 and 62 in metrics), none (long sentences broken,
    seeds 1-2), sinusoidal + zero_dims (perfect, one seed). Group "11-17": sinusoidal and none both broken."""
    root = tmp_path_factory.mktemp("sweep")
    good, bad = perfect(references), broken_long(references)
    for seed, bleu in ((1, 60.0), (2, 62.0)):
        make_job(root / f"sin_s{seed}", "sinusoidal", seed, (1, 9), good, references, 0.9, bleu=bleu)
        make_job(root / f"nope_s{seed}", "none", seed, (1, 9), bad, references, 0.3)
    make_job(root / "zero_s1", "sinusoidal", 1, (1, 9), good, references, 0.8, ablation=ZERO_DIMS)
    make_job(root / "long" / "sin_s1", "sinusoidal", 1, (11, 17), bad, references, 0.7)
    make_job(root / "long" / "nope_s1", "none", 1, (11, 17), bad, references, 0.2)
    make_job(root / "killed", "none", 3, (1, 9), [], references, 0.0, finished=False)
    build_report(root, samples=SAMPLES)
    return root


def rows_of(sweep: Path) -> list[dict]:
    return json.loads((sweep / "report" / "report.json").read_text())["rows"]


def row(rows, setting: str, bucket: str) -> dict:
    """A row of report.json, as written."""
    found = [r for r in rows if r["setting"] == setting and r["bucket"] == bucket]
    assert len(found) == 1, (setting, bucket, sorted({r["setting"] for r in rows}))
    return found[0]


def typed_row(rows: list[ReportRow], setting: str, bucket: str) -> ReportRow:
    """A row of a report built in memory."""
    found = [r for r in rows if r.setting == setting and r.bucket == bucket]
    assert len(found) == 1, (setting, bucket, sorted({r.setting for r in rows}))
    return found[0]


def test_jobs_are_grouped_into_settings_by_everything_but_the_seed(sweep):
    jobs = find_jobs(sweep)
    assert [j.name for j in jobs if not j.finished] == ["killed"]
    settings = group_settings(jobs)
    assert {s.label: len(s.jobs) for s in settings} == {
        "none, train words 1-9": 2, "sinusoidal, train words 1-9": 2,
        "sinusoidal + zero_dims(from=400), train words 1-9": 1,
        "none, train words 11-17": 1, "sinusoidal, train words 11-17": 1}


def test_several_seeds_give_mean_and_std_one_seed_the_bootstrap_interval(sweep, references):
    rows = rows_of(sweep)
    two = row(rows, "sinusoidal, train words 1-9", "all")
    assert two["seeds"] == 2 and two["bleu"] == 61.0 and two["bleu_std"] == pytest.approx(math.sqrt(2), abs=0.01)
    assert (two["bleu_low"], two["bleu_high"]) == (pytest.approx(61 - math.sqrt(2), abs=0.01),
                                                   pytest.approx(61 + math.sqrt(2), abs=0.01))
    one = row(rows, "none, train words 11-17", "all")
    assert one["seeds"] == 1 and one["interval"] == "bootstrap 95%"
    assert one["bleu_low"] < one["bleu"] < one["bleu_high"]          # computed here from the hypotheses
    bucket = row(rows, "none, train words 11-17", "11-15")
    assert [bucket["bleu_low"], bucket["bleu_high"]] == [bucket["bleu"] - 1, bucket["bleu"] + 1]  # the run's own
    assert row(rows, "none, train words 1-9", "1-5")["diagonal_share"] == 0.3


def test_paired_test_is_against_the_baseline_of_the_same_training_lengths(sweep, references):
    rows = rows_of(sweep)
    refs = [p.en for p in references]
    by_hand = round(BLEU().corpus_score(broken_long(references), [refs]).score
                    - BLEU().corpus_score(perfect(references), [refs]).score, 2)
    two = row(rows, "none, train words 1-9", "all")      # seeds 1 and 2, each against sinusoidal of its seed
    assert two["delta_bleu_seeds"] == [by_hand, by_hand] and two["delta_bleu"] == by_hand
    assert "t over 2 seeds" in two["test_bleu"] and two["delta_bleu_std"] == 0.0
    assert two["delta_bleu_low"] < by_hand < two["delta_bleu_high"] < 0   # seeds agree: the normal quantile
    long_broken = row(rows, "none, train words 1-9", "11-15")
    assert long_broken["delta_bleu"] < -20 and long_broken["p_bleu"] < 0.05
    short = row(rows, "none, train words 1-9", "1-5")
    assert short["delta_bleu"] == 0 and short["p_bleu"] == 1.0     # same hypotheses there
    # its baseline is sinusoidal trained on 11-17 words, which is as broken: no difference anywhere
    same = row(rows, "none, train words 11-17", "all")
    assert same["delta_bleu"] == 0 and same["p_bleu"] == 1.0
    assert row(rows, "sinusoidal, train words 1-9", "all")["delta_bleu"] is None   # the baseline itself
    assert row(rows, "sinusoidal + zero_dims(from=400), train words 1-9", "all")["delta_bleu"] == 0


def test_files_table_and_plots_are_written(sweep):
    out = sweep / "report"
    csv_lines = (out / "report.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + 5 * (1 + 5)  # header + 5 settings x (whole split + 5 buckets)
    assert csv_lines[0].startswith("setting,pe,group,test_set,encoding,ablation,train_words")
    md = (out / "report.md").read_text()
    assert "| none, train words 1-9 | 2 |" in md and "killed" in md and "(p=" in md
    assert "![BLEU by length on test](bleu_by_length.png)" in md
    assert "![raw cross-attention diagonal share by length on test](diagonal_share_by_length.png)" in md
    assert "(learning_curves.png)" in md  # valid BLEU against step: did the models converge?
    # every Δ BLEU of report.md carries the word its rules define, and the words are explained
    by_length = md.split("## Δ BLEU against the baseline by length")[1].split("##")[0]
    cells = [c.strip(" |") for line in by_length.splitlines() if line.startswith("| none,") for c in line.split(" | ")
             if "(p" in c]
    assert cells and all(c.endswith(WORDS) for c in cells)
    assert "worse" in md and "`about the same`: two one-sided tests" in md and "`no spread: decides nothing`" in md
    for name in ("bleu_by_length.png", "diagonal_share_by_length.png", "learning_curves.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


WORDS = ("better", "worse", "about the same", "inconclusive", "too few", "one seed", "no spread: decides nothing")


@pytest.mark.parametrize("delta, holm, low90, high90, decides, word", [
    (-2.0, 0.01, -2.8, -1.2, True, "worse"),
    (+2.0, 0.01, +1.2, +2.8, True, "better"),
    (-0.2, 0.40, -0.7, +0.3, True, "about the same"),      # the 90% interval inside ±1
    (-0.2, 0.40, -1.3, +0.9, True, "inconclusive"),        # reaches past -1: not shown to be the same
    (-0.4, 0.08, -0.8, -0.1, True, "about the same"),      # raw p < 0.05 perhaps, not after Holm: the same within ±1
    (-5.0, 0.001, -6.0, -4.0, False, "too few"),           # a bucket too small decides nothing, however large
])
def test_each_delta_gets_the_word_of_the_report_rules(delta, holm, low90, high90, decides, word):
    from translate.analysis.sweep.rows import Delta
    from translate.analysis.sweep.rules import verdict_word

    assert verdict_word(Delta(delta, low90=low90, high90=high90, holm=holm), decides, margin=1.0) == word


def test_plots_cover_every_test_set_and_draw_too_small_buckets_hollow(tmp_path):
    from translate.analysis.sweep.plots import line_plot, normalised_diagonal_share, write_plots
    from translate.analysis.sweep.rows import ReportRow, Score

    def bucket(test_set, name, low, sentences, value):
        return ReportRow(setting="none", pe="none", group="", test_set=test_set, train_words="all", bucket=name, low=low, high=low + 4, sentences=sentences, decides=sentences >= 50,
                         bleu=Score(value), diagonal_share=value / 100, diagonal_share_normalised=value / 200)

    rows = [bucket(t, b, low, n, v) for t in ("test", "long_test")
            for b, low, n, v in (("1-5", 1, 900, 30.0), ("6-10", 6, 400, 25.0), ("11-15", 11, 12, 9.0))]
    written = write_plots(rows, tmp_path)
    files = [name for _, name in written]
    assert {"bleu_by_length.png", "bleu_by_length.long_test.png", "diagonal_share_normalised_by_length.png",
            "diagonal_share_by_length.long_test.png"} <= set(files)
    assert ("raw cross-attention diagonal share by length on long_test", "diagonal_share_by_length.long_test.png") \
        in written
    fig = line_plot([r for r in rows if r.test_set == "test"], normalised_diagonal_share, "normalised")
    ax = fig.axes[0]
    hollow = [line for line in ax.lines if line.get_markerfacecolor() == "white"]
    assert len(hollow) == 1 and list(hollow[0].get_xdata()) == [2]          # the 12-sentence bucket alone
    assert [t.get_text() for t in ax.get_xticklabels()][2].endswith("(n=12)\ntoo few")


def test_no_learning_curve_without_recorded_validations(tmp_path):
    from translate.analysis.sweep.plots import learning_curves

    from translate.analysis.run.metrics_json import RunMetrics

    class Job:
        seed, metrics = 1, RunMetrics.read({"bleu": 20.0})

    class Setting:
        label, jobs = "sinusoidal", [Job()]

    assert learning_curves([Setting()]) is None
    Job.metrics = RunMetrics.read({"valid_curve": [[10, 5.0, 3.0], [20, 9.0, 2.0]]})
    assert learning_curves([Setting()]) is not None


def test_hparams_sessions_are_written_for_every_finished_job(sweep):
    from tensorboard.backend.event_processing import event_multiplexer
    from tensorboard.plugins.hparams import metadata, plugin_data_pb2

    mux = event_multiplexer.EventMultiplexer()
    mux.AddRunsFromDirectory(str(sweep / "report" / "hparams"))
    mux.Reload()
    sessions = {}
    for run, tags in mux.PluginRunToTagToContent(metadata.PLUGIN_NAME).items():
        data = plugin_data_pb2.HParamsPluginData.FromString(tags[metadata.SESSION_START_INFO_TAG])
        sessions[run] = {k: v.string_value or v.number_value for k, v in data.session_start_info.hparams.items()}
    assert len(sessions) == 7
    assert sessions["long__nope_s1"]["train_words"] == "11-17" and sessions["long__nope_s1"]["encoding"] == "none"
    assert sessions["zero_s1"]["ablation.from"] == "400"  # text: the other jobs have no `from`
    scalars = mux.Scalars("sin_s2", "hparams/bleu")
    assert scalars[0].value == 62.0


def test_cli_and_errors(tmp_path, sweep, capsys):
    assert report_main([str(sweep), "--samples", "0", "--out", str(tmp_path / "r"), "--no-hparams"]) == 0
    assert (tmp_path / "r" / "report.md").exists() and not (tmp_path / "r" / "hparams").exists()
    assert report_main([str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SweepError, match="expected KEY=VALUE"):
        Baseline.parse("sinusoidal")
    empty = tmp_path / "empty"
    (empty / "job").mkdir(parents=True)
    (empty / "job" / "config.yaml").write_text("seed: 1\n")
    with pytest.raises(SweepError, match="no finished job"):
        build_report(empty)


def test_a_job_with_missing_hypotheses_is_named(tmp_path, references):
    good = perfect(references)
    make_job(tmp_path / "a", "sinusoidal", 1, (1, 9), good, references, 0.9)
    folder = make_job(tmp_path / "b", "none", 1, (1, 9), good, references, 0.9)
    (folder / "test.hyp.txt").write_text("".join(h + "\n" for h in good[:-5]))
    with pytest.raises(SweepError, match=r"b: \d+ hypotheses but test set .test."):
        build_report(tmp_path, samples=40, hparams=False)


def test_runs_without_length_report_give_whole_split_rows(tmp_path, references):
    for name, encoding in (("a", "sinusoidal"), ("b", "none")):
        folder = make_job(tmp_path / name, encoding, 1, (1, 9), perfect(references), references, 0.9)
        metrics = json.loads((folder / "metrics.json").read_text())
        del metrics["by_length"]
        (folder / "metrics.json").write_text(json.dumps(metrics))
    report = build_report(tmp_path, samples=40, hparams=False)
    assert [r.bucket for r in report.rows] == ["all", "all"]
    assert any("by_length" in note for note in report.notes)
    assert not (tmp_path / "report" / "bleu_by_length.png").exists()


def test_paired_delta_matches_sacrebleu_and_its_p_matches_its_interval(references):
    from sacrebleu.significance import PairedTest

    refs = [p.en for p in references][:300]
    base = [" ".join(r.split()[:-1]) for r in refs]         # last word dropped
    system = [r if i % 3 else r.lower() for i, r in enumerate(refs)]
    ours = compare([SentenceStats.extract(base, refs)], [SentenceStats.extract(system, refs)],
                   Groups.singletons(len(refs)), 300)  # one sentence per group: sacreBLEU's resamples
    _, theirs = PairedTest([("base", base), ("system", system)], {"bleu": BLEU(), "chrf": CHRF()}, [refs],
                           test_type="bs", n_samples=300)()
    bleu, chrf = [v for k, v in theirs.items() if k != "System"]
    assert ours["bleu"].delta == pytest.approx(bleu[1].score - bleu[0].score, abs=1e-9)
    for key in ("bleu", "chrf"):  # two-sided, from the resamples of the interval (sacreBLEU's p is one-sided)
        d = ours[key]
        assert (d.p < 0.05) == (d.low > 0 or d.high < 0) and d.p >= 2 / 301


def test_a_fabricated_26_job_sweep_is_reported(tmp_path):
    """scripts/bench_report.py's sweep (13 settings x 2 seeds), on a smaller test split: every setting gets its
    rows, the two-seed comparisons use the t-interval over seeds, and the Holm-adjusted p is never below p."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_report", Path(__file__).parents[1] / "scripts" /
                                                  "bench_report.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.fabricate(tmp_path, 26, SMALL_TEST)
    report = build_report(tmp_path, samples=50, hparams=False)
    whole = [r for r in report.rows if r.bucket == "all"]
    assert len(report.settings) == 13 and all(r.seeds == 2 for r in whole)
    compared = [r for r in whole if r.compared.bleu is not None]
    assert len(compared) == 11 and all("t over 2 seeds" in r.compared.bleu.test for r in compared)
    tested = [r for r in report.rows if r.compared.bleu is not None and r.compared.bleu.p is not None]
    assert all(r.compared.bleu.holm >= r.compared.bleu.p for r in tested if r.decides)
    assert all(r.compared.bleu.holm is None for r in tested if not r.decides)  # too few to decide: no family
    assert all(r.compared.interaction_bleu is not None for r in compared)


def test_jobs_tested_at_different_steps_are_not_compared(tmp_path, references):
    """Every job of a comparison is scored at the same step: a system tested at another step than its baseline gets
    no Δ, and the report says why; recorded steps (tested_step) and old runs' best.pt steps both count."""
    base = make_job(tmp_path / "sin", "sinusoidal", 1, (1, 9), perfect(references), references, 0.9)
    late = make_job(tmp_path / "nope", "none", 1, (1, 9), broken_long(references), references, 0.3)
    metrics = json.loads((late / "metrics.json").read_text())
    (late / "metrics.json").write_text(json.dumps(dict(metrics, tested_step=60)))
    report = build_report(tmp_path, samples=40, hparams=False)
    nope = typed_row(report.rows, "none", "all")
    assert nope.compared.bleu is None and nope.tested_step == "60"
    assert any("tested at step 60 and its baseline sin at step 100: not compared" in n for n in report.notes)
    assert not [s for s in report.spans if s.compared is not None]
    (late / "metrics.json").write_text(json.dumps(dict(metrics, tested_step=100)))
    again = build_report(tmp_path, samples=40, hparams=False)
    assert typed_row(again.rows, "none", "all").compared.bleu.delta < 0 and not again.notes
    assert json.loads((base / "metrics.json").read_text())["checkpoint"] == "best.pt"  # step of the best valid BLEU


def test_every_row_and_span_says_whether_its_models_were_still_learning(sweep):
    """The fabricated learning curves climb in a straight line to the tested step: every setting is still rising in
    every seed, at the slope the line has, and each claim span says so for both models."""
    data = json.loads((sweep / "report" / "report.json").read_text())
    whole = row(data["rows"], "sinusoidal, train words 1-9", "all")
    reached = [json.loads((sweep / f"sin_s{seed}" / "metrics.json").read_text())["valid_curve"][-1][1]
               for seed in (1, 2)]   # valid BLEU at step 100, climbed to from 0 at step 0
    assert whole["valid_slope"] == pytest.approx(sum(b * 1000 / 100 for b in reached) / 2, abs=0.5)
    assert (whole["rising_seeds"], whole["trend_seeds"]) == (2, 2)
    compared = [s for s in data["spans"] if s.get("delta_bleu") is not None]
    assert compared and all(s["rising_seeds"] == s["trend_seeds"] == s["seeds"] for s in compared)
    assert all(s["baseline_rising_seeds"] == s["baseline_trend_seeds"] for s in compared)
    assert "valid_slope" in (sweep / "report" / "report.csv").read_text().splitlines()[0].split(",")


def test_buckets_are_placed_against_the_training_lengths_on_both_sides(sweep):
    """The 11-17 group's 1-9 bucket is shorter than anything it trained on, not "beyond" it (extrapolation is the
    longer side); a bucket too small to decide shows Δ and its interval but no p."""
    from translate.analysis.sweep.cells import LENGTH_LABELS, comparison_cell
    rows = [ReportRow.read(r) for r in rows_of(sweep)]
    long_group = {r.bucket: r for r in rows if r.setting == "none, train words 11-17" and r.test_set == "test"}
    assert (long_group["1-5"].lengths, long_group["11-15"].lengths, long_group["16-20"].lengths,
            long_group["21+"].lengths) == ("shorter", "trained", "partly", "beyond")
    assert LENGTH_LABELS["shorter"] == "shorter than training"
    short_group = {r.bucket: r for r in rows if r.setting == "none, train words 1-9" and r.test_set == "test"}
    assert short_group["11-15"].lengths == "beyond" and short_group["1-5"].lengths == "trained"
    few = [r for r in rows if r.compared.bleu is not None and r.decides is False]
    assert few and all("p" not in comparison_cell(r.compared.bleu, r.decides) for r in few)
    decided = [r for r in rows if r.compared.bleu is not None and r.decides]
    assert decided and all("(p" in comparison_cell(r.compared.bleu, r.decides) for r in decided)


def test_a_comparison_never_mixes_devices_and_its_rows_name_the_device(tmp_path, references):
    """metrics.json names what trained the model; jobs trained on two devices are refused, naming both; runs from
    before the record give their config's device; a test-time control (no steps) is not a trained job."""
    base = make_job(tmp_path / "sin", "sinusoidal", 1, (1, 9), perfect(references), references, 0.9)
    other = make_job(tmp_path / "nope", "none", 1, (1, 9), broken_long(references), references, 0.3)
    assert {job.device for job in find_jobs(tmp_path)} == {"CPU, fp32"}   # no record: the config's device
    metrics = json.loads((other / "metrics.json").read_text())
    (other / "metrics.json").write_text(json.dumps(dict(metrics, device="CPU, bf16")))  # nor precisions
    with pytest.raises(SweepError, match=r"different devices \(CPU, bf16: 1 job\(s\), e\.g\. nope; "
                                         r"CPU, fp32: 1 job\(s\), e\.g\. sin\).*never mixes devices"):
        find_jobs(tmp_path)
    (other / "metrics.json").write_text(json.dumps(dict(metrics, device="NVIDIA H200, fp32")))
    with pytest.raises(SweepError, match=r"different devices \(.*CPU, fp32: 1 job\(s\), e\.g\. sin.*"
                                         r"NVIDIA H200, fp32: 1 job\(s\), e\.g\. nope.*never mixes devices"):
        find_jobs(tmp_path)
    for path in (base, other):
        written = json.loads((path / "metrics.json").read_text())
        (path / "metrics.json").write_text(json.dumps(dict(written, device="NVIDIA H200, fp32")))
    control = make_job(tmp_path / "sin_at_test", "sinusoidal", 1, (1, 9), perfect(references), references, 0.9,
                       ablation=ZERO_DIMS)
    (control / "metrics.json").write_text(json.dumps({k: v for k, v in metrics.items() if k != "steps"}))
    assert {job.name: job.device for job in find_jobs(tmp_path)}["sin_at_test"] == "CPU, fp32"   # evaluated, not trained
    report = build_report(tmp_path, samples=40, hparams=False)
    assert typed_row(report.rows, "none", "all").device == "NVIDIA H200, fp32"
    assert devices([r for r in report.rows if r.bucket == "all"]) == "NVIDIA H200, fp32"
    assert "device" in CSV_COLUMNS and devices([]) == "a device not named"
