"""nbgrader's feedback page for one notebook, made the way `generate_feedback` makes it: what the feedback
safety and accessibility tests look at without a whole grading run."""
from __future__ import annotations

import nbformat


def feedback_page(notebook: str, config) -> str:
    """nbgrader's feedback template on `notebook`, as `generate_feedback` runs it, under `config`."""
    from nbconvert.exporters import HTMLExporter
    from nbgrader.converters import GenerateFeedback

    config.merge(GenerateFeedback().config)            # its template, where nbgrader keeps it
    resources = {"nbgrader": {"notebook": "lab", "score": 1, "max_score": 2, "late_penalty": 0}}
    return HTMLExporter(config=config).from_notebook_node(nbformat.reads(notebook, as_version=4), resources=resources)[0]
