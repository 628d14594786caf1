"""Make the shared test helpers (``index_repo``) importable from the index tests."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # test helpers live next to the tests
