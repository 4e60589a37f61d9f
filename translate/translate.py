"""`python -m translate.translate`: runs :mod:`translate.cli.translate`, which holds the command (this short name is an alias)."""
import runpy

if __name__ == "__main__":
    runpy.run_module("translate.cli.translate", run_name="__main__", alter_sys=True)
