"""A student's markdown, raw cells and outputs reach no course page able to run them.

A submission carrying the XSS cheat-sheet's vectors goes through the real `autograder collect /
grade / feedback`; the feedback page, the formgrader's view of the graded notebook, and plain
`nbgrader generate_feedback` on a notebook that kept its outputs are parsed (html.parser, not the
course's own checker): no script, handler, frame, plug-in or `javascript:` URL from the student
survives, MathJax's own scripts do, and the honest cell's math, table, images and links render.
"""
from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from nbgrader_feedback import feedback_page
from pipeline_course import LAB, NB, ROOT, cli, env, notebook_text

PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
HONEST = f"""## Results of the sweep

The energy is $E = mc^2$, and the total is $$\\sum_i x_i < 10$$

| chip | TFLOP/s |
|:-----|--------:|
| H100 | 989 |

![tiny plot](data:image/png;base64,{PNG}) ![local figure](figures/roofline.png)

See [the scaling paper](https://arxiv.org/abs/2001.08361), **bold** and *emphasis*.
"""
VECTORS = [
    "<script>alert('v1')</script>",
    "<img src=x onerror=alert('v2')>",
    "<IMG SRC=x OnErRoR=alert('v3')>",
    "[link](javascript:alert('v4'))",
    "[tab](jav&#x09;ascript:alert('v5'))",
    "<a href=\"jav&#x09;ascript:alert('v6')\">tab</a> <a href=\"java\0script:alert('v6')\">null</a>",
    "<a href=\"&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert('v7')\">entities</a>",
    "<svg onload=alert('v8')><script>alert('v8')</script></svg>",
    "<iframe src=\"javascript:alert('v9')\"></iframe> <iframe srcdoc=\"<script>alert('v9')</script>\"></iframe>",
    "<object data=\"javascript:alert('v10')\"></object><embed src=\"javascript:alert('v10')\">",
    "<div style=\"background:url(javascript:alert('v11'))\">css</div><p style=\"width: expression(alert('v11'))\">ie</p>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert('v12')\">",
    "<base href=\"javascript:alert('v13')//\">",
    "<details open ontoggle=alert('v14')><summary>s</summary></details>",
    "![img](javascript:alert('v15'))",
    "<javascript:alert('v16')>",
    "<a href=\"files/javascript:alert('v17')\">f</a> <a href=\"files/files/javascript:alert('v17')\">ff</a>",
    "<math><maction actiontype=\"statusline\" xlink:href=\"javascript:alert('v18')\">m</maction></math>",
    "<form action=\"javascript:alert('v19')\"><button formaction=\"javascript:alert('v19')\">b</button></form>",
    "<style>body { background: url(javascript:alert('v20')) }</style>",
    "<a href=\"vbscript:msgbox('v21')\">vb</a> <a href=\"data:text/html,<script>alert('v21')</script>\">d</a>",
    "<<script>script>alert('v22')<</script>/script>",
    "<svg><a xlink:href=\"javascript:alert('v23')\"><text>t</text></a></svg>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert('v24')>\"></noscript>",
    "[title](https://example.org \"x\\\" onmouseover=alert('v25') y=\\\"\")",
    "$<img src=x onerror=alert('v26')>$",
    "<img src=\"data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+\"> <a href=\"data:image/svg+xml,<svg onload=alert('v27')>\">s</a>",
    "![attached](attachment:evil.svg)",
]
OUTPUTS = [   # what a notebook run in Jupyter could carry in a code cell's outputs
    new_output("display_data", data={"text/html": "<b>ok</b><script>alert('o1')</script><img src=x onerror=alert('o1')>",
                                      "text/plain": "o1"}),
    new_output("display_data", data={"image/svg+xml": "<svg onload=\"alert('o2')\"><script>alert('o2')</script></svg>"}),
    new_output("display_data", data={"text/markdown": "[m](javascript:alert('o3')) <img src=x onerror=alert('o3')>"}),
    new_output("display_data", data={"application/javascript": "alert('o4')", "text/plain": "o4"}),
    new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "</script><script>alert('o5')</script>"}}),
    new_output("execute_result", data={"text/html": "<iframe src=\"javascript:alert('o6')\"></iframe>"}, execution_count=3),
]
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "srcdoc", "background", "poster"}
ACTIVE_TAGS = {"script", "iframe", "frame", "object", "embed", "applet", "base", "meta", "link", "style", "form", "svg", "math"}


class Page(HTMLParser):
    """The page's head scripts, and everything in its body that could run code."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.body, self.head_scripts, self.active, self.tags = False, [], [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.body = True
        elif not self.body:
            if tag == "script":
                self.head_scripts.append(dict(attrs))
        else:
            self.tags.append((tag, dict(attrs)))
            if tag in ACTIVE_TAGS:
                self.active.append(f"<{tag}>")
            for name, value in attrs:
                url = re.sub(r"[\x00-\x20\s]", "", value or "").lower()
                if name.startswith("on") or name == "srcdoc":
                    self.active.append(f"<{tag} {name}>")
                elif name in URL_ATTRIBUTES and (url.startswith(("javascript:", "vbscript:")) or (url.startswith("data:") and not (
                        tag == "img" and url.startswith("data:image/")))):     # an image (an SVG too) runs no script
                    self.active.append(f"<{tag} {name}={url[:30]}>")
                elif name == "style" and re.search(r"url\(|expression", url):
                    self.active.append(f"<{tag} style={url[:30]}>")

    handle_startendtag = handle_starttag


def hostile_notebook(course: Path | None, outputs: bool) -> str:
    """The toy lab's honest answers (an empty notebook without `course`) with every vector added."""
    nb = nbformat.reads(notebook_text(course), as_version=4) if course else new_notebook(cells=[new_markdown_cell("# Lab")])
    evil = new_markdown_cell("\n\n".join(VECTORS))
    evil.attachments = {"evil.svg": {"image/svg+xml": "PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+"}}
    evil.metadata["tags"] = ["\"><script>alert('t1')</script>"]
    raw = new_raw_cell("<script>alert('r1')</script><img src=x onerror=alert('r1')>")
    raw.metadata["raw_mimetype"] = "text/html"
    code = new_code_cell("print('hello')", outputs=OUTPUTS if outputs else [], execution_count=3)
    nb.cells[1:1] = [new_markdown_cell(HONEST), evil, raw, code]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"x": "</script><script>alert('w1')</script>"}}}
    return nbformat.writes(nb)


def assert_safe_and_honest(html: str, where: str, template_own: list[str] = ()):
    """`template_own`: what the template itself puts in the body (formgrader's one script)."""
    page = Page(html)
    assert sorted(page.active) == sorted(template_own), f"{where}: {page.active}"
    sources = [s.get("src", "") for s in page.head_scripts]
    assert any("mathjax" in s.lower() and "Safe" in s for s in sources), (where, sources)   # the page's own scripts stay
    assert any(s.get("type") == "text/x-mathjax-config" for s in page.head_scripts), where
    tags = {t for t, _ in page.tags}
    assert {"table", "th", "td", "h2", "strong", "em", "img", "a"} <= tags, (where, tags)
    assert [a for t, a in page.tags if t == "th" and "text-align" in a.get("style", "")], where   # the table's alignment
    images = {a.get("src") for t, a in page.tags if t == "img"}
    assert f"data:image/png;base64,{PNG}" in images and "figures/roofline.png" in images, (where, images)
    assert ("a", {"href": "https://arxiv.org/abs/2001.08361"}) in page.tags, where
    assert "$E = mc^2$" in html and "\\sum_i x_i &lt; 10" in html, where          # math is left for MathJax
    assert "&lt;script&gt;alert('v1')&lt;/script&gt;" in html, where               # shown as text, not dropped


@pytest.mark.slow
def test_hostile_markdown_reaches_no_page_that_runs_it(course, tmp_path):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "mal.ipynb").write_text(hostile_notebook(course, outputs=True))
    cli(course, "collect", str(inbox), "--lab", LAB)
    cli(course, "grade", LAB, "--workers", "1")
    cli(course, "feedback", LAB)
    assert_safe_and_honest((course / "feedback" / "mal" / LAB / f"{LAB}.html").read_text(), "autograder feedback")

    # The formgrader's view of the graded notebook: nbgrader's formgrade template, the course's config.
    graded = course / "autograded" / "mal" / LAB / NB
    own = Page(formgrade_page(course, course / "labs" / LAB / NB)).active
    assert "<script>" in own                # the template's own, in its body
    assert_safe_and_honest(formgrade_page(course, graded), "formgrader", own)

    # A notebook graded by plain `nbgrader autograde` keeps its outputs; feedback made from it by plain
    # nbgrader (the course's nbgrader_config.py, no options) cleans them too.
    nb = nbformat.read(graded, as_version=4)
    [code] = [cell for cell in nb.cells if cell.source == "print('hello')"]
    code.outputs = OUTPUTS
    nb.metadata["widgets"] = nbformat.reads(hostile_notebook(course, outputs=True), as_version=4).metadata["widgets"]
    nbformat.write(nb, graded)
    assert_safe_and_honest(formgrade_page(course, graded), "formgrader with outputs", own)
    done = subprocess.run([sys.executable, "-m", "nbgrader", "generate_feedback", LAB, "--force"], cwd=course,
                          env=env(course), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    html = (course / "feedback" / "mal" / LAB / f"{LAB}.html").read_text()
    assert_safe_and_honest(html, "nbgrader generate_feedback with outputs")
    assert "<b>ok</b>" in html                          # the harmless part of an HTML output is shown

    # A private folder's older nbgrader_config.py lacks the filters: `autograder feedback` cleans all the same.
    config = course / "nbgrader_config.py"
    config.write_text(config.read_text().split("# Feedback and formgrader pages")[0])
    cli(course, "feedback", LAB)
    assert_safe_and_honest((course / "feedback" / "mal" / LAB / f"{LAB}.html").read_text(), "older config")


def formgrade_page(course: Path, notebook: Path) -> str:
    """The page formgrader serves for `notebook`: its exporter, built as nbgrader's extension builds it."""
    import nbgrader.server_extensions.formgrader.handlers as handlers
    from nbconvert.exporters import HTMLExporter
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {"assignment_id": LAB, "notebook_id": LAB, "submission_id": "s1", "index": 0, "total": 1,
                 "base_url": "", "student": "mal", "last_name": "", "first_name": "", "notebook_path": "/x"}
    html, _ = HTMLExporter(config=config).from_filename(str(notebook), resources=resources)
    return html


def test_a_page_with_a_script_in_its_body_is_removed_and_named(tmp_path):
    from autograder.record.feedback_html import fix_folder

    page = tmp_path / "ben" / LAB / f"{LAB}.html"
    page.parent.mkdir(parents=True)
    head = "<html><head><script src='https://cdn/mathjax.js'></script></head>"
    page.write_text(head + "<body><p>fine</p><a href='&#x6A;avascript:x()'>x</a></body></html>")
    good = tmp_path / "ada" / LAB / f"{LAB}.html"
    good.parent.mkdir(parents=True)
    good.write_text(head + "<body><p>fine</p><img src='data:image/png;base64,AAAA'></body></html>")
    made, refused = fix_folder(tmp_path, LAB)
    assert made == 1 and not page.exists() and good.exists()
    assert len(refused) == 1 and str(page) in refused[0] and "javascript:" in refused[0]


def test_the_course_config_cleans_what_nbgrader_alone_would_run():
    """The check above sees the vectors where nothing cleans them (so its passing means something);
    the course's nbgrader_config.py alone cleans them on the same template."""
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader
    from autograder.record.page_check import unsafe_parts

    notebook = hostile_notebook(None, outputs=True)
    raw = Page(feedback_page(notebook, Config()))
    scripts = {"<script>", "<iframe>", "<img onerror>", "<svg>", "<object>", "<embed>", "<base>", "<meta>", "<style>"}
    assert scripts <= set(raw.active) and any("javascript:" in a for a in raw.active), raw.active
    assert unsafe_parts(feedback_page(notebook, Config()))         # the course's own last check agrees
    course_config = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    assert_safe_and_honest(feedback_page(notebook, course_config), "the course's nbgrader_config.py")


def test_a_hub_instructors_formgrader_cleans_even_with_an_old_course_config(tmp_path):
    """`course hub` writes the cleaning lines where every instructor's server reads them, so a ~/course
    copied before they were in nbgrader_config.py still shows students' markdown inert."""
    from traitlets.config.loader import PyFileConfigLoader
    from coursekit.app.hub.classroom import write_server_config

    write_server_config(tmp_path, tmp_path / "exchange")
    old_course = PyFileConfigLoader("nbgrader_config.py", path=str(ROOT)).load_config()
    for section in ("HTMLExporter",):
        old_course.pop(section, None)                                   # as copied before the change
    hub_lines = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path / "instructor")).load_config()
    old_course.merge(hub_lines)
    assert_safe_and_honest(feedback_page(hostile_notebook(None, outputs=True), old_course), "the hub's config")
    student = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    assert "HTMLExporter" not in student                                # students' servers load no grader code
