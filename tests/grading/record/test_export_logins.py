"""Canvas's login column for a hub class (autograder/record/export.py): the hub collects with `nbgrader
collect`, which has no roster, so the class's roster (its usernames are the logins) fills it."""
from __future__ import annotations

import pytest

from autograder.record.export import CLASS_ROSTER, logins_from_roster
from coursekit.app.hub import classroom


def test_the_hubs_usernames_are_the_students_logins(tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role,name\nprof,instructor,Prof\nada,student,Ada L\nben,student,\n")
    assert logins_from_roster(roster) == {"ada": "ada", "ben": "ben"}       # students only
    roster.write_text("username,role,sis_login_id\nada,student,ada@uni.example\nben,student,\n")
    assert logins_from_roster(roster) == {"ada": "ada@uni.example", "ben": "ben"}


@pytest.mark.parametrize("text", ["student_id,name\nada,Ada\n", ""])
def test_a_file_that_is_not_a_roster_is_named(tmp_path, text):
    roster = tmp_path / "grades.csv"
    roster.write_text(text)
    with pytest.raises(ValueError, match="grades.csv: no `username` column"):
        logins_from_roster(roster)


def test_the_hub_writes_the_roster_where_the_export_reads_it():
    assert classroom.CLASS_ROSTER == CLASS_ROSTER
