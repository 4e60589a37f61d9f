"""The ground floor of settings: field rules (fields.py) and the one error wording (errors.py). Every section imports
it; it imports no section. A whole run is typed and checked one floor up, in translate.assembly."""
from translate.config.errors import ConfigError

__all__ = ["ConfigError"]
