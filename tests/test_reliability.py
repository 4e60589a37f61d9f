"""Checkpoints survive kills and full disks, a resumed run continues exactly, NaN steps are skipped and counted,
signals stop training cleanly. In-process and fast; the kill -9 tests that launch processes are in
test_reliability_kill.py."""
from __future__ import annotations

import errno
import os
import signal
import zipfile
from pathlib import Path

import pytest
import torch

from translate import io as atomic_io
from translate.assembly.settings import validate_config
from translate.training import checkpoint as ckpt
from translate.training.checkpoint import CheckpointError, load_checkpoint, newest_valid_checkpoint, save_checkpoint
from translate.io import WriteError, atomic_write_text, previous_path, remove_partial_writes
from translate.training.device import make_runtime
from translate.training.interruption import Interrupted, resume_command
from translate.training.trainer import TrainingDiverged
from translate.assembly.trainer import build_trainer


def fake_state(step: int) -> dict:
    return {"model": {"w": torch.full((64, 64), float(step))}, "progress": {"step": step}}


def scalars(tb_dir: Path, tag: str) -> dict[int, float]:
    """step -> value of a TensorBoard scalar over every event file of a folder; later files win on equal steps."""
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    values = {}
    for path in sorted(tb_dir.glob("events.out.tfevents.*")):
        for event in EventFileLoader(str(path)).Load():
            for value in event.summary.value:
                if value.tag == tag:
                    values[event.step] = value.tensor.float_val[0] if value.HasField("tensor") else value.simple_value
    return values


# -- atomic files and checkpoint fallback ---------------------------------------------------------------------------

def test_atomic_write_replaces_whole_file_and_keeps_previous(tmp_path):
    path = tmp_path / "last.pt"
    save_checkpoint(path, fake_state(1), keep_previous=True)
    save_checkpoint(path, fake_state(2), keep_previous=True)
    assert load_checkpoint(path)["progress"]["step"] == 2
    assert load_checkpoint(previous_path(path))["progress"]["step"] == 1
    assert not list(tmp_path.glob(".*.tmp"))
    assert path.stat().st_mode & 0o044  # readable like any other file, not mkstemp's 0600


def test_truncated_last_is_detected_and_previous_used(tmp_path, caplog):
    path = tmp_path / "last.pt"
    save_checkpoint(path, fake_state(10), keep_previous=True)
    save_checkpoint(path, fake_state(20), keep_previous=True)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="last.pt is unreadable \\(truncated or corrupt"):
        load_checkpoint(path)
    found_path, state = newest_valid_checkpoint(tmp_path)
    assert found_path == previous_path(path) and state["progress"]["step"] == 10
    assert "last.pt is unreadable" in caplog.text and "trying the previous checkpoint" in caplog.text


def test_flipped_byte_inside_a_tensor_is_detected(tmp_path):
    """torch.load itself would return wrong weights here; the zip CRCs catch it."""
    path = tmp_path / "last.pt"
    save_checkpoint(path, fake_state(3))
    with zipfile.ZipFile(path) as archive:
        record = max((i for i in archive.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    data = bytearray(path.read_bytes())
    name_len, extra_len = int.from_bytes(data[record.header_offset + 26: record.header_offset + 28], "little"), \
        int.from_bytes(data[record.header_offset + 28: record.header_offset + 30], "little")
    data[record.header_offset + 30 + name_len + extra_len + record.file_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="fails its CRC check"):
        load_checkpoint(path)


def test_newest_valid_prefers_most_steps_and_reports_when_none_is_usable(tmp_path):
    assert newest_valid_checkpoint(tmp_path) is None
    save_checkpoint(tmp_path / "best.pt", fake_state(30))
    save_checkpoint(tmp_path / "last.pt", fake_state(40))
    assert newest_valid_checkpoint(tmp_path)[0].name == "last.pt"
    for name in ("best.pt", "last.pt"):
        (tmp_path / name).write_bytes(b"not a checkpoint")
    with pytest.raises(CheckpointError, match="no usable checkpoint in .*best.pt is a text file, not a checkpoint"):
        newest_valid_checkpoint(tmp_path)


def test_disk_full_while_writing_keeps_previous_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "last.pt"
    save_checkpoint(path, fake_state(5), keep_previous=True)
    real_save = torch.save

    def save_until_full(obj, f, *args, **kwargs):
        f.write(b"x" * 1000)  # half a file is on disk when the disk fills up
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(ckpt.torch, "save", save_until_full)
    with pytest.raises(WriteError) as caught:
        save_checkpoint(path, fake_state(6), keep_previous=True)
    message = str(caught.value)
    assert "could not write" in message and "No space left on device (ENOSPC)" in message
    assert "the existing last.pt is intact" in message and "free some disk space" in message
    monkeypatch.setattr(ckpt.torch, "save", real_save)
    assert load_checkpoint(path)["progress"]["step"] == 5
    assert not list(tmp_path.glob(".*.tmp"))


def test_unwritable_folder_message(tmp_path, monkeypatch):
    """mkstemp is refused as the kernel refuses it in a read-only folder (tests may run as root)."""
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    monkeypatch.setattr(atomic_io.tempfile, "mkstemp", refuse)
    with pytest.raises(WriteError) as caught:
        atomic_write_text(tmp_path / "config.yaml", "x")
    assert str(caught.value) == (f"could not write {tmp_path / 'config.yaml'}: Permission denied (EACCES); nothing "
                                 f"was written. Fix: make the folder writable or choose another hydra.run.dir.")


def test_partial_writes_from_a_killed_process_are_removed(tmp_path):
    (tmp_path / ".last.pt.abc123.tmp").write_bytes(b"half")
    save_checkpoint(tmp_path / "last.pt", fake_state(1))
    assert [p.name for p in remove_partial_writes(tmp_path)] == [".last.pt.abc123.tmp"]
    assert [p.name for p in tmp_path.iterdir()] == ["last.pt"]


def test_write_pause_leaves_a_half_written_temporary_file(tmp_path, monkeypatch):
    """The hook the kill test uses: during the pause the temporary file exists and last.pt is the old one."""
    import threading

    monkeypatch.setenv(atomic_io.WRITE_PAUSE_ENV, "0.5")
    path = tmp_path / "last.pt"
    writer = threading.Thread(target=save_checkpoint, args=(path, fake_state(1)))
    writer.start()
    seen, last_existed = [], None
    while writer.is_alive() and not seen:
        seen = list(tmp_path.glob(".last.pt.*.tmp"))
        last_existed = path.exists()
    writer.join()
    assert seen and last_existed is False, "the temporary file was never visible on its own"
    assert load_checkpoint(path)["progress"]["step"] == 1 and not seen[0].exists()


def test_resume_command_keeps_overrides_and_replaces_run_dir_and_resume():
    command = resume_command(["model=tiny", "train.resume=null", "hydra.run.dir=old", "data.path=/a b"],
                             Path("runs/x"))
    assert command == ("python -m translate.train model=tiny 'data.path=/a b' hydra.run.dir=runs/x "
                       "train.resume=auto")


# -- the trainer ----------------------------------------------------------------------------------------------------

def make_trainer(tiny_config, tiny_data, run_dir, *overrides):
    cfg = tiny_config("train.num_threads=null", "train.valid_every=1000", "train.save_every=1000",
                      "train.valid_bleu_limit=4", "train.max_tokens=600", *overrides)
    return build_trainer(validate_config(cfg), tiny_data, make_runtime("cpu", "fp32"), run_dir)


def nan_on_calls(model, bad_calls):
    """Make the decoder output NaN on the given training forward passes (1-based)."""
    calls = {"n": 0}

    def hook(module, inputs, output):
        if not module.training:
            return output
        calls["n"] += 1
        return output * float("nan") if calls["n"] in bad_calls else output
    return model.decoder_norm.register_forward_hook(hook)


def test_nan_steps_are_skipped_and_counted(tiny_config, tiny_data, tmp_path):
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.max_steps=6", "train.log_every=1")
    nan_on_calls(trainer.model, {3, 4})
    trainer.train()
    assert trainer.progress.step == 6 and trainer.progress.skipped_steps == 2
    assert trainer.progress.batch_in_epoch == 8  # the two bad batches were consumed, not retried
    assert all(torch.isfinite(p).all() for p in trainer.model.parameters())
    assert scalars(tmp_path / "tb", "train/skipped_steps")[6] == 2


def test_consecutive_nan_steps_stop_training_with_causes(tiny_config, tiny_data, tmp_path):
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.max_steps=20", "train.max_bad_steps=3")
    nan_on_calls(trainer.model, set(range(4, 100)))
    with pytest.raises(TrainingDiverged) as caught:
        trainer.train()
    message = str(caught.value)
    assert message.startswith("training stopped after step 3: the 3 steps after it all had a non-finite loss or "
                              "gradient (train.max_bad_steps=3; 3 skipped in all)")
    assert "learning rate too high (train.lr=" in message and "(train.precision=auto; try fp32)" in message


def test_a_run_whose_last_step_is_a_save_step_writes_its_last_checkpoint_once(tiny_config, tiny_data, tmp_path,
                                                                                   monkeypatch):
    """Steps 2 and 4 are save steps; 4 is also the last, which the end of training saves: once, not twice."""
    from translate.training import trainer as trainer_module

    saved, real_save = [], trainer_module.save_checkpoint

    def counting_save(path, state, *args, **kwargs):
        saved.append((path.name, state["progress"]["step"]))
        return real_save(path, state, *args, **kwargs)

    monkeypatch.setattr(trainer_module, "save_checkpoint", counting_save)
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.max_steps=4", "train.save_every=2")
    trainer.train()
    assert [s for s in saved if s[0] == "last.pt"] == [("last.pt", 2), ("last.pt", 4)]
    assert load_checkpoint(tmp_path / "last.pt")["progress"]["step"] == 4


def test_resume_in_process_continues_exactly(tiny_config, tiny_data, tmp_path):
    """8 steps straight == 4 steps, save, new Trainer resumed from the checkpoint, 4 more (dropout on)."""
    straight = make_trainer(tiny_config, tiny_data, tmp_path / "a", "train.max_steps=8", "train.log_every=1")
    straight.train()
    first = make_trainer(tiny_config, tiny_data, tmp_path / "b", "train.max_steps=4", "train.log_every=1")
    first.train()
    torch.manual_seed(12345)  # whatever happens in between must not matter
    second = make_trainer(tiny_config, tiny_data, tmp_path / "b", "train.max_steps=8", "train.log_every=1")
    second.resume(*newest_valid_checkpoint(tmp_path / "b"))
    assert second.progress.step == 4
    second.train()
    assert scalars(tmp_path / "a" / "tb", "train/loss") == scalars(tmp_path / "b" / "tb", "train/loss")
    for (name, a), b in zip(straight.model.state_dict().items(), second.model.state_dict().values()):
        assert torch.equal(a, b), name


def test_sigterm_saves_flushes_and_raises_interrupted(tiny_config, tiny_data, tmp_path):
    trainer = make_trainer(tiny_config, tiny_data, tmp_path, "train.max_steps=50", "train.log_every=1")
    calls = {"n": 0}

    def send_sigterm_on_third_step(module, inputs, output):
        calls["n"] += module.training
        if calls["n"] == 3 and module.training:
            os.kill(os.getpid(), signal.SIGTERM)
    trainer.model.decoder_norm.register_forward_hook(send_sigterm_on_third_step)
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as caught:
        trainer.train()
    assert caught.value.step == 3 and caught.value.exit_code == 128 + signal.SIGTERM
    assert load_checkpoint(tmp_path / "last.pt")["progress"]["step"] == 3
    assert sorted(scalars(tmp_path / "tb", "train/loss")) == [1, 2, 3]  # flushed without closing the writer
    assert signal.getsignal(signal.SIGTERM) is before
