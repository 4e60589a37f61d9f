"""`python -m translate.train`: runs :mod:`translate.cli.train`, which holds the command (this short name is an alias)."""
import runpy

if __name__ == "__main__":
    runpy.run_module("translate.cli.train", run_name="__main__", alter_sys=True)
