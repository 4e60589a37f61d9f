"""The position probe: a linear probe reads position where the states carry it and no better than the most common
position where they do not; a trained run reports it per layer and bucket."""
from __future__ import annotations

import json

import numpy as np
import pytest

from translate.analysis.run.position_probe import MAX_POSITION, probe_layer, probe_table


def sentences(n: int, carry_position: bool, seed: int = 0) -> tuple[list[np.ndarray], list[int]]:
    """n sentences of 5-14 tokens, 16-dim states: random noise, plus a one-hot of the position when carried."""
    rng = np.random.default_rng(seed)
    states, words = [], []
    for _ in range(n):
        length = int(rng.integers(5, 15))
        x = rng.normal(size=(length, 16))
        if carry_position:
            x[np.arange(length), np.minimum(np.arange(length), 15)] += 4.0
        states.append(x)
        words.append(length - 1)
    return states, words


def test_the_probe_reads_position_where_the_states_carry_it_and_not_where_they_do_not():
    carried = probe_layer(*sentences(120, True), samples=200, seed=1)
    absent = probe_layer(*sentences(120, False), samples=200, seed=1)
    short = "1-10"
    assert carried[short]["accuracy"] > 0.9
    assert absent[short]["accuracy"] < absent[short]["majority"] + 0.1   # noise: about the most common guess
    assert carried[short]["accuracy_low"] <= carried[short]["accuracy"] <= carried[short]["accuracy_high"]
    assert carried["18+"] == {"sentences": 0, "accuracy": None, "accuracy_low": None, "accuracy_high": None,
                              "majority": None}


@pytest.mark.slow
def test_a_run_probes_every_layer_and_writes_the_table(tiny_config, tmp_path):
    from translate.cli.train import run

    cfg = tiny_config("train.max_steps=6", "train.valid_every=6", "report.position_probe=30",
                      "report.alignment_error_rate=false", "report.images=[]", "report.bootstrap_samples=50")
    run(cfg, tmp_path)
    saved = json.loads((tmp_path / "metrics.json").read_text())["position_probe"]
    assert saved["sentences"] == 30 and saved["trained_on"] == 18 and saved["max_position"] == MAX_POSITION
    layers = saved["layers"]
    assert {"encoder embedding", "decoder embedding", "encoder 1", "decoder 1"} <= set(layers)
    for buckets in layers.values():
        for cell in buckets.values():
            assert cell["accuracy"] is None or 0.0 <= cell["accuracy"] <= 1.0
    scored = {bucket: cell["sentences"] for bucket, cell in layers["encoder 1"].items()}
    assert scored["1-10"] > 0 and scored["11-17"] + scored["18+"] > 0   # long valid sentences too, whatever the run
    table = (tmp_path / "position_probe.md").read_text()
    assert table.startswith("# Position probe: 30 valid sentences") and "| encoder 1 |" in table
    assert probe_table(saved) == table


def test_the_probe_takes_short_and_long_valid_sentences_in_turn():
    from translate.data.cleaning import Pair
    from translate.data.corpora import Splits
    from translate.data.pipeline import probe_pairs

    short = [Pair(f"court {i}", f"short {i}") for i in range(3)]
    long = [Pair(" ".join(["long"] * 12) + f" {i}", f"long {i}") for i in range(5)]
    turns = probe_pairs(Splits([], short, [], long_valid=long))
    assert turns == [short[0], long[0], short[1], long[1], short[2], long[2], long[3], long[4]]
    assert probe_pairs(Splits([], short, [])) == short   # a corpus without a long reserve: the valid split
