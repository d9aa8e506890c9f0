"""The similarity report as one HTML page: summary tables, then each pair's matching regions side by side.

Student code is hostile text: every piece of it goes through html.escape, the page has no script of its
own, and its Content-Security-Policy forbids scripts, frames, objects and remote loads, so a `</pre><script>`
in a cell is shown, never run. Accessibility (WCAG 2.1 AA, docs/ACCESSIBILITY.md): lang, headings in
order, tables with captions and header cells, code boxes that take keyboard focus (they scroll), links
underlined, and colours at 4.5:1 or more on their backgrounds.
"""
from __future__ import annotations

from collections import Counter

from html import escape

from autograder.similarity.match import Match
from autograder.similarity.report import Report, lines
from autograder.similarity.sources import Cell

MAX_SHOWN = 100         # pairs shown region by region; the summary table lists them all
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'"
STYLE = """
body { font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; margin: 1.5rem; line-height: 1.45;
       overflow-wrap: anywhere; }   /* long dotted names wrap at 200% zoom */
a, a:visited { color: #0b4f9c; text-decoration: underline; }
a:focus, pre:focus { outline: 3px solid #b35900; outline-offset: 2px; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #767676; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #e8eef5; }
table.side { table-layout: fixed; width: 100%; }     /* two halves; long lines scroll in their box, not the page */
summary { cursor: pointer; }
pre { margin: 0; overflow: auto; max-height: 30rem; background: #f6f6f6; color: #1a1a1a; padding: 0.4rem;
      font-size: 0.85rem; white-space: pre; }
.note { background: #fff4e0; border-left: 4px solid #b35900; padding: 0.5rem 0.8rem; }
"""


def _numbered(cell: Cell, first_line: int, last_line: int) -> str:
    text = cell.source.split("\n")[first_line - 1:last_line]
    width = len(str(last_line))
    return "\n".join(f"{n:>{width}} | {line}" for n, line in zip(range(first_line, last_line + 1), text))


def _pair_section(index: int, m: Match, reference: bool) -> str:
    a, b = m.a.doc.name, m.b.doc.name
    head = (f'<h3 id="{"ref" if reference else "pair"}-{index}">{escape(a)} and {escape(b)}: '
            f"{100 * (m.cover_b if reference else m.score):.0f}%</h3>\n"
            f"<p>{m.tokens_a} tokens of {escape(a)}'s own code ({100 * m.cover_a:.0f}%) and {m.tokens_b} of "
            f"{escape(b)}'s ({100 * m.cover_b:.0f}%) lie in {len(m.regions)} matching region(s).</p>\n")
    parts = [head]
    for n, r in enumerate(m.regions, 1):
        ca, cb = m.a.doc.cells[r.cell_a], m.b.doc.cells[r.cell_b]
        la, lb = lines(ca, r.first_a, r.last_a), lines(cb, r.first_b, r.last_b)
        where_a = f"{escape(ca.label)}, lines {la[0]}-{la[1]}"
        where_b = f"{escape(cb.label)}, lines {lb[0]}-{lb[1]}"
        parts.append(
            f'<table class="side">\n<caption>Region {n}: {escape(a)} ({where_a}) beside {escape(b)} ({where_b})</caption>\n'
            f'<tr><th scope="col">{escape(a)}: {where_a}</th><th scope="col">{escape(b)}: {where_b}</th></tr>\n'
            f'<tr><td><pre tabindex="0"><code>{escape(_numbered(ca, *la))}</code></pre></td>'
            f'<td><pre tabindex="0"><code>{escape(_numbered(cb, *lb))}</code></pre></td></tr>\n'
            "</table>\n")
    return "".join(parts)


def _summary(rows: list[list[str]], header: list[str], caption: str) -> str:
    if not rows:
        return f"<p>{escape(caption)}: none above the threshold.</p>\n"
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    return f"<table>\n<caption>{escape(caption)}</caption>\n<tr>{head}</tr>\n{body}</table>\n"


def _link(index: int, kind: str, name: str) -> str:
    """The name, linked to its regions when they are on the page."""
    return f'<a href="#{kind}-{index}">{escape(name)}</a>' if index <= MAX_SHOWN else escape(name)


def render(report: Report) -> str:
    lab = escape(report.lab)
    pair_rows = [[_link(i, "pair", m.a.doc.name), escape(m.b.doc.name), f"{100 * m.score:.0f}%",
                  f"{100 * m.cover_a:.0f}%", f"{100 * m.cover_b:.0f}%", str(len(m.regions))]
                 for i, m in enumerate(report.pairs, 1)]
    ref_rows = [[_link(i, "ref", m.a.doc.name),
                 escape(m.b.doc.name), f"{100 * m.cover_b:.0f}%", str(m.tokens_b)]
                for i, m in enumerate(report.references, 1)]
    skipped = "".join(f"<li>{escape(s)}: {escape(r)}</li>\n" for s, r in report.skipped)
    # the library's functions by module: the names of a hundred functions (most of them other labs') say less
    modules = Counter(name.rsplit(".", 1)[0].split(".<locals>")[0] for name in report.boilerplate[1:])
    left_out = "".join(f"<li>{escape(b)}</li>\n" for b in report.boilerplate[:1]) + "".join(
        f"<li>{escape(module)}: {count} function{'s' if count > 1 else ''}</li>\n"
        for module, count in sorted(modules.items()))
    references = "".join(f"<li>{escape(name)}</li>\n" for name in report.reference_code)
    return "".join([
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n',
        f"<title>Similarity report: {lab}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n",
        f"<h1>Similarity report: {lab}</h1>\n",
        '<p class="note">A report for the course staff to read, never a grade: a high score is a reason to '
        "look at the code, not a finding. Nothing here changes the gradebook.</p>\n",
        f"<p>{len(report.compared)} submissions compared, {len(report.skipped)} skipped. A pair is listed when "
        f"at least {100 * report.threshold:.0f}% of one side's own code (its code outside the starter notebook "
        f"and the course library) and at least {report.min_tokens} tokens lie in matching regions; reference "
        f"code is listed when {100 * report.ref_threshold:.0f}% of it, and at least {report.min_tokens} tokens, "
        "are found in a submission (a shorter piece, such as a one-line formula, is never listed). Names and "
        "literals are normalised, so renamed variables, new comments and moved cells still match.</p>\n",
        "<h2>Pairs of submissions</h2>\n",
        _summary(pair_rows, ["student", "student", "similarity", "of first", "of second", "regions"],
                 "Pairs of submissions above the threshold, most similar first"),
        "<h2>Matches with the course's reference code</h2>\n",
        "<p>The solution notebook's answer cells and the course-library functions this lab's tasks forbid: a "
        f"match is reference code pasted under another name. Only a piece of at least {report.min_tokens} "
        "tokens can be listed.</p>\n",
        f"<details>\n<summary>This lab's reference code</summary>\n<ul>\n{references}</ul>\n</details>\n",
        _summary(ref_rows, ["student", "reference", "of reference", "tokens"],
                 "Submissions containing reference code, largest share first"),
        "<h2>Skipped submissions</h2>\n", f"<ul>\n{skipped}</ul>\n" if skipped else "<p>None.</p>\n",
        f"<h2>Left out of matching</h2>\n<details>\n<summary>The released starter and {len(report.boilerplate) - 1} "
        f"course-library functions of the modules the lab imports</summary>\n<ul>\n{left_out}</ul>\n</details>\n",
        "<h2>Matching regions: pairs of submissions</h2>\n",
        "".join(_pair_section(i, m, False) for i, m in enumerate(report.pairs[:MAX_SHOWN], 1)) or "<p>None.</p>\n",
        "<h2>Matching regions: reference code</h2>\n",
        "".join(_pair_section(i, m, True) for i, m in enumerate(report.references[:MAX_SHOWN], 1)) or "<p>None.</p>\n",
        "</main>\n</body>\n</html>\n"])
