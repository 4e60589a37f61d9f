"""translate: a French-to-English Transformer trainer for studying positional encodings."""
import os

# Idle OpenMP threads otherwise spin while they wait, taking the cores that other runs of a sweep (or anything
# else on a shared machine) need: measured 4x the CPU time for the same work at model=small (docs/speed.md).
# Set before torch is imported; an explicit OMP_WAIT_POLICY in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

# The config schemas are registered where configs are composed (the command mains, translate.assembly.compose), so
# importing one encoding loads no data pipeline.
