"""docs/results.md from the claims' sweeps (or one seed_repro sweep): its tables and plots, a few attention maps,
and what the numbers say about the source notes' three claims (translate.study.verdicts.claims)."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Optional, Sequence

from translate.analysis.sweep.aggregate import ALL, Baseline, Report, aggregate
from translate.analysis.sweep.logged_attention_images import cross_attention_images, pick_examples
from translate.analysis.sweep.jobs import Job, SweepError, find_jobs, group_settings
from translate.study.verdicts.claims import (GOLD_AER_MARGIN, check_claims, diagonal_claim, is_nope, is_sinusoidal,
                                             no_pe_claim)
from translate.study.verdicts.verdict import Reference, Verdict
from translate.study.verdicts.wording import thresholds
from translate.study.verdicts.controls import check_controls, other_encodings
from translate.study.pages.forest import FOREST, write_forest
from translate.study.verdicts.pilots import budget_lines
from translate.analysis.sweep.plots import LEARNING_CURVES, PLOTS
from translate.analysis.sweep.rows import ReportRow
from translate.analysis.sweep.cells import (alignment_cell, comparison_cell, devices, number, score_cell, value_range,
                                           words_cell)
from translate.analysis.sweep.tables import pivot, reading_rules, test_set_names, whole_split_table
from translate.study.pages.compute import compute_lines
from translate.study.pages.probes import probe_lines
from translate.study.pages.readme import claims_lines, update_readme
from translate.io import atomic_write, atomic_write_text
from translate.study.pages.page import fresh_assets, load_report


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def attention_section(report: Report, sweep_dir: Path, assets: Path, link: str) -> list[str]:
    """Per training group: the same probes, with sinusoidal PE and without PE, side by side."""
    lines = []
    for group in sorted({r.group for r in report.rows}):
        columns = []
        for title, which in (("sinusoidal PE", is_sinusoidal), ("no PE", is_nope)):
            row = next((r for r in report.rows if r.group == group and r.bucket == ALL and which(r)), None)
            if row:
                job = row.jobs.split()[0]
                columns.append((title, job, pick_examples(cross_attention_images(sweep_dir / job / "tb"))))
        if not columns or not any(images for _, _, images in columns):
            continue
        lines += [f"### {group or 'all jobs'}", "", "| probe | " + " | ".join(t for t, _, _ in columns) + " |",
                  "|---|" + "---|" * len(columns)]
        probes = sorted({(i.bucket, i.probe) for _, _, images in columns for i in images},
                        key=lambda bp: bp[0] != "fixed")
        for bucket, probe in probes:
            cells = []
            for _, job, images in columns:
                image = next((i for i in images if (i.bucket, i.probe) == (bucket, probe)), None)
                if image is None:
                    cells.append("–")
                    continue
                name = f"{slug(job)}_{slug(image.tag)}.png"
                atomic_write(assets / name, lambda f, data=image.png: f.write(data))
                cells.append(f"![{image.tag}]({link}/{name})")
            lines.append(f"| {bucket}/{probe} | " + " | ".join(cells) + " |")
        lines.append("")
    if not lines:
        return ["No cross-attention images in the jobs' TensorBoard logs (the length report logs them as "
                "`attention/cross/<bucket>/<probe>`).", ""]
    return ["Head-averaged cross-attention of each layer (rows: English tokens, columns: French tokens) for the "
            "source notes' running example (`fixed/0`) and a test sentence of the longest bucket, at the end of "
            "training.", ""] + lines


def seed_caveat(report: Report) -> list[str]:
    """With one seed, the intervals say how much the test sentences vary, not how much training runs do."""
    if any(r.seeds > 1 for r in report.rows if r.bucket == ALL):
        return []
    return ["One seed per setting: the intervals and p-values are over test sentences, not over training runs, so a "
            "difference of about one BLEU point may not survive another seed (add the `seeds` sweep, e.g. "
            "`'+sweep=[seed_repro_cpu,seeds]'`, for a t-interval over per-seed deltas).", ""]




def test_set_title(report: Report, name: str) -> str:
    sentences = next((r.sentences for r in report.rows if r.test_set == name and r.bucket == ALL), None)
    return f"`{name}`" + (f" ({number(sentences)} sentences)" if sentences is not None else "")


def reports_against(jobs: list[Job], report: Report) -> dict[str, Report]:
    """{encoding: the report of no PE and that encoding, Δ against it} for each encoding besides sinusoidal the
    sweep ran as is (e.g. rope, t5): (b) and (c) read against it say whether they hold for PE in general."""
    encodings = other_encodings(report.rows)
    if not encodings:
        return {}
    settings = group_settings(jobs)
    out = {}
    for encoding in encodings:
        chosen = [s for s in settings if s.settings.ablation == "none" and s.settings.encoding in (encoding, "none")]
        out[encoding] = aggregate(jobs, chosen, Baseline.parse(f"encoding={encoding},ablation=none"), report.rules)
    return out


def verdict_lines(verdicts: list[Verdict], note: str = "") -> list[str]:
    return [line for v in verdicts
            for line in [f"**{v.claim}**{note} — {v.headline}.", ""] + [f"- {d}" for d in v.details]
            + ([f"- {v.family}."] if v.family else []) + [""]]


def primary_test_set(report: Report) -> Optional[str]:
    """The test set every verdict is decided on: the report's first."""
    names = test_set_names(report)
    return names[0] if names else None


def verdicts_of(report: Report) -> list[Verdict]:
    """The three claims, decided on the primary test set (claims.check_claims)."""
    return check_claims(report.spans, report.alignment, primary_test_set(report), report.rules, report.within)


def undecided_lines(verdicts: list[Verdict]) -> list[str]:
    """The claims the data contradict or cannot decide, or whose metrics disagree, and those still waiting for their
    planned seeds."""
    def named(v: Verdict) -> str:
        return f"{v.claim.split(')')[0]}) is {v.headline}"
    lines = []
    # a decided claim whose deciding metric the metrics beside it contradict is named too (Verdict.dissent)
    disagree = [named(v) + (f" on its deciding metric, but not every metric agrees "
                            f"({'; '.join(v.dissent)})" if v.dissent else "")
                for v in verdicts if v.status in ("not supported as stated", "inconclusive") or v.dissent]
    if disagree:
        lines += ["Where the data disagree or cannot decide: " + "; ".join(disagree)
                  + ". The lines above name the spans and training groups.", ""]
    waiting = [named(v) for v in verdicts if v.status.startswith("pending")]
    if waiting:
        lines += ["Not decided yet: " + "; ".join(waiting) + ". A verdict is read when its sweep's planned seeds are "
                  "in, not at an earlier look.", ""]
    return lines


# the sections of an analysis plan (docs/preregistration.md) a results page quotes: how its runs came about, and
# every departure from the plan
DISCLOSED = ("## What is already committed, and how it came about", "## Departures")


def plan_disclosures(plan: Optional[Path]) -> list[str]:
    """The DISCLOSED sections of the analysis plan, quoted one level down, under a heading naming the plan."""
    if plan is None:
        return []
    text = Path(plan).read_text(encoding="utf-8")
    lines = ["### What the analysis plan discloses about these runs", "",
             f"Quoted from `{plan}`, the plan these verdicts follow:", ""]
    for heading in DISCLOSED:
        found = re.search(rf"^{re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
        if found is None:
            raise SweepError(f"{plan}: no section '{heading}' (a results page quotes it; expected the sections "
                             f"{', '.join(DISCLOSED)})")
        lines += ["##" + heading, "", found.group(1).strip(), ""]
    return lines


def silver_check_lines(path: Optional[Path]) -> list[str]:
    """How good the silver links are: eflomal's AER against the human gold alignment (scripts/silver_against_gold.py
    wrote `path`), overall and per length bucket; [] without the file."""
    if path is None:
        return []
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    buckets = "; ".join(f"{name} words {b['aer']:.3f} ({b['pairs']} pairs)" for name, b in data["buckets"].items())
    return [f"**The silver links themselves.** eflomal, trained as the runs train it ({data['aligner_trained_on']:,} "
            f"pairs), scores AER {data['aer']:.3f} against the human gold alignment of {data['pairs']} Hansards pairs "
            f"(Sure and Possible links): {buckets} (`{path}`, written by `python scripts/silver_against_gold.py`; "
            f"[docs/reports.md](reports.md) sets it beside the figures published for this set). An attention AER far "
            f"above it says the attention aligns poorly, not that the links are poor.", ""]


def claims_section(report: Report, against: dict[str, Report], verdicts: list[Verdict], controls: list[Verdict],
                   forest: Optional[str], link: str, plan: Optional[Path] = None,
                   silver_check: Optional[Path] = None) -> list[str]:
    """The three claims' `verdicts` (verdicts_of), each decided on the primary test set and listed on every test
    set; then the controls of (a), and (b) and (c) read against each other encoding of `against` (see
    reports_against)."""
    rules = report.rules
    primary = primary_test_set(report)
    lines = [f"Each verdict is decided on `{primary}` (the corpus's own test split; (b) reads the long group on the "
             f"reserved long test set where the runs have it) and lists the other test sets beside it. Each claim is "
             f"read as its halves, each half with one word, by the rules of the analysis plan "
             f"([docs/preregistration.md](preregistration.md)); the plan's departures and the history of these runs "
             f"are listed at the end of this section.", ""]
    if forest:
        lines += [f"![Every deciding Δ of the claims and controls with its 95% interval]({link}/{forest})", ""]
    lines += verdict_lines(verdicts) + silver_check_lines(silver_check) + verdict_lines(controls)
    for encoding, other in against.items():
        pe = Reference(encoding)
        lines += verdict_lines([no_pe_claim(other.spans, primary, rules, pe, other.within),
                                diagonal_claim(other.alignment, primary, rules, pe)],
                               f" With {encoding} as the PE")
    lines += undecided_lines(verdicts)
    lines += seed_caveat(report)
    other = " (in the lines read with another encoding as the PE, against that encoding)" if against else ""
    lines += [f"Wording rules: {thresholds(rules, GOLD_AER_MARGIN)}. Δ: against sinusoidal PE{other} trained "
              "on the same lengths with the same seed, both tested at the same step; `[lo, hi]` its 95% interval, "
              "`90%` the interval of the equivalence test.", ""]
    return lines + plan_disclosures(plan)


def scores_section(report: Report) -> list[str]:
    """Per test set: the whole set, then BLEU, Δ BLEU and alignment by length."""
    names = test_set_names(report)
    lines = []
    for name in names:
        title = f" on {test_set_title(report, name)}" if len(names) > 1 else ""
        lines += [f"### Whole test set{title}", ""] + whole_split_table(report, name) + [""]
        tables = [("BLEU by length", lambda r: score_cell(r.bleu, r.seeds)),
                  ("Δ BLEU against sinusoidal PE by length", lambda r: comparison_cell(r.compared.bleu, r.decides)),
                  ("Cross-attention alignment by length", alignment_cell)]
        if any(r.unigram_f is not None for r in report.rows if r.test_set == name):
            tables.append(("Word choice and word order by length (teacher-forced token accuracy and unigram F in "
                           "points, Kendall τ of the matched words)", words_cell))
        for heading, cell in tables:
            lines += [line.replace("## ", "### ", 1)
                      for line in pivot(report, cell, heading + (f" (`{name}`)" if len(names) > 1 else ""), name)]
    return lines


def models(rows: list[ReportRow]) -> str:
    """"model small, 7,578,624 parameters", or, when the comparisons of a page train different sizes (claim (a) at
    base_cpu beside (b), (c) at small), "models small (7,578,624 parameters) and base_cpu (19,869,696 parameters)"."""
    sizes = dict(sorted({(r.model, r.parameters) for r in rows if r.trained}, key=lambda m: m[1] or 0))
    if len(sizes) <= 1:
        model, parameters = next(iter(sizes.items()), (None, None))
        return f"model {model}, {number(parameters)} parameters"
    return "models " + " and ".join(f"{model} ({number(parameters)} parameters)"
                                    for model, parameters in sizes.items())


def results_markdown(report: Report, sweep_dir: Path, assets: Path, link: str, verdicts: list[Verdict],
                     pilots: Sequence[Path] = (), plan: Optional[Path] = None,
                     silver_check: Optional[Path] = None) -> str:
    whole = [r for r in report.rows if r.bucket == ALL]
    tests = ", ".join(f"`{name}`" for name in test_set_names(report))
    lines = ["# Results: the source notes' experiments", "",
             f"Generated by `python -m translate.study results` from `{sweep_dir}` "
             f"({len({job for r in whole for job in r.jobs.split()})} jobs, {models(whole)}, "
             f"about {value_range([r.steps for r in whole], 0)} steps and "
             f"{value_range([r.train_minutes for r in whole], 1)} training minutes per job on {devices(whole)}). Each model "
             f"is trained on Tatoeba "
             f"pairs of one length range and tested on each test set ({tests}), bucketed by French word count.", "",
             "## What the numbers say", ""]
    jobs = find_jobs(sweep_dir)   # report.json keeps no jobs: read them, once
    controls = check_controls(report.spans, primary_test_set(report), report.rules)
    forest = write_forest(verdicts + controls, assets, report.rules.margin)
    lines += claims_section(report, reports_against(jobs, report), verdicts, controls, forest, link, plan,
                            silver_check)
    lines += probe_lines(group_settings(jobs))
    if pilots:
        lines += ["## How long the models trained", ""] + budget_lines(list(pilots), jobs)
    lines += ["## Scores", ""] + scores_section(report)
    for key, label, name in PLOTS:
        source = sweep_dir / "report" / name
        if source.exists():
            shutil.copyfile(source, assets / name)
            lines += [f"![{label} by length on `{test_set_names(report)[0]}`]({link}/{name})", ""]
    curves = sweep_dir / "report" / LEARNING_CURVES
    if curves.exists():  # did the models converge? valid BLEU at every validation, one line per job
        shutil.copyfile(curves, assets / curves.name)
        lines += ["### Learning curves", "", f"![valid BLEU against step]({link}/{curves.name})", ""]
    lines += ["## Attention maps", ""] + attention_section(report, sweep_dir, assets, link)
    lines += compute_lines(jobs, sweep_dir)
    lines += ["## How to read the numbers", ""] + reading_rules(report) + [""]
    if report.unfinished or report.notes:
        lines += ["## Notes", ""] + [f"- unfinished: {j}" for j in report.unfinished] + [
            f"- {n}" for n in report.notes] + [""]
    return "\n".join(lines)




def write_results_page(sweep_dir: Path, out: Path, readme: Optional[Path] = None,
                       pilots: Sequence[Path] = (), plan: Optional[Path] = None,
                       silver_check: Optional[Path] = None) -> Path:
    """Writes `out` (e.g. docs/results.md) and its pictures into a folder beside it named after it, and the claims
    block of `readme` when it has one (readme_summary). `pilots`: the folders of the pilots that set the jobs' step
    budgets (translate.study.verdicts.pilots), shown on the page. `plan`: the analysis plan whose history and
    departures the page quotes (plan_disclosures). `silver_check`: eflomal's AER against the gold links
    (silver_check_lines)."""
    sweep_dir, out = Path(sweep_dir), Path(out)
    report = load_report(sweep_dir)
    assets = fresh_assets(out)
    verdicts = verdicts_of(report)  # decided once, for the page and the README's summary
    atomic_write_text(out, results_markdown(report, sweep_dir, assets, assets.name, verdicts, pilots, plan,
                                            silver_check))
    if readme is not None:
        forest = assets / FOREST
        link = os.path.relpath(forest, Path(readme).parent) if forest.exists() else None
        update_readme(Path(readme), "claims", claims_lines(verdicts, str(sweep_dir), link))
    return out
