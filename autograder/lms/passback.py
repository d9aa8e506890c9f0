"""`autograder lms post LAB`: every student's score to the lab's line item through AGS.

Every student the LMS lists as a learner, and everyone with a submission, ends in one of:
  posted     the LMS accepted the score now
  unchanged  the LMS already holds exactly this score from an earlier run: nothing is sent
  skipped    with a reason: no submission, not yet graded, not in the LMS
  failed     with a reason (the LMS's answer, a timeout); the next run tries again
A dry run computes the same table and sends and records nothing.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

from autograder.course import Course
from autograder.lms.ledger import Ledger
from autograder.record.outgoing import standings
from autograder.record.tables import table
from coursekit.app.lti.client import LmsClient, LmsError
from coursekit.app.lti.names import LtiNameError, unix_name
from coursekit.app.lti.platform import Platform
from coursekit.app.lti.roles import is_learner

GIVE_UP_AFTER = 3     # consecutive transient failures: the LMS is down; the rest wait for the next run


@dataclass
class Outcome:
    student_id: str
    state: str            # posted | unchanged | skipped | failed | would post (dry run)
    detail: str = ""


@dataclass
class Report:
    lab: str
    lineitem: str = ""
    outcomes: list[Outcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def count(self, state: str) -> int:
        return sum(1 for o in self.outcomes if o.state == state)

    @property
    def failed(self) -> int:
        return self.count("failed")

    def render(self) -> str:
        states = ("would post", "posted", "unchanged", "skipped", "failed")
        rows = [[o.student_id, o.state, o.detail] for o in sorted(self.outcomes, key=lambda o: (states.index(o.state), o.student_id))]
        counts = ", ".join(f"{self.count(s)} {s}" for s in states if self.count(s) or s != "would post")
        head = [f"{self.lab} -> {self.lineitem or '(no line item yet)'}"] + [f"note: {n}" for n in self.notes]
        return "\n".join(head + [table(["student", "state", "detail"], rows), f"{self.lab}: {counts}"])


def comment(lab: str, penalty: float) -> str:
    late = f" Late penalty: {penalty:g} points taken off." if penalty else ""
    return (f"Graded by the course's autograder.{late} Your feedback: in the course's JupyterLab, "
            f"Assignments panel, {lab}, Fetch Feedback.")


def _who(member: dict) -> str:
    return f"{member.get('name') or '(no name)'} (user id {member.get('user_id')!r})"


def roster(client: LmsClient, platform: Platform) -> tuple[dict[str, str], set[str], list[str], dict[str, str]]:
    """(unix name -> LTI user id, the unix names of learners, notes, unix name -> why nothing is sent to it)
    from NRPS. Two active members whose username claims map to one name are never resolved by picking one
    (a grade could go to the wrong person): that name is listed as ambiguous, naming both."""
    names, learners, notes, ambiguous, seen = {}, set(), [], {}, {}
    for member in client.members():
        if member.get("status", "Active") != "Active":
            continue
        try:
            name = unix_name(member, platform.username_claim)
        except LtiNameError as error:
            notes.append(f"LMS member {member.get('name') or member.get('user_id')}: {error}")
            continue
        if name in seen and seen[name].get("user_id") != member.get("user_id"):
            ambiguous[name] = (f"two LMS members map to the username {name!r}: {_who(seen[name])} and "
                               f"{_who(member)}; nothing is sent to either: give one of them another "
                               "username in the LMS (docs/LMS.md, section 3)")
            continue
        seen[name] = member
        names[name] = member["user_id"]
        if is_learner(member.get("roles")):
            learners.add(name)
    for name, why in ambiguous.items():
        names.pop(name, None)
        learners.add(name)
        notes.append(why)
    return names, learners, notes, ambiguous


def lineitem_for(client: LmsClient, platform: Platform, ledger: Ledger, course: Course, lab: str, maximum: float,
                 dry_run: bool) -> str:
    """The lab's line item: from Deep Linking / the settings, else the one made earlier, else found by tag
    or made now (tag and resourceId = the lab id, so a rerun finds it instead of making a second)."""
    url = platform.lineitem_urls.get(lab) or ledger.lineitem(lab)
    if url:
        return url
    found = client.find_lineitem(lab)
    if found is None:
        if dry_run:
            return ""
        found = client.create_lineitem(lab, lab, maximum)
    ledger.set_lineitem(lab, found["id"])
    return found["id"]


def post(course: Course, platform: Platform, keys_file, lab: str, dry_run: bool = False, log=None) -> Report:
    report = Report(lab)
    people = standings(course, lab)
    client = LmsClient(platform, keys_file)
    names, learners, report.notes, ambiguous = roster(client, platform)
    maximum = next(iter(people.values())).maximum if people else float(course.spec(lab).total_points)
    with Ledger(course.state / "lms.sqlite") as ledger:
        report.lineitem = lineitem_for(client, platform, ledger, course, lab, maximum, dry_run)
        streak, down = 0, ""
        for student in sorted(set(people) | learners):
            standing = people.get(student)
            if student in ambiguous:
                outcome = Outcome(student, "failed", ambiguous[student])
            elif student not in names:
                outcome = Outcome(student, "skipped", "not in the LMS (no active member with this username)")
            elif standing is None:
                outcome = Outcome(student, "skipped", "no submission")
            elif standing.score is None:
                outcome = Outcome(student, "skipped", standing.reason)
            else:
                score = {"userId": names[student], "scoreGiven": round(standing.score, 4),
                         "scoreMaximum": standing.maximum, "activityProgress": "Completed",
                         "gradingProgress": "FullyGraded", "comment": comment(lab, standing.penalty)}
                payload = json.dumps({**score, "lineitem": report.lineitem}, sort_keys=True)
                shown = f"{score['scoreGiven']:g}/{standing.maximum:g}" + (f" (late -{standing.penalty:g})" if standing.penalty else "")
                if ledger.posted_payload(lab, student) == payload:
                    outcome = Outcome(student, "unchanged", shown)
                elif dry_run:
                    outcome = Outcome(student, "would post", shown)
                elif down:
                    outcome = Outcome(student, "failed", f"not tried: {down}")
                else:
                    try:
                        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds")
                        client.post_score(report.lineitem, {**score, "timestamp": stamp})
                        outcome, streak = Outcome(student, "posted", shown), 0
                    except LmsError as error:
                        outcome = Outcome(student, "failed", error.reason)
                        streak = streak + 1 if error.transient else 0
                        if streak >= GIVE_UP_AFTER:
                            down = f"the LMS failed {streak} times in a row ({error.reason})"
                    if not dry_run:
                        ledger.record(lab, student, "posted" if outcome.state == "posted" else "failed",
                                      payload if outcome.state == "posted" else None,
                                      None if outcome.state == "posted" else outcome.detail, report.lineitem)
            if outcome.state == "skipped" and not dry_run:
                ledger.record(lab, student, "skipped", reason=outcome.detail, lineitem=report.lineitem)
            report.outcomes.append(outcome)
            if log:
                log(outcome)
    return report
