"""The suite hands its longest files out first, so that none of them ends the run on one worker."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import committed_durations, longest_files_first

ROOT = Path(__file__).resolve().parents[1]


def test_the_longest_files_come_first_and_keep_their_tests_together_and_in_order():
    nodeids = ["tests/test_a.py::one", "tests/test_a.py::two", "tests/test_b.py::one",
               "tests/test_c.py::one", "tests/test_c.py::two", "tests/test_d.py::one"]
    seconds = {"tests/test_c.py": 300.0, "tests/test_a.py": 5.0, "tests/test_gone.py": 900.0}
    assert longest_files_first(nodeids, seconds) == [
        "tests/test_c.py::one", "tests/test_c.py::two", "tests/test_a.py::one", "tests/test_a.py::two",
        "tests/test_b.py::one", "tests/test_d.py::one"]  # unmeasured files last, in the order they were collected


def test_the_committed_durations_name_test_files_that_exist():
    seconds = committed_durations()
    assert seconds and all(value >= 0 for value in seconds.values())
    assert not [name for name in seconds if not (ROOT / name).is_file()]


def test_the_collected_suite_starts_with_its_longest_file():
    seconds = committed_durations()
    longest = max(seconds, key=seconds.get)
    shortest = min(seconds, key=seconds.get)
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                                "-p", "no:cacheprovider", shortest, longest],
                               cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    files = [line.split("::")[0] for line in collected.stdout.splitlines() if "::" in line]
    assert files[0] == longest and files[-1] == shortest
