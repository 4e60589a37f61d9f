"""docs/architecture.md's floors, imports and sizes are the code's: scripts/architecture.py --check finds them up to
date, and names a block that is not."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_drawn_house_is_the_code():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # this checkout's package, whichever one is installed
    result = subprocess.run([sys.executable, "scripts/architecture.py", "--check"], cwd=ROOT, env=env, check=False,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + "\nrun: python scripts/architecture.py"


def test_a_stale_block_is_named_and_rewritten(tmp_path, monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("architecture", ROOT / "scripts" / "architecture.py")
    architecture = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "architecture", architecture)
    spec.loader.exec_module(architecture)
    doc = tmp_path / "architecture.md"
    drawn = (ROOT / "docs" / "architecture.md").read_text()
    doc.write_text(drawn.replace("data      → config, io", "data      → config, io, model"))
    assert architecture.main(["--check", "--doc", str(doc)]) == 1
    assert "the imports block is stale" in capsys.readouterr().err
    assert architecture.main(["--doc", str(doc)]) == 0 and doc.read_text() == drawn
