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


def test_a_test_that_uses_a_slow_start_up_is_left_out_of_the_quick_tier():
    """conftest.SLOW_FIXTURES marks such a test slow whatever its own marks say: the site test below
    has no slow mark of its own, but needs the website built."""
    import subprocess
    import sys

    site_tests = "tests/app/site/test_site.py"
    quick = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "not slow",
                            site_tests], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert quick.returncode == 0, quick.stdout[-2000:] + quick.stderr[-2000:]
    assert "test_a_board_not_of_the_graders_shape_is_named_and_left_out" in quick.stdout, quick.stdout[-2000:]
    assert "test_a_published_leaderboard_is_a_page_the_lab_links_to" not in quick.stdout
