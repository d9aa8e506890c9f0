"""conftest.py names test files by path to schedule them (HUB_FILES and SITE_FILES share a worker,
LONGEST start first): a file moved or renamed without its entry there would silently lose its place,
so every path they name must exist."""
import pytest

import conftest
from paths import ROOT


@pytest.mark.parametrize("name", ["HUB_FILES", "SITE_FILES", "LONGEST"])
def test_every_scheduled_file_exists(name):
    paths = getattr(conftest, name)
    missing = [path for path in paths if not (ROOT / path).is_file()]
    assert not missing, f"conftest.{name} names files that do not exist: {missing}"
    assert len(set(paths)) == len(paths), f"conftest.{name} names a file twice"
