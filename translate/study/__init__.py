"""This study of positional encodings, on top of the trainer: the source notes' claims and their verdicts
(`verdicts/`), the pages that show them (`pages/`: docs/results.md, docs/encodings_results.md, the README's generated
blocks), and the steps that make and keep the committed runs (`commands/`, run as `python -m translate.study`).

The general trainer and its sweep reporter (translate.analysis) know nothing of this package: it reads what they
write, through their types."""
