"""What a reader of a lesson notebook is told: its markdown, its code, and the checks every lesson shares.

Used by the per-module lesson tests (tests/content/m1/test_m1_lessons.py, tests/content/m5/test_m5_lessons.py).
"""
from __future__ import annotations

import nbformat

from paths import ROOT

COURSE = ROOT / "course"
# How lesson markdown writes a dollar of money: a bare or escaped `$` pairs up as MathJax math in
# JupyterLab (tests/app/jupyterlab/test_markdown_dollars_browser.py); the tests read the prose with a plain `$`.
MONEY_DOLLAR = "<span>&#36;</span>"


class Lessons:
    def __init__(self, module_folder: str):
        self.folder = COURSE / module_folder

    def nb(self, name):
        return nbformat.read(self.folder / f"{name}.ipynb", as_version=4)

    def markdown(self, name):
        """The lesson's markdown as prose: money dollars read `$`."""
        text = "\n".join(c.source for c in self.nb(name).cells if c.cell_type == "markdown")
        return text.replace(MONEY_DOLLAR, "$")

    def code(self, name):
        return "\n".join(c.source for c in self.nb(name).cells if c.cell_type == "code")

    def check_structure(self, name, quiz_id, headings):
        """Headings present, a figure drawn, the quiz the last code cell, and every code cell committed without outputs."""
        nb, text = self.nb(name), self.markdown(name)
        for heading in headings:
            assert heading in text, f"{name}: missing {heading}"
        code = self.code(name)
        assert "show_figure(fig, " in code and "plt.show()" not in code, f"{name}: no figure with a text alternative"
        last_code = [c for c in nb.cells if c.cell_type == "code"][-1]   # only the "Next" link follows it
        assert last_code.source.strip().endswith(f'show_quiz("{quiz_id}")')
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, f"{name}: outputs committed"
