"""Item analytics on synthetic graded responses with known properties."""
from __future__ import annotations

import pytest

from autograder.quiz import analytics
from autograder.quiz.analytics import item_stats, plot, report
from autograder.record.report import discrimination


def records():
    # Ten students; "good" is answered right exactly by the five strongest (positive discrimination),
    # "inverted" by the five weakest (negative), "easy" by all, "hard" by none.
    rows = []
    for s in range(10):
        strong = s >= 5
        for n in range(6):
            rows.append({"student": f"s{s}", "item": f"filler{n}", "correct": n < (5 if strong else 1) + s % 2,
                         "choice": ["x"]})
        rows.append({"student": f"s{s}", "item": "good", "correct": strong, "choice": ["A" if strong else "B"]})
        rows.append({"student": f"s{s}", "item": "inverted", "correct": not strong, "choice": ["A"]})
        rows.append({"student": f"s{s}", "item": "easy", "correct": True, "choice": ["A"]})
        rows.append({"student": f"s{s}", "item": "hard", "correct": False, "choice": ["C" if s < 3 else "D"]})
    return rows


def test_point_biserial_matches_pearson():
    import numpy as np

    xs, ys = [1, 0, 1, 1, 0], [0.9, 0.2, 0.6, 0.8, 0.4]
    assert discrimination(xs, ys) == pytest.approx(np.corrcoef(xs, ys)[0, 1])
    assert discrimination([1, 1, 1], [0.1, 0.5, 0.9]) is None
    assert analytics.discrimination is discrimination        # one statistic for lab reports and quiz items


def test_item_stats_flags_and_choices(tmp_path):
    stats = {s.item: s for s in item_stats(records())}
    assert stats["good"].p_correct == 0.5 and stats["good"].discrimination > 0.8
    assert stats["inverted"].discrimination < -0.8 and "negative discrimination" in stats["inverted"].flags
    assert stats["easy"].flags == ["everyone right"] and stats["easy"].discrimination is None
    assert stats["hard"].flags == ["everyone wrong"]
    assert stats["hard"].choices == {"C": 3, "D": 7}
    assert stats["good"].choices == {"A": 5, "B": 5}
    text = report(list(stats.values()), students=10)
    assert "10 students" in text and "negative discrimination" in text and "'D': 7" in text
    png = plot(list(stats.values()), tmp_path / "items.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
