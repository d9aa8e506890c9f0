"""conftest.py names test files by path to schedule them (HUB_FILES and SITE_FILES share a worker) and
starts the longest first by the seconds tests/durations.json records: a file moved or renamed without its
entry there would silently lose its place, so every path they name must exist."""
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest

import conftest
import durations
from paths import ROOT


@pytest.mark.parametrize("name", ["HUB_FILES", "SITE_FILES"])
def test_every_scheduled_file_exists(name):
    paths = getattr(conftest, name)
    missing = [path for path in paths if not (ROOT / path).is_file()]
    assert not missing, f"conftest.{name} names files that do not exist: {missing}"
    assert len(set(paths)) == len(paths), f"conftest.{name} names a file twice"


def test_the_durations_table_names_existing_files_and_its_longest_run_first():
    seconds = durations.load()
    missing = [path for path in seconds if not (ROOT / path).is_file()]
    assert seconds and not missing, f"tests/durations.json names files that do not exist: {missing}"
    assert all(s >= 0 for s in seconds.values())


def test_units_run_longest_first_and_unknown_files_keep_their_order():
    def unit_of(nodeid: str) -> str:
        path = nodeid.split("::")[0]
        return "pair" if path in ("a.py", "c.py") else path

    nodeids = ["a.py::t1", "b.py::t1", "b.py::t2", "c.py::t1", "new.py::t1", "d.py::t1", "old.py::t1", "a.py::t2"]
    seconds = {"a.py": 10, "b.py": 25, "c.py": 20, "d.py": 5}
    assert durations.longest_first(nodeids, seconds, unit_of) == [
        "a.py::t1", "c.py::t1", "a.py::t2",       # the pair's files are one unit: 30 s
        "b.py::t1", "b.py::t2", "d.py::t1",        # then 25 s, then 5 s
        "new.py::t1", "old.py::t1"]                 # not in the table: their own order, last


def test_per_file_sums_every_phase_and_merge_keeps_what_did_not_run(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("ran.py", "kept.py"):
        (tmp_path / "tests" / name).write_text("")
    table = tmp_path / "durations.json"
    table.write_text(json.dumps({"seconds": {"tests/kept.py": 7.0, "tests/ran.py": 1.0, "tests/gone.py": 9.0}}))
    reports = [SimpleNamespace(nodeid=f"tests/ran.py::t{n}", duration=d) for n, d in ((1, 0.5), (1, 2.0), (2, 1.25))]
    assert durations.per_file(reports) == {"tests/ran.py": 3.75}
    merged = durations.merge(durations.per_file(reports), tmp_path, table)
    assert merged == {"tests/kept.py": 7.0, "tests/ran.py": 3.8} == durations.load(table)   # gone.py left


def test_an_unreadable_table_orders_nothing(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    assert durations.load(tmp_path / "bad.json") == {} == durations.load(tmp_path / "missing.json")


@pytest.mark.slow
def test_store_durations_under_xdist_records_the_files_that_ran(tmp_path):
    """The controller collects the workers' reports: both files of a two-worker run are in the table."""
    table = tmp_path / "durations.json"
    files = ["tests/house/test_package_layout.py", "tests/house/test_run_once.py"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider",
                           "--store-durations", f"--durations-table={table}", *files],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    recorded = json.loads(table.read_text())
    assert set(recorded["seconds"]) == set(files) and "--store-durations" in recorded["note"], recorded


def test_a_test_that_uses_a_slow_start_up_is_left_out_of_the_quick_tier():
    """conftest.SLOW_FIXTURES marks such a test slow whatever its own marks say: the site test below
    has no slow mark of its own, but needs the website built."""
    site_tests = "tests/app/site/test_site.py"
    quick = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-m", "not slow",
                            site_tests], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert quick.returncode == 0, quick.stdout[-2000:] + quick.stderr[-2000:]
    assert "test_a_board_not_of_the_graders_shape_is_named_and_left_out" in quick.stdout, quick.stdout[-2000:]
    assert "test_a_published_leaderboard_is_a_page_the_lab_links_to" not in quick.stdout
