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
# nbgrader's own copies skip these; what reaches students is an allowlist all the same (the lab's
# notebook, checks file and declared data: autograder/release/generate.py and autograder/release/exchange.py below).
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".*"]
c.ClearHiddenTests.begin_test_delimeter = "BEGIN HIDDEN TESTS"
c.ClearHiddenTests.end_test_delimeter = "END HIDDEN TESTS"
# `nbgrader export` adds each submission's status and reason; a failed one is blank, never a zero.
c.ExportApp.plugin_class = "autograder.record.nbgrader_export.StatusCsvExportPlugin"
# `nbgrader release_assignment` (formgrader's Release too) sends students only the lab's notebook,
# its checks file and the data files its spec declares, whatever else lies in labs/<lab>/.
c.ExchangeFactory.release_assignment = "autograder.release.exchange.AllowlistReleaseAssignment"
c.ExchangeFactory.release_feedback = "autograder.release.exchange.FinalNameReleaseFeedback"   # logs the real file
# Feedback and formgrader pages show what students wrote with no script, handler or javascript: URL
# (autograder/record/safe_html.py; `autograder feedback` passes the same on nbgrader's command line).
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.filters = {"markdown2html": "autograder.record.safe_html.Markdown2Html",
                          "strip_files_prefix": "autograder.record.safe_html.strip_files_prefix",
                          "clean_html": "autograder.record.safe_html.clean_html"}
# nbgrader's runs of notebooks (autograde, formgrader's autograde, a student's Validate) wait for the
# kernel's replies without trusting a single wake-up, as every run of the course does: a missed one held
# Lab 4's dashboard cell for its whole timeout on a busy machine (coursekit/app/kernel_client.py).
c.AsyncKernelManager.client_class = "coursekit.app.kernel_client.SteadyKernelClient"
