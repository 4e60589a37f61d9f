"""translate.study collect: a sweep's finished jobs without checkpoints, pieces adding up."""
from __future__ import annotations

import shutil
from pathlib import Path

import torch

from translate.analysis.sweep.logged_attention_images import cross_attention_images, pick_examples
from translate.study.__main__ import main as study

def make_job(folder: Path, finished: bool, marker: str = "1") -> None:
    """A run folder: a TensorBoard log with scalars and four cross-attention pictures at two steps, checkpoints."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(folder / "tb"))
    for step in (10, 20):
        writer.add_scalar("train/loss", 1.0 / step, step)
        for tag in ("fixed/0", "fixed/1", "6-10/test5", "21+/test9"):
            writer.add_image(f"attention/cross/{tag}", torch.full((3, 4, 5), step / 40), step)
    writer.close()
    (folder / "config.yaml").write_text("seed: 1\n")
    (folder / "test.hyp.txt").write_text("hello\n")
    for checkpoint in ("last.pt", "best.pt", "last.prev.pt", "last.pt.tmp"):
        (folder / checkpoint).write_bytes(b"x" * 1000)
    if finished:
        (folder / "metrics.json").write_text(f'{{"marker": {marker}}}\n')


def files(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and "tb" not in p.parts)


def test_collect_copies_finished_jobs_without_checkpoints_and_adds_pieces_up(tmp_path, capsys):
    sweep, dest = tmp_path / "sweep", tmp_path / "dest"
    make_job(sweep / "a_seed1", finished=True)
    make_job(sweep / "b_seed1", finished=False)
    assert study(["collect", str(sweep), str(dest)]) == 0
    assert files(dest) == ["a_seed1/config.yaml", "a_seed1/metrics.json", "a_seed1/test.hyp.txt"]
    assert "left out (unfinished, no metrics.json): " + str(sweep / "b_seed1") in capsys.readouterr().out

    # the log keeps only what the results page shows: the last picture of the first fixed probe and of the longest
    # bucket, byte for byte
    kept = cross_attention_images(dest / "a_seed1" / "tb")
    assert [(i.tag, i.step) for i in kept] == [("attention/cross/fixed/0", 20), ("attention/cross/21+/test9", 20)]
    assert [i.png for i in kept] == [i.png for i in pick_examples(cross_attention_images(sweep / "a_seed1" / "tb"))]

    # a second piece: b has finished since, a was run again; both land, a's newer copy replaces the old one
    shutil.rmtree(sweep / "a_seed1")
    make_job(sweep / "a_seed1", finished=True, marker="2")
    (sweep / "b_seed1" / "metrics.json").write_text("{}\n")
    assert study(["collect", str(sweep), str(dest)]) == 0
    assert (dest / "a_seed1" / "metrics.json").read_text() == '{"marker": 2}\n'
    assert (dest / "b_seed1" / "metrics.json").exists() and not list(dest.rglob("*.pt"))
    assert not list(dest.glob("*.staging"))

    # collected again with nothing rerun: every copy stays as it is, its TensorBoard log too (no churn in git)
    before = {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()}
    assert study(["collect", str(sweep), str(dest)]) == 0
    assert {p: p.read_bytes() for p in dest.rglob("*") if p.is_file()} == before
    assert "collected 0 finished jobs" in capsys.readouterr().out.splitlines()[-1]


def test_collect_can_keep_the_whole_tensorboard_log(tmp_path):
    make_job(tmp_path / "sweep" / "a_seed1", finished=True)
    assert study(["collect", str(tmp_path / "sweep"), str(tmp_path / "dest"), "--whole-tb"]) == 0
    source, copy = (sorted((root / "a_seed1" / "tb").iterdir()) for root in (tmp_path / "sweep", tmp_path / "dest"))
    assert [f.read_bytes() for f in copy] == [f.read_bytes() for f in source]


def test_collect_refuses_a_missing_folder_and_a_sweep_without_a_finished_job(tmp_path, capsys):
    assert study(["collect", str(tmp_path / "nowhere"), str(tmp_path / "dest")]) == 2
    assert f"sweep folder {tmp_path / 'nowhere'} does not exist" in capsys.readouterr().err
    make_job(tmp_path / "sweep" / "a_seed1", finished=False)
    assert study(["collect", str(tmp_path / "sweep"), str(tmp_path / "dest")]) == 2
    assert "no finished job" in capsys.readouterr().err and not (tmp_path / "dest").exists()


def test_only_collects_the_jobs_whose_folder_matches_and_names_a_pattern_that_matches_none(tmp_path, capsys):
    for name in ("sinusoidal_none_words1-9_seed1", "sinusoidal_none_words11-17_seed1", "none_none_words1-9_seed2"):
        make_job(tmp_path / "sweep" / name, finished=True)
    assert study(["collect", str(tmp_path / "sweep"), str(tmp_path / "dest"), "--only", "*_words1-9_*"]) == 0
    assert sorted(p.name for p in (tmp_path / "dest").iterdir()) == ["none_none_words1-9_seed2",
                                                                      "sinusoidal_none_words1-9_seed1"]
    assert study(["collect", str(tmp_path / "sweep"), str(tmp_path / "other"), "--only", "*_words2-5_*"]) == 2
    assert "--only '*_words2-5_*' matches no job folder" in capsys.readouterr().err
