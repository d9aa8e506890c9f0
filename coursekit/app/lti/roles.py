"""LTI roles -> the course's roles. Only context (course membership) roles count: an institution role
("Instructor at the university") does not make anyone an instructor of this course.

    instructor  membership#Instructor, membership#Administrator, membership#ContentDeveloper
    ta          membership/Instructor#TeachingAssistant (wins over Instructor, which LMSs often send with it,
                and over Learner: a TA is graded by no one here)
    student     membership#Learner and its sub-roles (membership/Learner#NonCreditLearner, ...)

A launch with none of them is refused: the hub never guesses a role. The same rule picks the learners
passback posts to (`is_learner`), so the hub's students and the gradebook's are one set.
"""
from __future__ import annotations

from coursekit.app.lti.claims import MEMBERSHIP

INSTRUCTOR = {f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#Administrator", f"{MEMBERSHIP}#ContentDeveloper"}
TA = f"{MEMBERSHIP}/Instructor#TeachingAssistant"
LEARNER = f"{MEMBERSHIP}#Learner"
SHORT = {"Instructor": f"{MEMBERSHIP}#Instructor", "Learner": LEARNER, "Administrator": f"{MEMBERSHIP}#Administrator"}


def course_role(roles) -> str | None:
    """'instructor', 'ta', 'student', or None when no role of this course is among `roles`."""
    full = {SHORT.get(r, r) for r in roles or [] if isinstance(r, str)}
    if TA in full:
        return "ta"
    if full & INSTRUCTOR:
        return "instructor"
    if any(r == LEARNER or r.startswith(f"{MEMBERSHIP}/Learner#") for r in full):
        return "student"
    return None


def is_learner(roles) -> bool:
    """A student of this course, by the one rule above (the hub's launches, roster sync and passback)."""
    return course_role(roles) == "student"
