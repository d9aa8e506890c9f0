"""`course site` builds the course as a website, and every page of it works in headless Chromium.

The site is built once per session into build/site (its executed-notebook cache makes a second run
cheap) and served over HTTP, as a reader would get it.
"""
from __future__ import annotations

import html
import html.parser
import json
import re
from pathlib import Path
from urllib.parse import unquote, urljoin, urlparse

import nbformat
import pytest

from coursekit.app.site.build import site_modules
from coursekit.app.site.execute import code_fingerprint
from coursekit.outline import load_outline
from paths import ROOT
from site_build import BOARDS, BUILD_LOG, PAGES, html_path

SEED_REF = re.compile(r"\bseeds? 0\d\d\b|(?<![-\w])seed_?\d{3}", re.IGNORECASE)
# Jinja, or a format field such as {annual:,.0f} or {cost.BILL / annual:.0f} (not LaTeX's \text{...}, x_{i}).
PLACEHOLDER = re.compile(r"\{\{|\{%|(?<![\\^_\w])\{[A-Za-z_][\w.]*[^{}\n]*\}")
BOARD_PAGES = [f"leaderboard/{p.stem}.md" for p in sorted(BOARDS.glob("*.json"))]


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
    for rel in ["index.md", *PAGES, *BOARD_PAGES]:
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
                continue  # external: the papers the reading list links to, the repository
            if not (site / target.path.lstrip("/")).exists():
                problems.append(f"{rel}: link {href!r} leads nowhere")
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.browser
def test_navigation_by_module_and_search(site_url, page):
    page.goto(site_url)
    sidebar = page.locator("nav.bd-links")
    for module in load_outline(ROOT):     # every module of the course outline, once
        assert sidebar.get_by_text(f"Module {module.number}: {module.title}", exact=True).count() == 1
    assert sidebar.get_by_text("Reading list and errata").count() == 1
    page.goto(urljoin(site_url, "search.html?q=roofline"))
    results = page.locator("#search-results li a")
    results.first.wait_for()
    assert any("lab1-roofline" in (results.nth(i).get_attribute("href") or "") for i in range(results.count()))


@pytest.mark.slow
@pytest.mark.browser
def test_lesson_quiz_is_answered_on_the_page_and_says_how_to_open_it_in_jupyterlab(site_url, page):
    """The quiz itself is on the page (tests/app/site/test_site_quiz_browser.py answers it), beside how to take it in JupyterLab."""
    page.goto(urljoin(site_url, "course/m1-training-vs-inference/01-what-each-does.html"))
    quiz = page.locator("section#quiz")  # the lesson's own "Quiz" heading
    questions = quiz.locator("fieldset.course-quiz-item")
    questions.first.wait_for()
    assert questions.count() == 3 and questions.first.locator("legend").inner_text().startswith("1.")
    assert quiz.get_by_role("button", name="Check answer 1").count() == 1
    how = quiz.get_by_text(re.compile(r"\./course\.sh start.*course/m1-training-vs-inference/01-what-each-does\.ipynb"))
    assert how.count() == 1   # how to answer it in JupyterLab: no link to a server the reader may not run
    assert "show_quiz" not in page.locator("main").inner_text()  # the widget cell itself is left out


def test_cached_notebooks_are_executed_again_when_the_library_or_a_bank_changes(tmp_path):
    """Not when coursekit/app/ changes (the `course` command and the site builder, which no notebook
    imports). The course lives in a folder named "site" here, as a checkout may: only paths inside the
    course count."""
    tmp_path = tmp_path / "site"
    for rel in ("coursekit/calc/memory.py", "coursekit/app/site/build.py", "coursekit/app/doctor.py",
                "quizzes/m1/l1.yaml"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    before = code_fingerprint(tmp_path)
    for rel in ("coursekit/app/site/build.py", "coursekit/app/doctor.py"):
        (tmp_path / rel).write_text("x = 2\n")
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
    from alt_text import meaningful

    problems, counted = [], {}
    for rel in ["index.md", *PAGES, *BOARD_PAGES]:
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
    from coursekit.app.site.build import CONF_PY, SEARCH_BUTTON

    conf = CONF_PY.format(title="t", static="s", student="student")
    assert '"enableAssistiveMml": True' in conf
    assert "aria-label" not in SEARCH_BUTTON and "Search" in SEARCH_BUTTON


@pytest.mark.slow
@pytest.mark.browser
def test_formulas_reach_screen_readers_as_mathml(site_url, page):
    """The site serves its own MathJax (coursekit/app/site/assets.py): every formula gets MathJax's assistive
    MathML, and the page with it still passes axe."""
    from axe import blocking, run_axe, summary

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


# --- Offline, linked and complete: what a reader gets from the folder alone ---------------------------

def built_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


@pytest.mark.slow
@pytest.mark.browser
def test_pages_work_offline_opened_from_the_folder(site, browser):
    """Every page opened as a file (file://), with every request watched: nothing leaves the site's folder,
    the console stays free of errors, formulas render (MathJax from the site) and a lab's saved widgets
    render (the widget manager from the site). Search works too, listing pages (snippets need HTTP)."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    inside = site.resolve().as_uri() + "/"
    outside, errors = [], []

    def watch(route):
        if route.request.url.startswith(inside):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", watch)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    try:
        for rel in ["index.md", *PAGES, *BOARD_PAGES]:
            page.goto(inside + html_path(rel))
            formulas = page.locator("main .math").count()
            if formulas:
                page.wait_for_function(f"() => document.querySelectorAll('main mjx-container').length >= {formulas}",
                                       timeout=60_000)
            if rel.startswith("labs/") and page.locator('main script[type="application/vnd.jupyter.widget-view+json"]').count():
                page.locator("main .jupyter-widgets").first.wait_for(timeout=60_000)   # Lab 6's page saves none
            page.wait_for_load_state("networkidle")
            assert not outside, f"{rel}: requests outside the site: {outside}"
            assert not errors, f"{rel}: console errors: {errors}"
        page.goto(inside + "search.html?q=roofline")
        page.locator("#search-results li a").first.wait_for()
        assert not outside and not errors, (outside, errors)
    finally:
        context.close()


# <script src>, <link href>, <img src>, CSS url(), a widget manager's CDN attribute: anything a page loads.
LOADS = re.compile(r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)=["'](?:https?:)?//[^"']+"""
                   r"""|url\(\s*["']?(?:https?:)?//|data-jupyter-widgets-cdn""", re.IGNORECASE)


@pytest.mark.slow
def test_no_page_loads_anything_from_another_host(site):
    """Links to papers are fine (a reader follows them); nothing the page itself loads may come from a CDN."""
    problems = [f"{p.relative_to(site)}: {m.group(0)[:120]}" for p in built_pages(site)
                for m in LOADS.finditer(p.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems[:20])
    static_css = [p for p in (site / "_static").rglob("*.css") if LOADS.search(p.read_text(encoding="utf-8"))]
    assert not static_css, static_css


@pytest.mark.slow
def test_no_page_points_at_localhost(site):
    """A published site's reader has no JupyterLab on localhost: pages say how to open the course instead."""
    bad = [str(p.relative_to(site)) for p in built_pages(site) if "localhost" in p.read_text(encoding="utf-8")]
    assert not bad, bad


class Anchors(html.parser.HTMLParser):
    """Every id (and a name) a page defines, and every link and resource it refers to."""

    def __init__(self):
        super().__init__()
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.update(v for k, v in attrs.items() if k == "id" or (k == "name" and tag == "a"))
        for key in ("href", "src"):
            if attrs.get(key) and not (tag == "link" and attrs.get("rel") in ("canonical",)):
                self.refs.append(attrs[key])


def parsed(path: Path) -> Anchors:
    anchors = Anchors()
    anchors.feed(path.read_text(encoding="utf-8"))
    return anchors


@pytest.mark.slow
def test_every_internal_link_and_anchor_resolves(site):
    """Each relative href/src of every page leads to a file of the site, and each #anchor to an id on that page."""
    pages = {p.resolve(): parsed(p) for p in built_pages(site)}
    problems = []
    for path, anchors in pages.items():
        for ref in anchors.refs:
            target = urlparse(ref)
            if target.scheme or target.netloc or ref.startswith(("mailto:", "javascript:", "data:")):
                continue
            file = (path.parent / unquote(target.path)).resolve() if target.path else path
            if not file.exists():
                problems.append(f"{path.relative_to(site.resolve())}: {ref!r} leads nowhere")
            elif target.fragment and file.suffix == ".html":
                ids = pages[file].ids if file in pages else parsed(file).ids
                if unquote(target.fragment) not in ids:
                    problems.append(f"{path.relative_to(site.resolve())}: {ref!r}: no such anchor")
    assert not problems, "\n".join(problems[:30])


@pytest.mark.slow
def test_lessons_lead_to_their_lab_page(site):
    """A module's last lesson ends "Next: Lab N": on the site, that link opens the lab's page."""
    for module in site_modules(ROOT)[:-1]:
        labs = [p for p in module.pages if p.startswith("labs/")]
        if not labs:            # a module whose lab is not released yet (Module 6) ends at its module test
            continue
        lab = labs[0]
        last_lesson = [p for p in module.pages if p.startswith("course/") and "module-test" not in p][-1]
        refs = parsed(site / html_path(last_lesson)).refs
        assert f"../../{html_path(lab)}" in refs, (last_lesson, [r for r in refs if "lab" in r])


@pytest.mark.slow
def test_footer_names_the_authors_and_year(site):
    text = (site / "index.html").read_text(encoding="utf-8")
    assert "Author name not set" not in text
    assert "By The course authors" in text and "2026, The course authors" in text


@pytest.mark.slow
def test_every_page_links_to_the_repository(site):
    from coursekit.app.site.build import repository_url

    url = repository_url(ROOT)
    assert url.startswith("https://")
    missing = [str(p.relative_to(site)) for p in built_pages(site) if p.name != "genindex.html"
               and url not in parsed(p).refs]
    assert not missing, missing


def test_the_repository_comes_from_pyproject(tmp_path):
    from coursekit.app.site.build import repository_url

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[project.urls]\nRepository = "https://example.org/c"\n')
    assert repository_url(tmp_path) == "https://example.org/c"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    with pytest.raises(RuntimeError, match=r"pyproject\.toml.*Repository"):
        repository_url(tmp_path)


@pytest.mark.slow
def test_reading_list_links_every_work_that_has_an_address(site):
    from coursekit import references

    hrefs = set(parsed(site / "docs" / "reading-list.html").refs)
    missing = [(r.key, url) for r in references.PAPERS for url in r.link.split(" and ") if url not in hrefs]
    assert not missing, missing


@pytest.mark.slow
def test_lab_pages_say_how_to_do_the_lab_and_offer_the_student_notebook(site):
    for lab_id in sorted(p.name for p in (ROOT / "labs").iterdir() if (p / f"{p.name}.ipynb").exists()):
        page = site / "labs" / lab_id / f"{lab_id}.html"
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))).replace("\u2019", "'")
        assert "./course.sh start" in text and f"work/{lab_id}/{lab_id}.ipynb" in text, lab_id   # locally
        assert "Assignments" in text and "Submit" in text, lab_id                                # on a hub
        checks = json.loads((ROOT / "labs" / lab_id / f"{lab_id}.checks.json").read_text())
        for task in checks["tasks"]:
            assert f"Visible checks for {task['function']}" in text, (lab_id, task["function"])
            assert all(case["name"].replace("\u2019", "'") in text for case in task["cases"]), (lab_id, task["function"])
        downloads = [r for r in parsed(page).refs if r.endswith(f"/{lab_id}.ipynb") and "_downloads" in r]
        assert len(downloads) == 1, (lab_id, downloads)
        offered = nbformat.read(page.parent / downloads[0], as_version=4)
        nbformat.validate(offered)
        assert offered == nbformat.read(ROOT / "labs" / lab_id / f"{lab_id}.ipynb", as_version=4), lab_id


KERNEL_WARNING = re.compile(r"WARNING|without encryption", re.IGNORECASE)


@pytest.mark.slow
def test_build_log_has_no_warning(site):
    """`course site` executed a lesson in this build; neither its kernel nor Sphinx printed a warning."""
    assert not KERNEL_WARNING.search(BUILD_LOG["stderr"]), BUILD_LOG["stderr"][-3000:]


def test_site_kernel_starts_without_the_unencrypted_tcp_warning(tmp_path, capfd):
    from coursekit.app.site.execute import execute

    notebook = tmp_path / "n.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(6 * 7)")]), notebook)
    nb = execute(notebook, allow_errors=False, env={})
    assert nb.cells[0].outputs[0]["text"].strip() == "42"
    assert not KERNEL_WARNING.search(capfd.readouterr().err)
    assert not list(tmp_path.glob("kernel*"))   # its sockets lived in a private temporary folder


@pytest.mark.slow
@pytest.mark.browser
def test_one_search_box_and_results_with_snippets_and_modules(site_url, page):
    page.goto(urljoin(site_url, html_path("course/m2-training-chips/01-training-silicon.ipynb")))
    boxes = page.locator(".search-button-field:visible, input[type=search]:visible")
    assert boxes.count() == 1
    page.goto(urljoin(site_url, "search.html?q=roofline"))
    results = page.locator("#search-results li")
    results.first.wait_for()
    page.locator("#search-results li p.context").first.wait_for()
    titles = [results.nth(i).locator("a").first.inner_text() for i in range(results.count())]
    assert any(t.startswith("Module 1: Training vs inference › Lab 1") for t in titles), titles
    snippets = [s.lower() for s in page.locator("#search-results li p.context").all_inner_texts()]
    assert snippets and all("roofline" in s for s in snippets[:3]), snippets[:3]
    assert not any("system settings" in s for s in snippets), snippets   # the theme's buttons are left out
    assert page.locator("input[type=search]:visible").count() == 1


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_lesson_fits_laptop_and_phone_screens(site_url, browser, artifacts_dir, scheme):
    """1280x800 and 390x844 (a phone), in the theme's light and dark modes: nothing needs scrolling
    sideways; screenshots land in tests/artifacts/ for a look."""
    rel = "course/m1-training-vs-inference/03-compute-or-bandwidth.ipynb"
    for width, height in [(1280, 800), (390, 844)]:
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        page = context.new_page()
        try:
            page.goto(urljoin(site_url, html_path(rel)))
            assert page.evaluate("document.documentElement.dataset.theme") == scheme
            seen = page.evaluate("""() => ({width: window.innerWidth, scroll: document.documentElement.scrollWidth,
                                             text: document.querySelector('main').innerText.length})""")
            assert seen["scroll"] <= seen["width"] + 1 and seen["text"] > 200, (width, scheme, seen)
            page.screenshot(path=str(artifacts_dir / f"site-lesson-{width}x{height}-{scheme}.png"))
        finally:
            context.close()


def test_static_pages_send_next_lab_links_to_the_lab_page_and_drop_unseen_widget_state():
    """Without a site build: the two page edits that make_static applies to every notebook."""
    from coursekit.app.site.static_pages import WIDGET_VIEW, make_static

    def notebook(tags):
        view = nbformat.v4.new_output("display_data", data={WIDGET_VIEW: {"model_id": "m"}, "text/plain": "Box()"})
        nb = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_markdown_cell("**Next:** [Lab 1: Roofline](../../work/lab1-roofline/lab1-roofline.ipynb) "
                                          "in your own copy, then [Module 1 test](module-test.ipynb)"),
            nbformat.v4.new_code_cell("box", outputs=[view], metadata={"tags": tags})])
        nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {"m": {}}}}
        return nb

    hidden, shown = notebook(["remove-cell"]), notebook([])
    for nb in (hidden, shown):
        make_static(nb, "course/m1-x/04-y.ipynb", {}, lab=False)
        assert "](../../labs/lab1-roofline/lab1-roofline.ipynb)" in nb.cells[0].source
        assert "work/" not in nb.cells[0].source and "](module-test.ipynb)" in nb.cells[0].source
    assert "widgets" not in hidden.metadata and "widgets" in shown.metadata


def test_a_site_built_before_npm_ci_says_how_to_get_its_scripts(tmp_path):
    from coursekit.app.site.assets import copy_npm_files

    with pytest.raises(RuntimeError, match=r"tex-mml-chtml\.js not found.*\./course\.sh site.*npm ci"):
        copy_npm_files(tmp_path / "_static", node_modules=tmp_path / "node_modules")


def test_a_published_leaderboard_is_a_page_the_lab_links_to_with_names_as_text(site):
    assert BOARD_PAGES, f"no board in {BOARDS}"
    board = (site / "leaderboard" / "lab6-serving.html").read_text(encoding="utf-8")
    assert "Fast Fran" in board and "1.35x" in board and "1.21x (noisy)" in board
    assert "<script>alert" not in board and "&lt;script&gt;alert" in board        # a name is text, never markup
    assert board.count('<th scope="col">') == 8 and "<caption>lab6-serving: 3 timed engine(s)</caption>" in board
    assert 'href="../labs/lab6-serving/lab6-serving.html"' in board
    lab = (site / "labs" / "lab6-serving" / "lab6-serving.html").read_text(encoding="utf-8")
    assert 'href="../../leaderboard/lab6-serving.html"' in lab
    other = (site / "labs" / "lab5-moe" / "lab5-moe.html").read_text(encoding="utf-8")
    assert "leaderboard/" not in other                  # only a lab with a published board links one


def test_a_board_not_of_the_graders_shape_is_named_and_left_out(tmp_path):
    from coursekit.app.site.leaderboards import load_boards

    (tmp_path / "lab6-serving.json").write_text('{"entries": [{"rank": "first"}]}')
    (tmp_path / "lab5-moe.json").write_text("{not json")
    (tmp_path / "lab4-economics.json").write_text(json.dumps({"entries": []}))
    said = []
    boards = load_boards(tmp_path, ["lab6-serving", "lab5-moe", "lab4-economics", "lab3-kv-cache"], said.append)
    assert list(boards) == ["lab4-economics"]
    assert any("lab6-serving.json: entry 1: 'rank' is missing or not a whole number" in s for s in said), said
    assert any("lab5-moe.json: cannot be read as JSON" in s for s in said), said
    with pytest.raises(RuntimeError, match="no such folder"):
        load_boards(tmp_path / "nope", ["lab6-serving"])
