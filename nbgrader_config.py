"""nbgrader configuration: solutions/ is the source, labs/ the release (student versions)."""
import os

c = get_config()  # noqa: F821  (injected by nbgrader)

here = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.root = here
c.CourseDirectory.course_id = "llm-train-vs-infer"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "labs"
c.CourseDirectory.submitted_directory = "submitted"
c.CourseDirectory.autograded_directory = "autograded"
c.CourseDirectory.feedback_directory = "feedback"
c.CourseDirectory.db_url = "sqlite:///" + os.path.join(here, "gradebook.db")
# Python helpers and caches in solutions/<lab>/ never travel to students.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*"]
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
# `nbgrader export` adds each submission's status and reason; a failed one is blank, never a zero.
c.ExportApp.plugin_class = "autograder.nbgrader_export.StatusCsvExportPlugin"
