"""Where the YAML option files live (conf/ beside the package): one path for the commands, the composer and the
sweep report, which reads each sweep's plan there."""
from __future__ import annotations

from pathlib import Path

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")
