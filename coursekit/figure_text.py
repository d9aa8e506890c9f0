"""A matplotlib figure described in words, from what it plots: the text alternative of coursekit.figures.

For each panel: its title, its axes (label, log scale), then each series: a curve's values (every
point when there are few, else its start, end and extremes), bars with their categories, reference
lines and bands, scatter points and their annotations. Numbers keep three significant digits
(whole numbers in full).
"""
from __future__ import annotations

import datetime as dt
import math

from matplotlib.container import BarContainer
from matplotlib.patches import Polygon, Rectangle

FEW = 8          # up to this many points or bars are all read out


def number(v) -> str:
    """3 significant digits (whole numbers in full), thousands separators; powers of ten in words when
    very large or small."""
    if isinstance(v, (dt.date, dt.datetime)):
        return v.strftime("%Y-%m-%d")
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(v):
        return "no value"
    if v == 0:
        return "0"
    exp = math.floor(math.log10(abs(v)))
    if -3 <= exp < 10:                # up to billions in full: a screen reader says "3 billion"
        digits = max(0, 2 - exp)
        text = f"{round(v, digits):,.{digits}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    mantissa = v / 10 ** exp
    return f"{mantissa:.3g} times 10 to the {exp}"


def _label(artist) -> str:
    label = artist.get_label() or ""
    return "" if label.startswith("_") else label


def _axis(ax, which: str) -> str:
    axis = ax.xaxis if which == "x" else ax.yaxis
    label = axis.get_label().get_text() or "not labelled"
    scale = ax.get_xscale() if which == "x" else ax.get_yscale()
    return f"{label}{' (log scale)' if scale == 'log' and 'log' not in label else ''}"


def _categorical(axis) -> bool:
    converter = axis.get_converter() if hasattr(axis, "get_converter") else axis.converter
    return "Category" in type(converter).__name__


def _tick_texts(ax, which: str) -> list[tuple[float, str]]:
    """The axis's text tick labels with their positions (numbers only on a categorical axis). Read once
    per set of bars: asking the axis again for each of a histogram's 120 bars took half a second."""
    axis = ax.xaxis if which == "x" else ax.yaxis
    ticks = [(tick, label.get_text().replace("\u2212", "-"))
             for tick, label in zip(axis.get_ticklocs(), axis.get_ticklabels())]
    return [(tick, t) for tick, t in ticks if t and (_categorical(axis) or not _is_number(t))]


def _tick_name(ax, which: str, position: float, reach: float = 1e-6,
               ticks: list[tuple[float, str]] | None = None) -> str | None:
    """The category a bar stands for: the text tick label nearest its centre, within `reach`
    (bars drawn side by side sit off their group's tick)."""
    named = [(abs(tick - position), t) for tick, t in (_tick_texts(ax, which) if ticks is None else ticks)]
    named = [(d, t) for d, t in named if d <= reach]
    return min(named)[1] if named else None


def _is_reference(ax, line) -> bool:
    return line.get_transform() != ax.transData and len(line.get_xdata()) == 2


def _reference(ax, line) -> str:
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    name = _label(line)
    if ys[0] == ys[1]:
        where = f"horizontal line at {_axis(ax, 'y').split(' (')[0]} = {number(ys[0])}"
    else:
        where = f"vertical line at {_axis(ax, 'x').split(' (')[0]} = {number(_date(ax, xs[0]))}"
    return f"{where}{f' ({name})' if name else ''}"


def _date(ax, x):
    """x as a date when the x axis shows dates (matplotlib stores them as day numbers)."""
    from matplotlib.dates import num2date

    converter = ax.xaxis.get_converter() if hasattr(ax.xaxis, "get_converter") else ax.xaxis.converter
    if converter is not None and "Date" in type(converter).__name__ and isinstance(x, (int, float)):
        return num2date(x).date()
    return x


def _curve(ax, line) -> str:
    xs, ys = list(line.get_xdata()), [float(y) for y in line.get_ydata()]
    name = _label(line) or "a curve"
    pairs = [(x, y) for x, y in zip(xs, ys) if not math.isnan(y)]
    if not pairs:
        return f"{name}: no values"
    if len(pairs) == 1 and not _label(line):
        return f"a marked point at x = {number(pairs[0][0])}, y = {number(pairs[0][1])}"
    if len(pairs) <= FEW:
        points = "; ".join(f"{number(x)}: {number(y)}" for x, y in pairs)
        return f"{name}, {len(pairs)} point{'s' if len(pairs) > 1 else ''} (x: y): {points}"
    (x0, y0), (x1, y1) = pairs[0], pairs[-1]
    text = f"{name}, {len(pairs):,} points, from {number(y0)} at x = {number(x0)} to {number(y1)} at x = {number(x1)}"
    lo, hi = min(pairs, key=lambda p: p[1]), max(pairs, key=lambda p: p[1])
    if lo not in (pairs[0], pairs[-1]):
        text += f", lowest {number(lo[1])} at x = {number(lo[0])}"
    if hi not in (pairs[0], pairs[-1]):
        text += f", highest {number(hi[1])} at x = {number(hi[0])}"
    return text


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", ""))
        return True
    except ValueError:
        return False


def _bars(ax, container: BarContainer) -> str:
    horizontal = getattr(container, "orientation", "vertical") == "horizontal"
    name = _label(container) or ("bars" if len(container.patches) <= FEW else "histogram")
    rows = []
    ticks = _tick_texts(ax, "y" if horizontal else "x")
    for bar in container.patches:
        if horizontal:
            position, start, size = bar.get_y() + bar.get_height() / 2, bar.get_x(), bar.get_width()
        else:
            position, start, size = bar.get_x() + bar.get_width() / 2, bar.get_y(), bar.get_height()
        width = bar.get_height() if horizontal else bar.get_width()
        category = (_tick_name(ax, "y" if horizontal else "x", position, reach=abs(width) * 0.75, ticks=ticks)
                    or number(position))
        if size or not start:                      # a stacked segment of zero height is not there
            rows.append((category, start, size))
    named = _categorical(ax.yaxis if horizontal else ax.xaxis) or all(not _is_number(c) for c, _, _ in rows)
    if len(rows) <= FEW or (named and len(rows) <= 15):
        parts = []
        for category, start, size in rows:
            span = f"{number(start)} to {number(start + size)}" if abs(start) > 1e-12 else number(size)
            parts.append(f"{category}: {span}")
        return f"{name}, {len(rows)} bar{'s' if len(rows) > 1 else ''}: " + "; ".join(parts)
    tallest = max(rows, key=lambda r: r[2])
    return (f"{name}, {len(rows):,} bars from {rows[0][0]} to {rows[-1][0]}, "
            f"the tallest {number(tallest[2])} at {tallest[0]}")


def _band(ax, patch) -> str | None:
    name = _label(patch)
    if not name:
        return None
    (x0, y0), (x1, y1) = patch.get_extents().transformed(ax.transData.inverted()).get_points()
    if patch.get_transform() != ax.transData:      # axhspan / axvspan: spans the whole other axis
        if abs(x1 - x0) >= abs(ax.get_xlim()[1] - ax.get_xlim()[0]) * 0.99:
            return f"shaded band from {_axis(ax, 'y').split(' (')[0]} = {number(min(y0, y1))} to {number(max(y0, y1))} ({name})"
        return f"shaded band from {_axis(ax, 'x').split(' (')[0]} = {number(min(x0, x1))} to {number(max(x0, x1))} ({name})"
    return f"{name}: outline over x = {number(min(x0, x1))} to {number(max(x0, x1))}, up to y = {number(max(y0, y1))}"


def _scatter(ax, collection) -> str | None:
    offsets = collection.get_offsets()
    if len(offsets) == 0:
        return None
    name = _label(collection) or "points"
    notes = {(round(float(t.xy[0]), 9), round(float(t.xy[1]), 9)): t.get_text()
             for t in ax.texts if hasattr(t, "xy")}
    parts = []
    for x, y in offsets[:FEW]:
        note = notes.get((round(float(x), 9), round(float(y), 9)))
        parts.append(f"{note + ' ' if note else ''}at x = {number(x)}, y = {number(y)}")
    more = f" and {len(offsets) - FEW} more" if len(offsets) > FEW else ""
    return f"{name}: " + "; ".join(parts) + more


def describe_axes(ax) -> str:
    parts = []
    title = ax.get_title() or ax.get_title("left")
    head = f"{title}. " if title else ""
    parts.append(f"{head}x axis: {_axis(ax, 'x')}; y axis: {_axis(ax, 'y')}.")
    series = []
    for container in ax.containers:
        if isinstance(container, BarContainer):
            series.append(_bars(ax, container))
    in_bars = {id(p) for c in ax.containers for p in getattr(c, "patches", [])}
    for line in ax.lines:
        series.append(_reference(ax, line) if _is_reference(ax, line) else _curve(ax, line))
    for patch in ax.patches:
        if id(patch) not in in_bars and isinstance(patch, (Polygon, Rectangle)):
            band = _band(ax, patch)
            if band:
                series.append(band)
    for collection in ax.collections:
        if hasattr(collection, "get_offsets"):
            text = _scatter(ax, collection)
            if text:
                series.append(text)
    unplaced = [t.get_text() for t in ax.texts if not hasattr(t, "xy") and t.get_text()]
    if unplaced:
        series.append("notes: " + "; ".join(unplaced))
    parts += [s + "." for s in series if s]
    return " ".join(parts)


def describe_figure(fig) -> str:
    """The figure in words: its title, then each panel with data (colour bars and empty axes skipped)."""
    panels = [ax for ax in fig.axes if ax.lines or ax.containers or ax.collections or ax.patches]
    suptitle = fig._suptitle.get_text() if getattr(fig, "_suptitle", None) else ""
    out = [f"{suptitle}." if suptitle else ""]
    for n, ax in enumerate(panels, 1):
        prefix = f"Panel {n} of {len(panels)}: " if len(panels) > 1 else ""
        out.append(prefix + describe_axes(ax))
    return " ".join(p for p in out if p)


def style_problems(fig) -> list[str]:
    """Series in one panel that differ only by colour (same line style, marker and hatch), so a reader
    who does not tell the colours apart cannot tell them apart either."""
    problems = []
    for n, ax in enumerate(fig.axes, 1):
        seen: dict[tuple, str] = {}
        items = [(_label(line), ("line", str(line.get_linestyle()), str(line.get_marker())))
                 for line in ax.lines if not _is_reference(ax, line)]
        items += [(_label(c), ("bars", c.patches[0].get_hatch() if c.patches else None))
                  for c in ax.containers if isinstance(c, BarContainer)]
        for label, look in items:
            if not label:
                continue
            if look in seen:
                problems.append(f"panel {n}: {seen[look]!r} and {label!r} differ only by colour")
            seen.setdefault(look, label)
    return problems
