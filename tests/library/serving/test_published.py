"""The reference engine's published numbers are read from the recorded benchmark (benchmarks/RESULTS.md),
their one home (issue 53), and a table of the wrong shape is named, never half-read."""
from __future__ import annotations

import pytest

from coursekit.serving import published
from paths import ROOT

RESULTS = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")


def test_the_line_a_learner_sees_carries_the_recorded_ratio():
    ratios = published.read_ratios(RESULTS)
    assert sorted(ratios) == [1, 2, 3, 4] and all(0 < r < 100 for r in ratios.values())
    line = published.published_line(4)
    assert f"{ratios[4]:.2f}x the naive engine" in line and "benchmarks/RESULTS.md" in line


def test_a_new_recorded_run_changes_what_is_published():
    changed = RESULTS.replace("| m4 speculative | 1003.0 | 7.22x |", "| m4 speculative | 1003.0 | 9.99x |")
    assert changed != RESULTS, "the recorded row moved: update this test's edit"
    assert published.read_ratios(changed)[4] == pytest.approx(9.99)


@pytest.mark.parametrize("edit, words", [
    (lambda t: t.replace(published.SECTION, "## Another section"), "no section"),
    (lambda t: t.replace(published.COLUMN, "x naive"), "no column"),
    (lambda t: t.replace("| m3 chunked+prefix |", "| chunked+prefix |"), "not 1-4"),
    (lambda t: t.replace("| m2 continuous | 1029.3 | 7.52x |", "| m2 continuous | 1029.3 | fast |"), "not a ratio"),
])
def test_a_table_of_another_shape_is_named(edit, words):
    with pytest.raises(published.PublishedError, match=words) as caught:
        published.read_ratios(edit(RESULTS))
    assert "RESULTS.md" in str(caught.value)
