"""coursekit.app.modes: student mode adds the course's own config folder to the server's
JUPYTER_CONFIG_PATH (never the user's config); instructor mode and tools that report what is
installed go without it."""
from __future__ import annotations

import json
import os

import pytest

from coursekit.app.modes import STUDENT_CONFIG, mode_env, without_mode_config


def test_student_mode_puts_the_course_config_first_and_keeps_the_users_path():
    env = mode_env("student", {"JUPYTER_CONFIG_PATH": "/etc/site-jupyter", "HOME": "/home/s"})
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep) == [str(STUDENT_CONFIG), "/etc/site-jupyter"]
    assert env["HOME"] == "/home/s" and "JUPYTER_CONFIG_DIR" not in env
    assert mode_env("student", env)["JUPYTER_CONFIG_PATH"] == env["JUPYTER_CONFIG_PATH"]   # not twice


def test_instructor_mode_and_doctor_drop_the_student_config():
    student = mode_env("student", {})
    assert "JUPYTER_CONFIG_PATH" not in mode_env("instructor", student)
    assert "JUPYTER_CONFIG_PATH" not in without_mode_config(student)
    with pytest.raises(ValueError, match="unknown mode 'teacher'"):
        mode_env("teacher", {})


def test_student_config_hides_instructor_tools_and_keeps_student_ones():
    disabled = json.loads((STUDENT_CONFIG / "labconfig" / "page_config.json").read_text())["disabledExtensions"]
    assert {"@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:create-assignment"} <= set(disabled)
    assert not {"@jupyter/nbgrader:assignment-list", "@jupyter/nbgrader:validate-assignment"} & set(disabled)
    server = json.loads((STUDENT_CONFIG / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["jpserver_extensions"]["nbgrader.server_extensions.formgrader"] is False


@pytest.mark.slow
def test_doctor_in_a_student_mode_terminal_reports_the_install_not_the_mode(monkeypatch):
    """A course terminal inherits the student server's JUPYTER_CONFIG_PATH; the doctor still checks
    what is installed, where every nbgrader plugin is on."""
    from coursekit.app.doctor import check_lab_extensions, check_server_extension

    monkeypatch.setenv("JUPYTER_CONFIG_PATH", mode_env("student", {})["JUPYTER_CONFIG_PATH"])
    assert all(c.ok for c in check_lab_extensions()), check_lab_extensions()
    assert check_server_extension().ok


def test_student_mode_serves_course_material_read_only():
    from coursekit.app.contents import is_course_material
    config = json.loads((STUDENT_CONFIG / "jupyter_server_config.json").read_text())
    assert config["ServerApp"]["contents_manager_class"] == "coursekit.app.contents.CourseContentsManager"
    assert is_course_material("course/m1-training-vs-inference/01-what-each-does.ipynb")
    assert is_course_material("/labs/lab1-roofline/lab1-roofline.ipynb") and is_course_material("solutions/x/y.ipynb")
    # the learner's own places stay writable, and so do the folders themselves
    assert not any(map(is_course_material, ["work/lab1-roofline/lab1-roofline.ipynb", "course", "notes.ipynb",
                                            "coursework/a.ipynb"]))
