"""The commands: thin mains that read the command line and the config, build the objects and hand them over.

`python -m translate.train` (train.py), `translate.evaluate` (evaluate.py), `translate.translate` (translate.py) and
`translate.report` (report.py); the short module names are aliases of these."""
