"""The floor above the sections: it assembles a run from them. Typed `RunSettings` and start-up checks
(settings.py), the schemas registered in Hydra's ConfigStore (schemas.py), the one way to compose a config
(compose.py) and the composition root that builds the Trainer (trainer.py). Nothing below imports it."""
