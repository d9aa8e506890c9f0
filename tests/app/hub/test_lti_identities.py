"""Course accounts bound to the LMS person who first claimed them (coursekit/app/hub/lti/identities.py):
the same person again is fine, another person (another `sub`, or another platform) is refused with both
ids named, the binding outlives the process, and the admin's `release` frees a name. Launches through a
real hub: tests/app/hub/test_hub_lti_identity.py."""
from __future__ import annotations

import subprocess
import sys

import pytest

from coursekit.app.hub.lti.identities import Identities, IdentityTaken

LMS = "https://canvas.example"


@pytest.fixture
def data(tmp_path):
    (tmp_path / "lti").mkdir()
    return tmp_path


def test_a_name_stays_with_the_lms_person_who_first_claimed_it(data):
    assert Identities(data).bind("ada", LMS, "u-1") is True
    assert Identities(data).bind("ada", LMS, "u-1") is False            # the same person, a new process
    with pytest.raises(IdentityTaken, match="'u-1'.*'u-2'"):
        Identities(data).bind("ada", LMS, "u-2")
    with pytest.raises(IdentityTaken):
        Identities(data).bind("ada", "https://moodle.example", "u-1")   # the same sub on another platform
    with pytest.raises(IdentityTaken, match="no user id"):
        Identities(data).bind("bob", LMS, ["u-3"])
    assert Identities(data).owner("ada") == (LMS, "u-1") and Identities(data).owner("bob") is None


def test_the_admin_lists_and_releases_a_binding(data):
    Identities(data).bind("ada", LMS, "u-1")
    command = [sys.executable, "-m", "coursekit.app.hub.lti.identities", str(data)]
    listed = subprocess.run(command + ["list"], capture_output=True, text=True, timeout=60, check=False)
    assert listed.returncode == 0 and listed.stdout.split() == ["ada", "u-1", LMS]
    freed = subprocess.run(command + ["release", "ada"], capture_output=True, text=True, timeout=60, check=False)
    assert freed.returncode == 0 and "released" in freed.stdout
    assert Identities(data).bind("ada", LMS, "u-2") is True             # the next person to launch gets it
    again = subprocess.run(command + ["release", "eve"], capture_output=True, text=True, timeout=60, check=False)
    assert again.returncode == 1 and "not bound" in again.stderr


def test_a_roster_account_goes_only_to_an_lms_person_of_the_rosters_rank():
    from coursekit.app.hub.lti.identities import roster_conflict

    assert roster_conflict("ada", None, "student") is None               # not in the roster: the LMS decides
    assert roster_conflict("ada", "student", "student") is None
    assert roster_conflict("prof", "instructor", "instructor") is None
    assert roster_conflict("prof", "instructor", "ta") is None
    student_as_prof = roster_conflict("prof", "instructor", "student")
    assert "roster's instructor, and the LMS says this person is a student" in student_as_prof
    instructor_as_ada = roster_conflict("ada", "student", "instructor")
    assert "roster's student, and the LMS says this person is an instructor" in instructor_as_ada


def test_people_admitted_before_bindings_existed_are_bound_to_their_recorded_lms_id(data):
    Identities(data).bind("bob", LMS, "u-bob-new")
    people = {"ada": {"role": "student", "user_id": "u-ada"}, "bob": {"role": "ta", "user_id": "u-bob"},
              "cy": {"role": "student"}}
    assert Identities(data).adopt(people, LMS) == ["ada"]
    assert Identities(data).owner("ada") == (LMS, "u-ada")
    assert Identities(data).owner("bob") == (LMS, "u-bob-new") and Identities(data).owner("cy") is None
    assert Identities(data).adopt(people, LMS) == []            # each hub start: nothing new
