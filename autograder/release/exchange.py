"""nbgrader's release to the exchange, limited to the release allowlist (docs/INSTRUCTORS.md).

`nbgrader release_assignment` (and formgrader's Release button, and the hub's instructor) copies
the whole of labs/<lab>/ to the exchange, filtered only by `CourseDirectory.ignore`. The course's
nbgrader_config.py plugs this class in instead, so whatever sits in labs/<lab>/ (a file dropped there
by hand, or by formgrader's Generate, which copies every file of solutions/<lab>/), only the files
`autograder generate` would release reach students; every other one is named in the log.

A lab the gradebook does not know (released from labs/ as committed, without `autograder generate` or
nbgrader's Generate) is refused here, at release time, with the fix: students would otherwise fetch and
submit work the grader then refuses.
"""
from __future__ import annotations

import logging
import os
import shutil
import stat
from pathlib import Path, PurePosixPath

from nbgrader.exchange.default import ExchangeReleaseAssignment, ExchangeReleaseFeedback


class AllowlistReleaseAssignment(ExchangeReleaseAssignment):
    def do_copy(self, src, dest, log=None):
        from autograder.course import Course
        from autograder.record.gradebook import gradebook_problem
        from autograder.release.generate import release_files

        lab = self.coursedir.assignment_id
        try:
            course = Course.find(self.coursedir.root)
            allowed = release_files(course, lab)
            problem = gradebook_problem(course, course.spec(lab))
        except Exception as error:     # noqa: BLE001  (no spec, a bad data entry: release nothing)
            self.fail(f"not releasing {lab}: its release files cannot be determined ({error})")
        if problem:
            self.fail(f"not releasing {lab}: {problem}")
        source = Path(src)
        for folder, dirs, files in os.walk(source):
            for name in sorted(files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]):
                rel = PurePosixPath((Path(folder) / name).relative_to(source).as_posix())
                if rel not in allowed:
                    self.log.warning("not released: %s (only %s go to students)", Path(folder) / name,
                                     ", ".join(sorted(map(str, allowed))))
        os.makedirs(dest, exist_ok=True)
        for rel in sorted(allowed, key=str):
            path = source / str(rel)
            if not os.path.lexists(path):
                self.fail(f"{path} is missing: run `autograder generate {lab}` first")
            if not stat.S_ISREG(os.lstat(path).st_mode):
                self.fail(f"{path} is not a regular file: run `autograder generate {lab}` again")
            target = Path(dest) / str(rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NOFOLLOW)) as reader, \
                    open(target, "wb") as writer:
                shutil.copyfileobj(reader, writer)


class _FinalName(logging.Filter):
    """nbgrader's release_feedback copies each page to `<hash>-tmp.html`, moves it to `<hash>.html`, then
    logs the first name ("Feedback released to: ...-tmp.html", a file that no longer exists)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith("Feedback released to: "):
            record.msg = record.msg.replace("-tmp.html", ".html")
        return True


class FinalNameReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's feedback release, whose log names the page a student fetches."""

    def copy_files(self):
        fix = _FinalName()
        self.log.addFilter(fix)
        try:
            return super().copy_files()
        finally:
            self.log.removeFilter(fix)
