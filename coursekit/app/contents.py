"""Lessons stay as the course shipped them: the student server serves course material read-only.

JupyterLab autosaved an executed lesson (a tracked file) within two minutes of Run All, and the next
`git pull` of the course then refused: "Your local changes ... would be overwritten". Student mode
(`coursekit/app/jupyter-student/jupyter_server_config.json`) uses this contents manager: files under the
course's own folders report `writable: false`, so JupyterLab never autosaves them (Ctrl+S offers
Save As), and a save request for one is refused with a message saying where to keep a copy.
A learner's own work lives in `work/` (lab copies) or anywhere outside these folders.

It also keeps instructor material out of the student's file browser (listings only; an
open course's files still exist): graded labs' solutions, the grader, the hint and worked-answer texts.
"""
from __future__ import annotations

from fnmatch import fnmatch

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado.web import HTTPError

READ_ONLY_FOLDERS = ("course", "labs", "solutions")   # replaced by course updates (`git pull`)
INSTRUCTOR_MATERIAL = ["solutions", "autograder", "hint_texts.yaml", "instructor-secret", "gradebook.db"]


def is_course_material(path: str) -> bool:
    """Whether `path` (relative to the course root, as the contents API names it) is a file in a
    folder that course updates replace."""
    parts = [p for p in path.strip("/").split("/") if p]
    return len(parts) > 1 and parts[0] in READ_ONLY_FOLDERS


class CourseContentsManager(AsyncLargeFileManager):
    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if model.get("type") != "directory" and is_course_material(path):
            model["writable"] = False
        return model

    def should_list(self, name):
        return super().should_list(name) and not any(fnmatch(name, glob) for glob in INSTRUCTOR_MATERIAL)

    async def save(self, model, path=""):
        if model.get("type") != "directory" and is_course_material(path):
            raise HTTPError(403, f"{path} is course material and stays as shipped, so `git pull` can update it: "
                                 "use File > Save Notebook As... to keep your own copy in work/")
        return await super().save(model, path)
