"""The GPU bundle carries what the bare GPU image lacks: every dependency in pyproject.toml is either in the image,
carried as a wheel, or named as left behind (scripts/gpu_bundle.sh says what that costs)."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def bash_list(text: str, name: str) -> list[str]:
    match = re.search(rf"^{name}=\(([^)]*)\)", text, flags=re.M)
    assert match, f"scripts/gpu_bundle.sh has no {name}=(...)"
    return [re.split(r"[=<>]", word)[0].lower() for word in match.group(1).split()]


def project_names() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = project["dependencies"] + [s for extra in project["optional-dependencies"].values() for s in extra]
    return {re.split(r"[=<>\[ ;]", spec)[0].lower() for spec in specs}


def uncovered(text: str) -> set[str]:
    carried, image, left = (set(bash_list(text, n)) for n in ("PACKAGES", "IMAGE_HAS", "NOT_CARRIED"))
    assert not (carried & image) and not (carried & left) and not (image & left), "a package is in two lists"
    return project_names() - carried - image - left


def test_every_dependency_is_in_the_image_carried_or_named_as_left_behind():
    assert uncovered((ROOT / "scripts" / "gpu_bundle.sh").read_text()) == set()


def test_a_dependency_in_no_list_is_found():
    text = (ROOT / "scripts" / "gpu_bundle.sh").read_text().replace(" scipy ", " ")
    assert uncovered(text) == {"scipy"}
