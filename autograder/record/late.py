"""Late submissions, the nbgrader way: the due date is the gradebook's (`nbgrader db assignment add
LAB --duedate "2026-12-01 17:00:00 UTC"`, per-student extensions with nbgrader's own tools), the
submission time is timestamp.txt (written by `collect` or nbgrader's exchange), and the penalty is
what the course's configured LateSubmissionPlugin returns, as in `nbgrader autograde`:

    c.LateSubmissionPlugin.penalty_method = "zero"            # nbgrader's built-in: late scores 0
    c.AssignLatePenalties.plugin_class = "autograder.record.late.PerDayPenalty"
    c.PerDayPenalty.fraction_per_day = 0.1                    # 10% of the score per day or part of one
"""
from __future__ import annotations

import math

from nbgrader.plugins import LateSubmissionPlugin
from traitlets import Float

from autograder.course import Course


class PerDayPenalty(LateSubmissionPlugin):
    """A fraction of the score per started day late (a common course policy nbgrader leaves to plugins)."""

    fraction_per_day = Float(0.1, help="fraction of the score taken per day, or part of a day, late").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        days = math.ceil(total_seconds_late / 86400)
        return min(score, score * self.fraction_per_day * days)


class LatePolicy:
    """The course's nbgrader late-penalty configuration, applied to one gradebook submission at a time."""

    def __init__(self, config):
        from nbgrader.preprocessors import AssignLatePenalties

        self.applier = AssignLatePenalties(config=config)
        self.applier.init_plugin()

    @staticmethod
    def applies(assignment) -> bool:
        return assignment.duedate is not None

    def penalty(self, submission, notebook) -> float | None:
        """The penalty for a late submission (kept between 0 and its score, as nbgrader does), else None."""
        seconds = submission.total_seconds_late
        if seconds <= 0:
            return None
        penalty = self.applier.plugin_inst.late_submission_penalty(submission.student.id, notebook.score, seconds)
        return None if penalty is None else self.applier._check_late_penalty(notebook, penalty)


def late_policy(course: Course) -> LatePolicy:
    from traitlets.config.loader import PyFileConfigLoader

    return LatePolicy(PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config())
