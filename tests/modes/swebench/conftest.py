"""Make the SWE-bench test helpers (``swebench_case``) importable and register its fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # test helpers live next to the tests

from swebench_case import calc_batch, calc_world, settings

__all__ = ["calc_batch", "calc_world", "settings"]
