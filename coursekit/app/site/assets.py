"""What the website would otherwise load from public CDNs, served from its own `_static` folder instead,
so a page works offline and opened from a folder: MathJax for the formulas, and RequireJS with the
Jupyter widgets' HTML manager for saved widget state. All come from npm at set-up (coursekit/app/site/
package.json, pinned by its package-lock.json; `./course.sh site` runs `npm ci`), never at view time.
"""
from __future__ import annotations

import shutil
from pathlib import Path

NODE_MODULES = Path(__file__).resolve().parent / "node_modules"
STATIC = Path(__file__).resolve().parent / "static"
# The site's own script and style (coursekit/app/site/static), on every page, and RequireJS's paths for the
# widget manager, on pages with saved widgets.
SITE_FILES = ("course-site.js", "course-site.css", "widgets-paths.js")
# Paths inside the site's _static folder, as Sphinx's `mathjax_path` and MyST-NB's `nb_ipywidgets_js` take them.
MATHJAX = "mathjax/tex-mml-chtml.js"
REQUIREJS = "requirejs/require.js"
WIDGETS = "html-manager/embed-amd.js"
WIDGETS_PATHS = "widgets-paths.js"  # coursekit/app/site/static: tells RequireJS where the manager's files are
# What MathJax loads after its entry file: input and output extensions, fonts, the menu, the assistive
# MathML and the speech rule engine (the other es5/*.js entry files are alternatives to ours).
MATHJAX_FOLDERS = ("a11y", "adaptors", "input", "output", "sre", "ui")
# The HTML manager finds its icon fonts beside embed-amd.js (webpack resolves them from the script's URL).
FONT_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")


def conf_lines() -> str:
    """The conf.py settings that point Sphinx and MyST-NB at the local copies; they follow the quizzes'
    lines (coursekit/app/site/quizzes.py), which start html_js_files and html_css_files."""
    return (f"mathjax_path = {MATHJAX!r}\n"
            f"nb_ipywidgets_js = {{{REQUIREJS!r}: {{}}, {WIDGETS_PATHS!r}: {{}}, {WIDGETS!r}: {{}}}}\n"
            'html_js_files.append("course-site.js")\n'
            'html_css_files.append("course-site.css")\n')


def copy_site_files(static: Path) -> None:
    """The site's own files into the Sphinx source's _static folder (html_static_path)."""
    static.mkdir(parents=True, exist_ok=True)
    for name in SITE_FILES:
        shutil.copy2(STATIC / name, static / name)


def copy_npm_files(static: Path, node_modules: Path = NODE_MODULES) -> None:
    """Copy the npm packages' files the pages load into `static` (the built site's _static folder)."""
    es5 = node_modules / "mathjax" / "es5"
    manager = node_modules / "@jupyter-widgets" / "html-manager" / "dist"
    requirejs = node_modules / "requirejs" / "require.js"
    missing = [p for p in (es5 / "tex-mml-chtml.js", manager / "embed-amd.js", requirejs) if not p.is_file()]
    if missing:
        raise RuntimeError(f"{missing[0]} not found: the website's scripts come from npm; run ./course.sh site "
                           f"(it runs `npm ci` in {node_modules.parent})")
    mathjax = static / Path(MATHJAX).parent
    mathjax.mkdir(parents=True, exist_ok=True)
    shutil.copy2(es5 / "tex-mml-chtml.js", static / MATHJAX)
    for folder in MATHJAX_FOLDERS:
        shutil.copytree(es5 / folder, mathjax / folder, dirs_exist_ok=True)
    (static / REQUIREJS).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(requirejs, static / REQUIREJS)
    (static / WIDGETS).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(manager / "embed-amd.js", static / WIDGETS)
    for font in manager.iterdir():
        if font.suffix in FONT_SUFFIXES:
            shutil.copy2(font, (static / WIDGETS).parent / font.name)
