"""Redraw docs/architecture.md's generated blocks from the code: the floors of the import-linter `layers` contract in
pyproject.toml, the imports between translate's packages (grimp's import graph, as import-linter builds it) and the
size of each package.

    python scripts/architecture.py           # rewrites each <!-- generated: NAME --> ... <!-- end: NAME --> block
    python scripts/architecture.py --check   # exit 1 naming each stale block (tests/test_architecture.py runs it)

A layer of the contract is a floor, numbered from the ground (0) up; `|` in a layer splits it into rooms that never
import each other (drawn `│`); `:` joins modules into one room named by the first (`translate.cli : translate.train
: ...`: the short command names count with cli). What a package is comes from its own docstring: the first sentence,
up to its first colon, so nothing here is kept by hand. Sizes are rounded to the nearest hundred lines, so that small
edits leave them as they are.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import grimp

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: import-linter's own dependency
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end: (?P=name) -->)",
                   re.DOTALL)


@dataclass(frozen=True)
class Room:
    """One room of a floor: its module (e.g. translate.cli) and the modules that count with it (its aliases)."""
    floor: int
    module: str
    aliases: tuple[str, ...]

    @property
    def modules(self) -> tuple[str, ...]:
        return (self.module, *self.aliases)

    @property
    def name(self) -> str:  # as the doc writes it: a package with a slash, a module with .py
        return label(self.module)


def label(module: str) -> str:
    path = module_path(module)
    return f"{module.split('.')[-1]}/" if path.name == "__init__.py" else path.name


def module_path(module: str) -> Path:
    parts = module.split(".")
    package = ROOT.joinpath(*parts, "__init__.py")
    return package if package.exists() else ROOT.joinpath(*parts[:-1], parts[-1] + ".py")


def linter_settings() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]


def floors(settings: dict) -> list[list[Room]]:
    """The rooms of each floor, the ground first, from the one `layers` contract."""
    (contract,) = [c for c in settings["contracts"] if c["type"] == "layers"]
    built = []
    for number, layer in enumerate(reversed(contract["layers"])):
        rooms = []
        for room in layer.split("|"):
            names = [n.strip() for n in room.split(":")]
            rooms.append(Room(number, names[0], tuple(names[1:])))
        built.append(rooms)
    return built


def summary(module: str) -> str:
    """The first sentence of the module's docstring, up to its first colon."""
    doc = ast.get_docstring(ast.parse(module_path(module).read_text())) or ""
    sentence = re.split(r"(?<=[.!?])\s", " ".join(doc.split()), maxsplit=1)[0]
    return sentence.split(":")[0].rstrip(".")


def room_of(module: str, rooms: list[Room]) -> Room | None:
    for room in rooms:
        if any(module == m or module.startswith(m + ".") for m in room.modules):
            return room
    return None


def floors_block(built: list[list[Room]]) -> str:
    lines = ["```", " floor"]
    for rooms in reversed(built):
        cells = []
        for room in rooms:
            aliases = f" (+ {' · '.join(label(a) for a in room.aliases)})" if room.aliases else ""
            cells.append(room.name + aliases)
        lines.append(f"  {rooms[0].floor:2d}    " + "  │  ".join(cells))
    lines += ["```", ""]
    rooms = [room for floor in reversed(built) for room in floor]
    lines += [f"- `{room.name}` — {summary(room.module)}" for room in rooms]
    return "\n".join(lines) + "\n"


def imports_block(graph: grimp.ImportGraph, built: list[list[Room]]) -> str:
    rooms = [room for floor in reversed(built) for room in floor]  # the top first, as the doc reads
    imported: dict[Room, set[Room]] = {room: set() for room in rooms}
    for importer in graph.modules:
        source = room_of(importer, rooms)
        for module in graph.find_modules_directly_imported_by(importer):
            target = room_of(module, rooms)
            if source and target and target != source:
                imported[source].add(target)
    width = max(len(short(room)) for room in rooms)
    lines = ["```"]
    for room in rooms:
        targets = ", ".join(short(t) for t in rooms if t in imported[room]) or "(nothing of translate)"
        lines.append(f"{short(room):<{width}} → {targets}")
    lines.append("```")
    return "\n".join(lines) + "\n"


def short(room: Room) -> str:
    return room.module.split(".")[-1]


def sizes_block(graph: grimp.ImportGraph, built: list[list[Room]]) -> str:
    """Modules and lines (to the nearest hundred, so that small edits leave it as it is) of each room."""
    rooms = [room for floor in reversed(built) for room in floor]
    counts = {room: [0, 0] for room in rooms}
    for module in graph.modules:
        room = room_of(module, rooms)
        if room:
            counts[room][0] += 1
            counts[room][1] += len(module_path(module).read_text().splitlines())
    lines = ["| package | modules | lines |", "|---|--:|--:|"]
    lines += [f"| {room.name} | {m} | {round(n, -2):,} |" for room, (m, n) in counts.items()]
    lines.append(f"| translate in all | {sum(m for m, _ in counts.values())} | "
                 f"{round(sum(n for _, n in counts.values()), -2):,} |")
    return "\n".join(lines) + "\n"


def blocks() -> dict[str, str]:
    spec = importlib.util.find_spec("translate")
    if spec is None or Path(spec.origin).resolve().parent != ROOT / "translate":
        where = spec.origin if spec else "nowhere"
        print(f"error: translate is imported from {where}, not from this checkout ({ROOT}); install it "
              f"(pip install -e .) or run with PYTHONPATH={ROOT}", file=sys.stderr)
        raise SystemExit(2)
    settings = linter_settings()
    graph = grimp.build_graph(settings["root_package"], cache_dir=None,
                              exclude_type_checking_imports=settings.get("exclude_type_checking_imports", False))
    built = floors(settings)
    return {"floors": floors_block(built), "imports": imports_block(graph, built), "sizes": sizes_block(graph, built)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a block is stale")
    parser.add_argument("--doc", type=Path, default=DOC, help="the page (default: docs/architecture.md)")
    args = parser.parse_args(argv)
    doc = args.doc.resolve()
    shown = doc.relative_to(ROOT) if doc.is_relative_to(ROOT) else doc
    text = doc.read_text()
    wanted = blocks()
    found = {m["name"]: m for m in BLOCK.finditer(text)}
    missing = sorted(set(wanted) - set(found))
    if missing:
        print(f"error: {shown} has no block for {', '.join(missing)} "
              f"(<!-- generated: NAME --> ... <!-- end: NAME -->)", file=sys.stderr)
        return 2
    stale = [name for name in wanted if found[name]["body"] != wanted[name]]
    if args.check:
        for name in stale:
            print(f"{shown}: the {name} block is stale; run python scripts/architecture.py",
                  file=sys.stderr)
        return 1 if stale else 0
    new = BLOCK.sub(lambda m: m[1] + wanted.get(m["name"], m["body"]) + m[4], text)
    if new != text:
        doc.write_text(new)
    print(f"{shown}: " + (f"rewrote {', '.join(stale)}" if stale else "up to date"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
