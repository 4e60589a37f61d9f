"""python -m translate.study COMMAND [ARGS]: the study's steps (translate/study/commands/). `--help` after a command
gives its own help."""
from __future__ import annotations

import argparse
import sys

from translate.study.commands import COMMANDS


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {module.__doc__.strip().splitlines()[0]}" for name, module in COMMANDS.items()]
    return "usage: python -m translate.study COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        print(f"error: {name!r} is not a command of translate.study; allowed: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    module = COMMANDS[name]
    parser = argparse.ArgumentParser(prog=f"python -m translate.study {name}", description=module.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    module.add_arguments(parser)
    # intermixed: a command's free overrides may come before or after its options (ablate-at-test's)
    return module.run(parser.parse_intermixed_args(rest))


if __name__ == "__main__":
    sys.exit(main())
