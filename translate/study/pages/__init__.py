"""The pages that show this study's results: docs/results.md, docs/encodings_results.md, the README's generated
blocks and the forest plot of the verdicts."""
