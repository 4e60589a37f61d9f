"""`python -m translate.evaluate`: runs :mod:`translate.cli.evaluate`, which holds the command (this short name is an alias)."""
import runpy

if __name__ == "__main__":
    runpy.run_module("translate.cli.evaluate", run_name="__main__", alter_sys=True)
