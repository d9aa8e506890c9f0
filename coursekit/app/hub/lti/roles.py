"""LTI roles -> the course's roles. Only context (course membership) roles count: an institution role
("Instructor at the university") does not make anyone an instructor of this course.

    instructor  membership#Instructor, membership#Administrator, membership#ContentDeveloper
    ta          membership/Instructor#TeachingAssistant (wins over Instructor, which LMSs often send with it)
    student     membership#Learner (and its sub-roles)

A launch with none of them is refused: the hub never guesses a role.
"""
from __future__ import annotations

MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
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
