"""A Sphinx extension for the course site: each page's long title names its module, so a search result
(and a browser tab) reads "Module 3: Inference chips › Lesson 2: The KV cache", not one of five
"Lesson 2"s. The sidebar keeps the short titles under its module captions.

conf.py sets `course_page_modules`, {docname: module caption} (coursekit/app/site/build.py writes it).
"""
from __future__ import annotations

from docutils import nodes

SEPARATOR = " › "


def name_the_module(app, doctree) -> None:
    docname = app.env.docname
    module = app.config.course_page_modules.get(docname)
    title = app.env.titles.get(docname)
    if not module or title is None or title.astext().startswith(module):
        return
    app.env.longtitles[docname] = nodes.title("", module + SEPARATOR + title.astext())


def setup(app):
    app.add_config_value("course_page_modules", {}, "env")
    # After Sphinx's own title collector (priority 500), which sets the long title from the first heading.
    app.connect("doctree-read", name_the_module, priority=600)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
