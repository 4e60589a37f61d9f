"""What the runs say, by sentence length. buckets.py: the one bucketing rule; run/: one run's length report,
attention maps and pictures; sweep/: many runs aggregated into tables, tests and plots."""
