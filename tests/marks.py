"""Skip marks that several test files share, written once so their reasons read the same."""
import os

import pytest

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the full sandbox needs root (see docs/SANDBOX.md)")
