"""Every figure a lesson or lab draws has a text alternative that says what it shows, and the course's
plot colours stay distinguishable under colour-vision deficiency (WCAG 2.1: 1.1.1, 1.4.1, 1.4.3, 1.4.11)."""
from __future__ import annotations

import html
import itertools
import re

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after matplotlib.use('Agg'), which must come first

from alt_text import meaningful  # noqa: E402 - after matplotlib.use('Agg'), which must come first
from coursekit import figures  # noqa: E402 - after matplotlib.use('Agg'), which must come first
from coursekit.figure_text import describe_figure, number, style_problems  # noqa: E402 - after matplotlib.use('Agg'), which must come first
from paths import ROOT

NOTEBOOKS = sorted((ROOT / "course").glob("m*/[0-9]*.ipynb")) + sorted((ROOT / "solutions").glob("*/*.ipynb"))
IMG = re.compile(r"<img\b[^>]*?\balt=\"([^\"]*)\"", re.S)


# Machado, Oliveira & Fernandes (2009), IEEE TVCG 15(6), severity 1.0, applied to linear RGB.
CVD = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]],
}


def linear(hex_colour: str) -> np.ndarray:
    c = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def lab(rgb_linear: np.ndarray) -> np.ndarray:
    """CIE L*a*b* (D65) of a linear-RGB colour."""
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ np.clip(rgb_linear, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio."""
    la, lb = (float(np.dot([0.2126, 0.7152, 0.0722], linear(c))) for c in (a, b))
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_palette_stays_distinguishable_under_simulated_colour_blindness():
    """Every pair of series colours stays at least 15 CIELAB units apart as seen with protanopia,
    deuteranopia and tritanopia (about 2.3 is a just-noticeable difference), and in normal vision."""
    worst = {}
    for name, matrix in {"normal": np.eye(3), **CVD}.items():
        seen = {c: lab(np.array(matrix) @ linear(c)) for c in figures.PALETTE}
        worst[name] = min((float(np.linalg.norm(seen[a] - seen[b])), a, b)
                          for a, b in itertools.combinations(figures.PALETTE, 2))
    assert all(d >= 15 for d, _, _ in worst.values()), worst
    # the simulation is not the identity: red and green, told apart in normal vision, are not with deuteranopia
    red, green = "#FF0000", "#00A000"
    d = {name: np.linalg.norm(lab(np.array(m) @ linear(red)) - lab(np.array(m) @ linear(green)))
         for name, m in {"normal": np.eye(3), "deuteranopia": CVD["deuteranopia"]}.items()}
    assert d["normal"] > 80 and d["deuteranopia"] < 15, d


def test_plot_colours_meet_contrast_on_white():
    """Lines and bars 3:1 against the white plot background (1.4.11), text 4.5:1 (1.4.3)."""
    for colour in (*figures.PALETTE, figures.REFERENCE):
        assert contrast(colour, "#FFFFFF") >= 3.0, colour
    for key in ("text.color", "axes.labelcolor", "xtick.color", "ytick.color"):
        colour = matplotlib.colors.to_hex(figures.STYLE[key])
        assert contrast(colour, "#FFFFFF") >= 4.5, key


def test_series_differ_by_more_than_colour():
    """The style gives each series its own colour, line style and marker."""
    cycle = list(figures.STYLE["axes.prop_cycle"])
    looks = {(str(c["linestyle"]), c["marker"]) for c in cycle}
    assert len(looks) == len(cycle) == len(figures.PALETTE)
    figures.apply_style()
    fig, ax = plt.subplots()
    for k in range(3):
        ax.plot([1, 2, 3], [k, k + 1, k + 3], label=f"series {k}")
    assert style_problems(fig) == []
    fig2, ax2 = plt.subplots()
    for k in range(2):
        ax2.plot([1, 2], [k, k + 1], "o-", label=f"same look {k}")
    assert style_problems(fig2) == ["panel 1: 'same look 0' and 'same look 1' differ only by colour"]
    plt.close("all")


def test_the_description_reads_out_what_is_plotted():
    figures.apply_style()
    fig, (a, b) = plt.subplots(1, 2)
    a.bar(["BF16", "INT8"], [140, 70], label="GB of weights")
    a.axhline(80, linestyle=":", label="one H100")
    a.set(title="Weights", ylabel="GB")
    b.loglog([2 ** k for k in range(20)], [1000 / 2 ** k for k in range(20)], label="time")
    b.set(xlabel="batch", ylabel="seconds")
    fig.suptitle("Two panels")
    text = describe_figure(fig)
    assert text.startswith("Two panels. Panel 1 of 2: Weights. x axis: not labelled; y axis: GB.")
    assert "GB of weights, 2 bars: BF16: 140; INT8: 70." in text
    assert "horizontal line at GB = 80 (one H100)" in text
    assert "Panel 2 of 2:" in text and "x axis: batch (log scale); y axis: seconds (log scale)" in text
    assert "time, 20 points, from 1,000 at x = 1 to 0.00191 at x = 524,288" in text
    out = figures.figure_output(fig, "What the two panels compare.")
    data, metadata = out.bundle()
    assert html.unescape(IMG.search(data["text/html"]).group(1)) == out.alt == data["text/plain"]
    assert out.alt.startswith("What the two panels compare. Two panels.") and meaningful(out.alt)
    with pytest.raises(ValueError, match="needs a summary"):
        figures.figure_output(fig, "  ")
    plt.close("all")


@pytest.mark.parametrize("value, text", [(1234.6, "1,235"), (0.0123, "0.0123"), (5.76e23, "5.76 times 10 to the 23"),
                                         (80, "80"), (0, "0"), (-2.5, "-2.5"), (1e-5, "1 times 10 to the -5"), (3.64e9, "3,640,000,000"), (2.5e10, "2.5 times 10 to the 10")])
def test_numbers_read_well(value, text):
    assert number(value) == text


def image_outputs(nb):
    """(where, output) for every output with an image: cell outputs and Output widgets' saved state."""
    for n, cell in enumerate(nb.cells, 1):
        for output in cell.get("outputs", []):
            if any(k.startswith("image/") for k in output.get("data", {})):
                yield f"cell {n}", output
    state = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for model_id, model in state.items():
        for output in model.get("state", {}).get("outputs", []):
            if any(k.startswith("image/") for k in output.get("data", {})):
                yield f"widget {model_id}", output


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.relative_to(ROOT).as_posix() for p in NOTEBOOKS])
def test_every_figure_has_a_text_alternative(path, executed_notebooks):
    nb = executed_notebooks.get(path)
    problems, seen = [], 0
    for where, output in image_outputs(nb):
        seen += 1
        alts = IMG.findall(output["data"].get("text/html", ""))
        alt = html.unescape(alts[0]) if alts else ""
        if not meaningful(alt):
            problems.append(f"{where}: figure without a meaningful text alternative: {alt[:80]!r}")
        for problem in output.get("metadata", {}).get("course-figure", {}).get("style_problems", []):
            problems.append(f"{where}: {problem}")
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)
    if path.is_relative_to(ROOT / "course"):
        assert seen, "a lesson draws at least one figure"
