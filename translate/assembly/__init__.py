"""The floor above the sections: it assembles a run from them. Typed `RunSettings` and start-up checks (settings.py),
one builder per component a config names by `_target_` (components.py), the data's fit to the encoding (fit.py), the
schemas registered in Hydra's ConfigStore (schemas.py), the one way to compose a config (compose.py), the composition
root that builds the Trainer (trainer.py) and a trained model from its checkpoint (trained.py). Nothing below imports
it."""
