"""`course site` builds the course as a website, and every page of it works in headless Chromium.

The site is built once per session into build/site (its executed-notebook cache makes a second run
cheap) and served over HTTP, as a reader would get it.
"""
from __future__ import annotations

import functools
import re
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin, urlparse

import nbformat
import pytest

from coursekit.site.build import site_modules
from coursekit.site.execute import HASH_KEY, code_fingerprint, is_current, source_hash


ROOT = Path(__file__).resolve().parent.parent
SEED_REF = re.compile(r"\bseeds? 0\d\d\b|(?<![-\w])seed_?\d{3}", re.IGNORECASE)
# Jinja, or a format field such as {annual:,.0f} or {cost.BILL / annual:.0f} (not LaTeX's \text{...}, x_{i}).
PLACEHOLDER = re.compile(r"\{\{|\{%|(?<![\\^_\w])\{[A-Za-z_][\w.]*[^{}\n]*\}")
PAGES = [page for module in site_modules(ROOT) for page in module.pages]


# The one notebook `course site` executes itself here; every other page comes from the session's
# executed notebooks (tests/notebook_runner.py), which the lesson and lab tests run anyway.
SITE_EXECUTES = "course/m1-training-vs-inference/01-what-each-does.ipynb"


def seed_site_cache(executed_notebooks) -> None:
    """Put the session's executed copies where `course site` keeps its cache, stamped as current."""
    fingerprint, cache = code_fingerprint(ROOT), ROOT / "build" / "site" / "executed"
    for rel in PAGES:
        copy = cache / rel
        if not rel.endswith(".ipynb") or rel == SITE_EXECUTES:
            continue
        wanted = source_hash(ROOT / rel, fingerprint)
        if is_current(copy, wanted):
            continue
        nb = executed_notebooks.get(ROOT / rel, allow_errors=rel.startswith("labs/"))
        nb.metadata[HASH_KEY] = wanted
        copy.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, copy)
    (cache / SITE_EXECUTES).unlink(missing_ok=True)


@pytest.fixture(scope="module")
def site(executed_notebooks) -> Path:
    seed_site_cache(executed_notebooks)
    done = subprocess.run([sys.executable, "-m", "coursekit.cli", "site"], cwd=ROOT, capture_output=True,
                          text=True, timeout=3000)
    assert done.returncode == 0, f"course site failed:\n{done.stderr[-3000:]}"
    assert f"executed {SITE_EXECUTES}" in done.stdout, done.stdout      # its own execution path ran
    html = ROOT / "build" / "site" / "html"
    assert str(html / "index.html") in done.stdout
    return html


@pytest.fixture(scope="module")
def site_url(site):
    handler = functools.partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def html_path(page: str) -> str:
    return page.rsplit(".", 1)[0] + ".html"


def draws_figures(page: str) -> bool:
    """A lesson whose code calls show_figure() must show its figures (labs plot only once solved)."""
    if not page.startswith("course/"):
        return False
    nb = nbformat.read(ROOT / page, as_version=4)
    return any("show_figure(" in c.source for c in nb.cells if c.cell_type == "code")


READ_PAGE = """() => {
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  // Code and math may hold braces legitimately; prose and outputs may not.
  copy.querySelectorAll('.cell_input, pre, code, .math, script, style').forEach(e => e.remove());
  const figures = [...main.querySelectorAll('.cell_output img')];
  return {
    all: main.innerText,
    prose: copy.innerText,
    figures: figures.length,
    loaded: figures.filter(img => img.complete && img.naturalWidth > 0).length,
    links: [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href')),
  };
}"""


@pytest.mark.slow
@pytest.mark.browser
def test_every_page_loads_with_figures_numbers_and_working_links(site, site_url, page):
    assert (site / "search.html").exists() and (site / "searchindex.js").exists()
    problems = []
    for rel in ["index.md", *PAGES]:
        url = urljoin(site_url, html_path(rel))
        response = page.goto(url)
        if response is None or not response.ok:
            problems.append(f"{rel}: HTTP {response and response.status}")
            continue
        seen = page.evaluate(READ_PAGE)
        if SEED_REF.search(seen["all"]):
            problems.append(f"{rel}: cites a source by file number: {SEED_REF.search(seen['all']).group(0)!r}")
        if PLACEHOLDER.search(seen["prose"]):
            problems.append(f"{rel}: unrendered template {PLACEHOLDER.search(seen['prose']).group(0)!r}")
        if draws_figures(rel) and not (seen["figures"] and seen["loaded"] == seen["figures"]):
            problems.append(f"{rel}: {seen['loaded']} of {seen['figures']} figures loaded")
        for href in seen["links"]:
            target = urlparse(urljoin(url, href))
            if target.netloc != urlparse(site_url).netloc:
                continue  # external: JupyterLab on localhost:8888, papers, the theme's CDN
            if not (site / target.path.lstrip("/")).exists():
                problems.append(f"{rel}: link {href!r} leads nowhere")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.browser
def test_navigation_by_module_and_search(site_url, page):
    page.goto(site_url)
    sidebar = page.locator("nav.bd-links")
    for n in range(1, 6):
        assert sidebar.get_by_text(re.compile(rf"^Module {n}:")).count() == 1
    assert sidebar.get_by_text("Reading list and errata").count() == 1
    page.goto(urljoin(site_url, "search.html?q=roofline"))
    results = page.locator("#search-results li a")
    results.first.wait_for()
    assert any("lab1-roofline" in (results.nth(i).get_attribute("href") or "") for i in range(results.count()))


@pytest.mark.slow
@pytest.mark.browser
def test_lesson_quiz_is_answered_on_the_page_with_a_jupyterlab_link(site_url, page):
    """The quiz itself is on the page (tests/test_site_quiz_browser.py answers it), beside a link to it in JupyterLab."""
    page.goto(urljoin(site_url, "course/m1-training-vs-inference/01-what-each-does.html"))
    quiz = page.locator("section#quiz")  # the lesson's own "Quiz" heading
    questions = quiz.locator("fieldset.course-quiz-item")
    questions.first.wait_for()
    assert questions.count() == 3 and questions.first.locator("legend").inner_text().startswith("1.")
    assert quiz.get_by_role("button", name="Check answer 1").count() == 1
    link = quiz.locator("a[href*='localhost:8888/lab/tree/course/m1-training-vs-inference/01-what-each-does.ipynb']")
    assert link.count() == 1
    assert "show_quiz" not in page.locator("main").inner_text()  # the widget cell itself is left out


def test_cached_notebooks_are_executed_again_when_the_library_or_a_bank_changes(tmp_path):
    """Not when coursekit/site changes: it shapes pages after execution. The course lives in a folder
    named "site" here, as a checkout may: only paths inside the course count."""
    tmp_path = tmp_path / "site"
    for rel in ("coursekit/calc/memory.py", "coursekit/site/build.py", "quizzes/m1/l1.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    before = code_fingerprint(tmp_path)
    (tmp_path / "coursekit/site/build.py").write_text("x = 2\n")
    assert code_fingerprint(tmp_path) == before
    for rel in ("coursekit/calc/memory.py", "quizzes/m1/l1.yaml"):
        (tmp_path / rel).write_text("changed\n")
        assert code_fingerprint(tmp_path) != before
        before = code_fingerprint(tmp_path)


ZOOMED = {"width": 640, "height": 400}   # 1280x800 at 200% zoom: the CSS pixels a zoomed page lays out in
IMG_ALTS = "() => [...document.querySelectorAll('main .cell_output img')].map(i => i.getAttribute('alt') || '')"


@pytest.mark.slow
@pytest.mark.browser
def test_every_page_passes_axe_and_every_figure_has_alt_text(site_url, page):
    """axe-core's WCAG 2.1 A/AA rules on every page of the built site: no serious or critical violation;
    every figure has its text alternative and every table its header cells."""
    from axe import axe_version, blocking, run_axe, summary
    from test_figures import meaningful

    problems, counted = [], {}
    for rel in ["index.md", *PAGES]:
        page.goto(urljoin(site_url, html_path(rel)))
        found = blocking(run_axe(page))
        for v in found:
            counted[v["id"]] = counted.get(v["id"], 0) + len(v["nodes"])
        if found:
            problems.append(summary(found, f"{rel}: "))
        headless = page.evaluate("() => [...document.querySelectorAll('main table')].filter(t => !t.querySelector('th')).length")
        if headless:
            problems.append(f"{rel}: {headless} data table(s) without header cells")
        bad = [alt[:60] for alt in page.evaluate(IMG_ALTS) if not meaningful(alt)]
        if bad:
            problems.append(f"{rel}: figures without a text alternative: {bad}")
    print(f"axe-core {axe_version()} on {1 + len(PAGES)} pages: serious/critical by rule {counted or 'none'}")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.browser
def test_pages_reflow_at_200_percent_zoom(site_url, browser):
    """At 200% zoom on a 1280x800 screen nothing needs scrolling sideways (WCAG 1.4.4, 1.4.10): the
    text, the figures and the menu button to the module navigation all fit the width."""
    context = browser.new_context(viewport=ZOOMED)
    page = context.new_page()
    try:
        for rel in ["index.md", "course/m1-training-vs-inference/03-compute-or-bandwidth.ipynb", "docs/reading-list.md"]:
            page.goto(urljoin(site_url, html_path(rel)))
            seen = page.evaluate("""() => ({
                width: window.innerWidth, scroll: document.documentElement.scrollWidth,
                text: (document.querySelector('main') || document.body).innerText.length,
                figures: [...document.querySelectorAll('main .cell_output img')].map(i => i.getBoundingClientRect().right),
            })""")
            assert seen["scroll"] <= seen["width"] + 1, (rel, seen)
            assert seen["text"] > 200 and all(right <= seen["width"] + 1 for right in seen["figures"]), (rel, seen)
            assert page.locator("button.primary-toggle:visible").count(), f"{rel}: no menu button at 200% zoom"
    finally:
        context.close()


def test_site_config_turns_on_mathjax_assistive_output():
    from coursekit.site.build import CONF_PY, SEARCH_BUTTON

    conf = CONF_PY.format(title="t")
    assert '"enableAssistiveMml": True' in conf
    assert "aria-label" not in SEARCH_BUTTON and "Search" in SEARCH_BUTTON


MATHJAX_CDN = "https://cdn.jsdelivr.net/npm/mathjax@3/"
MATHJAX_LOCAL = ROOT / "tests" / "a11y" / "node_modules" / "mathjax"


@pytest.mark.slow
@pytest.mark.browser
def test_formulas_reach_screen_readers_as_mathml(site_url, page):
    """The site loads MathJax from its CDN; here the same major version comes from npm (tests/a11y), so the
    test sees what a reader's browser renders: every formula gets MathJax's assistive MathML, and the
    page with it still passes axe."""
    from axe import blocking, run_axe, summary

    def from_npm(route):
        local = MATHJAX_LOCAL / route.request.url[len(MATHJAX_CDN):].split("?")[0]
        route.fulfill(path=str(local)) if local.is_file() else route.fulfill(status=404)

    page.route(MATHJAX_CDN + "**", from_npm)
    page.goto(urljoin(site_url, "course/m5-co-design/01-inference-aware-scaling.html"))
    formulas = page.locator("main .math").count()
    assert formulas > 0
    page.wait_for_function(f"() => document.querySelectorAll('main mjx-container').length >= {formulas}", timeout=60_000)
    mathml = page.evaluate("() => [...document.querySelectorAll('main mjx-container')].map(c => "
                           "(c.querySelector('mjx-assistive-mml math') || {}).outerHTML || '')")
    assert len(mathml) >= formulas and all(re.search(r"<m[ion]\b", m) for m in mathml), mathml[:3]
    found = blocking(run_axe(page))
    assert not found, summary(found)


@pytest.mark.slow
@pytest.mark.browser
def test_dark_mode_pages_pass_axe(site_url, browser):
    """The theme follows the reader's dark-mode setting: a representative set of pages (start page, a
    lesson, a lab, a module test, an errata page), audited again in dark mode (contrast included)."""
    from axe import blocking, run_axe, summary

    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    problems = []
    try:
        for rel in ["index.md", "course/m1-training-vs-inference/01-what-each-does.ipynb", "labs/lab1-roofline/lab1-roofline.ipynb",
                    "course/m4-economics/module-test.ipynb", "docs/errata/m4.md"]:
            page.goto(urljoin(site_url, html_path(rel)))
            assert page.evaluate("document.documentElement.dataset.theme") == "dark", rel
            found = blocking(run_axe(page))
            if found:
                problems.append(summary(found, f"{rel} (dark): "))
    finally:
        context.close()
    assert not problems, "\n".join(problems)
