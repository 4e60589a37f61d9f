"""The house stands as docs/architecture.md draws it: the import-linter contracts of pyproject.toml hold (a lower floor
never imports a higher one; no circle between the modules of a package), and one encoding loads alone."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    lint = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_an_encoding_loads_without_the_data_pipeline():
    """Importing one encoding (as a notebook or a plug-in class would) loads no corpus code, SentencePiece or datasets."""
    code = ("import sys, translate.encodings.rope; "
            "print(sorted(m for m in sys.modules if m.startswith('translate.data') "
            "or m.split('.')[0] in ('sentencepiece', 'datasets')))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]", result.stdout
