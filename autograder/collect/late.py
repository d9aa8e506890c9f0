"""Moved to autograder/record/late.py (late penalties live with the gradebook). An nbgrader_config.py
written before the move names `autograder.collect.late.PerDayPenalty`; it keeps working."""
from autograder.record.late import PerDayPenalty, late_policy  # noqa: F401  (the old dotted names)
