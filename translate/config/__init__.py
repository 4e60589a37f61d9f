"""Settings: typed dataclasses beside the code they configure (model/config.py, training/config.py, ...), checked
when built; ConfigStore registration (store.py); start-up validation of a whole run (validate.py)."""
from translate.config.errors import ConfigError

__all__ = ["ConfigError", "validate_config", "check_data_fits", "check_fits", "RunSettings", "typed"]


def __getattr__(name: str):
    """validate.py imports the sections' dataclasses, which import translate.config.fields: loaded on first use."""
    if name in __all__:
        from translate.config import validate

        return getattr(validate, name)
    raise AttributeError(name)
