"""The README's results summary, copied from the pages by the code that writes them, never typed by hand.

The README holds blocks between `<!-- results:NAME -->` and `<!-- /results:NAME -->`; the page scripts write each
block again with the page (a test rewrites them from the committed runs and compares).
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional

from omegaconf import OmegaConf

from translate.study.verdicts.verdict import Verdict
from translate.study.verdicts.wording import condition_interval, condition_word, delta_interval, what_the_data_show
from translate.analysis.sweep.cells import markdown_table
from translate.io import atomic_write_text


def block_pattern(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- results:{re.escape(name)} -->\n).*?(<!-- /results:{re.escape(name)} -->)", re.S)


def replace_block(text: str, name: str, lines: list[str]) -> Optional[str]:
    """`text` with block `name` replaced by `lines`; None when it has no such block."""
    pattern = block_pattern(name)
    if not pattern.search(text):
        return None
    return pattern.sub(lambda m: m.group(1) + "\n".join(lines) + "\n" + m.group(2), text, count=1)


def update_readme(readme: Path, name: str, lines: list[str]) -> bool:
    """Rewrites block `name` of `readme` when the file has one; False when it has not (e.g. a copy elsewhere)."""
    if not readme.exists():
        return False
    text = readme.read_text(encoding="utf-8")
    updated = replace_block(text, name, lines)
    if updated is None:
        return False
    if updated != text:
        atomic_write_text(readme, updated)
    return True


def claims_lines(verdicts: list[Verdict], source: str, forest: Optional[str] = None) -> list[str]:
    """The forest plot (`forest`: its path from the README), then per claim its verdict, one short table of its
    halves (the deciding Δs with their 95% intervals and words, each extra condition in the row below its Δ) and one
    sentence of what the data show; the lines behind each stay on the page."""
    lines = [f"From `{source}`; [docs/results.md](docs/results.md) has the lines behind each verdict (settings, seeds, "
             f"steps, every test set, the controls, the method and the attention maps).", ""]
    if forest:
        lines += [f"![Every deciding Δ of the claims and controls with its 95% interval; the band is ±1 BLEU of "
                  f"\"about the same\"]({forest})", ""]
    for verdict in verdicts:
        rows = []
        for half in verdict.halves:
            for r in half.readings:
                if r.delta is None:
                    continue
                rows.append([half.name, r.label, delta_interval(r), r.word])
                if r.condition is not None:
                    rows.append([half.name, r.condition.label, condition_interval(r), condition_word(r)])
        rows += [[half.name, "–", "–", half.word] for half in verdict.halves if not half.readings]
        lines += [f"**{verdict.claim}** — {verdict.headline}.", ""]
        lines += markdown_table(["half", "read on", "Δ [95% interval]", "word"], rows, ["---", "---", "--:", "---"])
        lines += ["", f"What the data show: {what_the_data_show(verdict)}.", ""]
    return lines


def default_run_lines(metrics: dict, folder: str, min_bucket: int) -> list[str]:
    """`make train`'s run, from its committed metrics.json: budget, speed, every test set's scores, and the primary
    test set by length (BLEU, normalised diagonal share, AER where recorded); `min_bucket`: the run's own
    report.min_bucket (its config.yaml)."""
    whole = metrics.get("test_sets") or {metrics.get("test_set", "test"): metrics}
    whole_run = (f", {metrics['run_minutes']:.1f} minutes in all: set-up, training, validation and test scoring"
                 if "run_minutes" in metrics else "")
    lines = [f"From [`{folder}/metrics.json`]({folder}/metrics.json): {metrics['steps']:,} steps "
             f"(tested at step {metrics.get('tested_step', metrics['steps'])}), {metrics['parameters']:,} parameters, "
             f"{metrics['target_tokens_per_s']:,.0f} target tokens/s on this run's machine ({metrics['train_minutes']:.1f} "
             f"training minutes, validation excluded{whole_run}). Test scores (sacreBLEU, greedy):", ""]
    lines += markdown_table(["test set", "sentences", "BLEU", "chrF"],
                            [[f"`{name}`", f"{r['sentences']:,}", f"{r['bleu']:.2f}", f"{r['chrf']:.2f}"]
                             for name, r in whole.items()])
    primary = metrics.get("test_set", "test")
    buckets = [b for b in (whole[primary].get("by_length") or {}).get("buckets", []) if b.get("sentences")]

    def number(value, digits: int) -> str:
        return "–" if value is None else f"{value:.{digits}f}"
    lines += ["", f"`{primary}` by French length (95% bootstrap intervals over sentences; `too few`: under "
                  f"{min_bucket} sentences, which decide nothing):", ""]
    lines += markdown_table(["words", "sentences", "BLEU", "normalised diagonal share", "AER"],
                            [[b["bucket"], f"{b['sentences']:,}" + (" (too few)" if b["sentences"] < min_bucket else ""),
                              f"{b['bleu']:.2f} [{b['bleu_ci'][0]:.2f}, {b['bleu_ci'][1]:.2f}]" if b.get("bleu_ci")
                              else number(b.get("bleu"), 2),
                              number(b.get("diagonal_share_normalised"), 2), number(b.get("aer"), 2)]
                             for b in buckets])
    return lines


def same_model(quiet: dict, loaded: dict) -> bool:
    """Both runs recorded the weights' digest and it is the same: the same model bit for bit."""
    return quiet.get("weights_sha256") is not None and quiet.get("weights_sha256") == loaded.get("weights_sha256")


def default_runs(quiet_folder: str, loaded_folder: str, root: Path) -> tuple[dict, Optional[dict]]:
    """The committed default run's metrics.json and, when committed, the busy run's (None otherwise)."""
    quiet = json.loads((root / quiet_folder / "metrics.json").read_text(encoding="utf-8"))
    loaded_path = root / loaded_folder / "metrics.json"
    return quiet, json.loads(loaded_path.read_text(encoding="utf-8")) if loaded_path.exists() else None


def loaded_run_lines(quiet: dict, loaded: dict, folder: str) -> list[str]:
    """The same command on busy cores: its wall time and whether it gave the same model (weights digest) and scores."""
    same_weights = same_model(quiet, loaded)
    scores = [(name, quiet["test_sets"][name]["bleu"], loaded["test_sets"].get(name, {}).get("bleu"))
              for name in quiet["test_sets"]]
    same_scores = all(a == b for _, a, b in scores)
    return ["", f"The same command on cores shared with other training jobs ([`{folder}/metrics.json`]"
                f"({folder}/metrics.json)): {loaded['steps']:,} steps in {loaded['run_minutes']:.1f} minutes in all "
                f"(quiet: {quiet['run_minutes']:.1f}); "
                + ("the same weights bit for bit (equal SHA-256 digests of the model)" if same_weights
                   else "other weights (the SHA-256 digests of the model differ)")
                + " and " + ("the same test BLEU" if same_scores else "test BLEU " + ", ".join(
                    f"`{name}` {b} against {a}" for name, a, b in scores)) + "."]


def first_command_lines(quiet_folder: str, loaded_folder: str, root: Path = Path(".")) -> list[str]:
    """What `make train` gives, beside the two commands at the top of the README: steps, minutes, test BLEU."""
    quiet, loaded = default_runs(quiet_folder, loaded_folder, root)
    test = quiet.get("test_set", "test")
    busy = (f" ({loaded['run_minutes']:.0f} on cores shared with other training jobs, the same model)"
            if loaded and same_model(quiet, loaded) and "run_minutes" in loaded else "")
    minutes = f", {quiet['run_minutes']:.0f} minutes in all on 2 quiet CPU cores{busy}" if "run_minutes" in quiet else ""
    return [f"`make train` trains {quiet['steps']:,} steps{minutes} and reaches test BLEU "
            f"{quiet['test_sets'][test]['bleu']:.2f} on `{test}` ([its metrics]({quiet_folder}/metrics.json); more in "
            "[The default run](#results)). The budget is in steps, so a busy machine gives the same model, later."]


def default_run_block(quiet_folder: str, loaded_folder: str, root: Path = Path(".")) -> list[str]:
    """The README's default-run block from the committed quiet run and, when committed, the same command on busy
    cores."""
    quiet, loaded = default_runs(quiet_folder, loaded_folder, root)
    min_bucket = OmegaConf.load(root / quiet_folder / "config.yaml").report.min_bucket
    return (default_run_lines(quiet, quiet_folder, min_bucket)
            + (loaded_run_lines(quiet, loaded, loaded_folder) if loaded else []))
