"""The same model in two precisions: test BLEU of fp32 and bf16 runs paired by seed, their Δ with a t interval over
seeds, a TOST for "the same within ±margin", the weights digests, and the valid loss curves on one plot.

    python scripts/compare_precisions.py docs/results/runs/precision_cpu --margin 0.5 \
        --plot docs/speed_precision_valid_loss.png

RUNS holds one run folder per job, named <precision>_seed<N> (a repeat: <precision>_seed<N>_repeat), each with the
metrics.json a run writes. Runs with the same seed start from the same weights and take the same batches; only the
arithmetic differs (and with it the dropout masks, drawn differently on the CPU bf16 path). The interval is a paired
t over seeds, df = seeds - 1: it holds the training noise the seeds show; the test sentences are the same for both
precisions, and what the interval asks is whether bf16 changes the models, on this test set.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
from scipy import stats

JOB = re.compile(r"(?P<precision>fp32|bf16)_seed(?P<seed>\d+)(?P<repeat>_repeat)?$")
TEST_SETS = ("test", "long_test", "multi30k_flickr2016")


def read_runs(folder: Path) -> dict[tuple[str, int, bool], dict]:
    runs = {}
    for path in sorted(folder.iterdir()):
        match = JOB.match(path.name)
        if match and (path / "metrics.json").exists():
            key = (match["precision"], int(match["seed"]), bool(match["repeat"]))
            runs[key] = json.loads((path / "metrics.json").read_text())
    return runs


def paired_t(deltas: list[float], margin: float, alpha: float = 0.05) -> dict:
    """Mean Δ, its 95% t interval, the (1 − 2·alpha) interval of the TOST and its p (the larger one-sided p)."""
    d = np.asarray(deltas, dtype=float)
    n, mean = len(d), float(d.mean())
    se = float(d.std(ddof=1) / np.sqrt(n))
    df = n - 1
    half95, half_tost = stats.t.ppf(0.975, df) * se, stats.t.ppf(1 - alpha, df) * se
    if se == 0:  # every seed gave the same Δ: no spread to build a t interval on; shown as a point
        return {"mean": mean, "sd": 0.0, "df": df, "ci95": [mean, mean], "tost_interval": [mean, mean],
                "tost_p": float(abs(mean) >= margin), "p_difference": float(mean == 0)}
    p_low = stats.t.sf((mean + margin) / se, df)    # H0: Δ <= -margin
    p_high = stats.t.cdf((mean - margin) / se, df)  # H0: Δ >= +margin
    return {"mean": mean, "sd": float(d.std(ddof=1)), "df": df, "ci95": [mean - half95, mean + half95],
            "tost_interval": [mean - half_tost, mean + half_tost], "tost_p": float(max(p_low, p_high)),
            "p_difference": float(2 * stats.t.sf(abs(mean) / se, df))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", type=Path)
    parser.add_argument("--margin", type=float, default=0.5, help="BLEU: the TOST's equivalence margin")
    parser.add_argument("--alpha", type=float, default=0.05, help="each side of the TOST (docs/preregistration.md "
                        "reads the precision check at 0.0294 a side: Pocock over two looks)")
    parser.add_argument("--plot", type=Path, help="write the valid loss curves here (PNG)")
    parser.add_argument("--summary", type=Path, help="write the numbers here (JSON)")
    args = parser.parse_args()
    runs = read_runs(args.runs)
    seeds = sorted({seed for (_, seed, repeat) in runs
                    if not repeat and ("fp32", seed, False) in runs and ("bf16", seed, False) in runs})
    if len(seeds) < 2:
        raise SystemExit(f"{args.runs}: {len(seeds)} seed(s) with both precisions finished; a t interval needs 2")
    first = runs[("fp32", seeds[0], False)]
    print(f"model={first['model']}, {first['steps']} steps, tested at step {first.get('tested_step', first['steps'])}"
          f", seeds {', '.join(map(str, seeds))}; fp32: {first.get('device', '?')}, bf16: "
          f"{runs[('bf16', seeds[0], False)].get('device', '?')}")
    summary = {"seeds": seeds, "margin": args.margin, "alpha": args.alpha, "test_sets": {}, "runs": {}}
    tost_level = f"{100 * (1 - 2 * args.alpha):.1f}%"
    print(f"\n| test set | seed | fp32 BLEU | bf16 BLEU | Δ |\n|---|--:|--:|--:|--:|")
    for name in TEST_SETS:
        deltas = []
        for seed in seeds:
            a, b = (runs[(p, seed, False)]["test_sets"][name]["bleu"] for p in ("fp32", "bf16"))
            deltas.append(b - a)
            print(f"| {name} | {seed} | {a:.2f} | {b:.2f} | {b - a:+.2f} |")
        result = paired_t(deltas, args.margin, args.alpha)
        summary["test_sets"][name] = {"deltas": deltas, **result}
    print(f"\n| test set | mean Δ (bf16 - fp32) | sd over seeds | 95% CI (t, df={len(seeds) - 1}) | {tost_level} CI | "
          f"TOST ±{args.margin} p | reading |\n|---|--:|--:|---|---|--:|---|")
    for name, r in summary["test_sets"].items():
        low, high = r["tost_interval"]
        reading = (f"within ±{args.margin}" if -args.margin < low and high < args.margin else
                   f"beyond ±{args.margin}" if high < -args.margin or low > args.margin else "undecided")
        r["reading"] = reading
        print(f"| {name} | {r['mean']:+.2f} | {r['sd']:.2f} | [{r['ci95'][0]:+.2f}, {r['ci95'][1]:+.2f}] | "
              f"[{low:+.2f}, {high:+.2f}] | {r['tost_p']:.3f} | {reading} |")
    print("\n| run | weights SHA-256 | train min | target tok/s | best valid BLEU (step) | valid loss at end |"
          "\n|---|---|--:|--:|--:|--:|")
    for (precision, seed, repeat), m in sorted(runs.items()):
        name = f"{precision}_seed{seed}{'_repeat' if repeat else ''}"
        summary["runs"][name] = {k: m.get(k) for k in ("weights_sha256", "train_minutes", "target_tokens_per_s",
                                                        "best_valid_bleu", "best_valid_step", "valid_curve", "device")}
        print(f"| {name} | `{m['weights_sha256'][:16]}…` | {m['train_minutes']} | {m['target_tokens_per_s']:,.0f} | "
              f"{m['best_valid_bleu']} ({m['best_valid_step']}) | {m['valid_curve'][-1][2]:.4f} |")
    for (precision, seed, repeat), m in runs.items():
        if repeat and (precision, seed, False) in runs:
            same = m["weights_sha256"] == runs[(precision, seed, False)]["weights_sha256"]
            print(f"\n{precision} seed {seed} run twice: {'the same weights, bit for bit' if same else 'DIFFERENT weights'}"
                  f" ({m['weights_sha256']})")
    if args.summary:
        args.summary.write_text(json.dumps(summary, indent=1) + "\n")
    if args.plot:
        plot_curves(runs, args.plot)


def plot_curves(runs: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, diff) = plt.subplots(1, 2, figsize=(10, 4.0))
    colours = {"fp32": "tab:blue", "bf16": "tab:orange"}
    curves = {}
    for (precision, seed, repeat), m in sorted(runs.items()):
        if repeat:
            continue
        steps, losses = zip(*[(step, loss) for step, _, loss in m["valid_curve"]])
        curves[(precision, seed)] = (steps, np.asarray(losses))
        ax.plot(steps, losses, color=colours[precision], marker="o", markersize=3, alpha=0.8,
                label=f"{precision}, seed {seed}")
    for (precision, seed), (steps, losses) in curves.items():
        if precision == "bf16" and ("fp32", seed) in curves:
            diff.plot(steps, losses - curves[("fp32", seed)][1], marker="o", markersize=3, label=f"seed {seed}")
    diff.axhline(0, color="grey", linewidth=0.8)
    diff.set_xlabel("training step")
    diff.set_ylabel("valid loss, bf16 minus fp32")
    diff.set_title("the same seed: bf16 minus fp32")
    diff.legend(fontsize=8)
    diff.grid(alpha=0.3)
    ax.set_xlabel("training step")
    ax.set_ylabel("valid loss (NLL per target token)")
    first = next(iter(runs.values()))
    ax.set_title(f"model={first['model']}, {first['steps']} steps, CPU: fp32 and bf16")
    ax.legend(fontsize=8, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
