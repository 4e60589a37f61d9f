"""`python -m translate.report SWEEP_DIR`: an alias of :mod:`translate.cli.report`; the sweep report itself lives in
:mod:`translate.analysis.sweep`."""
