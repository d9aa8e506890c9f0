"""Figures every student can read: a colour-vision-safe style, and a text alternative for each plot.

    from coursekit.figures import show_figure      # importing it sets the course's plot style
    fig, ax = plt.subplots(); ...
    show_figure(fig, "What the figure is for, in one sentence.")

`show_figure` displays the figure as HTML (`<img alt=...>` plus a "Figure as text" disclosure), with
the PNG and a plain-text description beside it in the same output. JupyterLab's PNG renderer has no
alt attribute, and MyST-NB (the website) prefers the HTML, so the text reaches a screen reader in both.
The description is written from the figure itself (coursekit/figure_text.py): titles, axes and
each series' values, so its numbers are the ones plotted, never typed.

Colour: the Okabe-Ito colours that keep 3:1 contrast on white (orange, sky blue and yellow do not),
each with its own line style and marker, so no series is told apart by colour alone
(tests/library/figures/test_figures.py checks the palette under simulated colour-vision deficiency).
"""
from __future__ import annotations

import base64
import html
import io

import matplotlib as mpl
from cycler import cycler

from .figure_text import describe_figure, style_problems

# Okabe & Ito (2008), "Color Universal Design": blue, vermillion, bluish green, reddish purple, black.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#000000")
LINESTYLES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v")
HATCHES = ("", "//", "..", "xx", "\\\\")        # for bars side by side or stacked (pass hatch=HATCHES[i])
REFERENCE = "#595959"                          # reference lines and bands: 7:1 on white
TEXT = "#000000"

STYLE = {
    "axes.prop_cycle": cycler(color=PALETTE) + cycler(linestyle=LINESTYLES) + cycler(marker=MARKERS),
    "lines.markersize": 5,
    "lines.linewidth": 1.8,
    "text.color": TEXT, "axes.labelcolor": TEXT, "xtick.color": TEXT, "ytick.color": TEXT,
    "axes.edgecolor": TEXT, "legend.edgecolor": "#767676",
    "figure.facecolor": "white", "axes.facecolor": "white", "savefig.facecolor": "white",
}


def apply_style() -> None:
    """The course's plot style (importing this module applies it; call again after a style change)."""
    mpl.rcParams.update(STYLE)


apply_style()


class FigureOutput:
    """What show_figure displays: HTML with alt text, the PNG, and the description as plain text."""

    def __init__(self, png: bytes, alt: str, problems: list[str]):
        self.png, self.alt, self.problems = png, alt, problems

    def bundle(self) -> tuple[dict, dict]:
        b64 = base64.b64encode(self.png).decode("ascii")
        alt = html.escape(self.alt, quote=True)
        markup = (f'<figure class="course-figure" style="margin:0">'
                  f'<img src="data:image/png;base64,{b64}" alt="{alt}" style="max-width:100%;height:auto">'
                  f'<details class="course-figure-text"><summary>Figure as text</summary>'
                  f'<p>{html.escape(self.alt)}</p></details></figure>')
        data = {"text/html": markup, "image/png": b64, "text/plain": self.alt}
        return data, {"course-figure": {"alt": self.alt, "style_problems": self.problems}}

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.bundle()


def figure_output(fig, summary: str, dpi: float | None = None) -> FigureOutput:
    """Render `fig` and its text alternative: `summary` (what the figure is for) then the description."""
    if not summary.strip():
        raise ValueError("show_figure needs a summary: one sentence saying what the figure shows")
    thin_markers(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi or fig.dpi, bbox_inches="tight")
    alt = f"{summary.strip().rstrip('.')}. {describe_figure(fig)}"
    return FigureOutput(buffer.getvalue(), alt, style_problems(fig))


def thin_markers(fig, spacing: float = 0.08) -> None:
    """Dense curves get a marker every `spacing` of the axes diagonal, not one per point (matplotlib
    has no rcParam for it); lines of a few points keep every marker."""
    for ax in fig.axes:
        for line in ax.lines:
            if line.get_marker() not in (None, "None", "", " ") and len(line.get_xdata()) > 15:
                line.set_markevery(spacing)


def show_figure(fig, summary: str, dpi: float | None = None) -> None:
    """Display `fig` with its text alternative and close it (so the inline backend does not show it twice).
    Returns nothing, so a last-line call is not displayed a second time as the cell's result."""
    from IPython.display import display

    import matplotlib.pyplot as plt

    display(figure_output(fig, summary, dpi))
    plt.close(fig)
