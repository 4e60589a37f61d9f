"""The training loop over finished objects: the Trainer (trainer.py) with each epoch's batches (batch_plan.py),
validation (validator.py), progress and budgets (progress.py), the checkpoint format and resume (checkpoint.py),
callbacks, loss, schedule, compilation, DDP, the device and the console. Its settings: TrainConfig (config.py)."""
