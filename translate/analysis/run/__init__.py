"""Reports by sentence length: per-bucket BLEU/chrF with bootstrap intervals, attention maps and
alignment numbers per bucket, pictures of the positional encoding. Plugged into training as a callback
(:mod:`translate.analysis.run.callback`) and into ``translate.evaluate`` through :func:`report_split.report_split`."""
