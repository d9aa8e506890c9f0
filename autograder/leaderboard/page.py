"""The leaderboard as a table (terminal), JSON (for the hub and the website) and one HTML page.

The page follows the similarity report's rules (autograder/similarity/page.py): every name is escaped,
no script runs (a Content-Security-Policy forbids scripts and remote loads), and it meets WCAG 2.1 AA:
lang, a title, one table with a caption and header cells, and colours at 4.5:1 or more.
"""
from __future__ import annotations

import datetime as dt
from html import escape

from autograder.leaderboard.board import Standing
from autograder.record.tables import table

CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'"
STYLE = """
body { font-family: system-ui, sans-serif; color: #1a1a1a; background: #fff; margin: 1.5rem; line-height: 1.45;
       overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid #767676; padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #e8eef5; }
.note { background: #fff4e0; border-left: 4px solid #b35900; padding: 0.5rem 0.8rem; }
"""


def _ratio(s: Standing, grade_id: str) -> str:
    if grade_id not in s.ratios:
        return "-"
    return f"{s.ratios[grade_id]:.2f}x" + (" (noisy)" if grade_id in s.noisy else "")


def columns(board: list[Standing]) -> list[str]:
    return sorted({g for s in board for g in s.ratios})


def as_rows(board: list[Standing]) -> tuple[list[str], list[list[str]]]:
    tasks = columns(board)
    header = ["rank", "name", "score", "speed (geo. mean)", *[f"{g} speed" for g in tasks], "re-measured"]
    rows = [[str(s.rank), s.name, f"{s.score:g}/{s.max_score:g}", f"{s.speed:.2f}x" if s.speed else "-",
             *[_ratio(s, g) for g in tasks], "yes" if s.rerun else "no"] for s in board]
    return header, rows


def text(lab_id: str, board: list[Standing]) -> str:
    if not board:
        return f"{lab_id}: no graded submission has speed measurements yet (grade it first)"
    header, rows = as_rows(board)
    return (f"{lab_id} leaderboard: speed is the grader's own measurement against the course's reference engine "
            f"(above 1x: faster)\n" + table(header, rows))


def as_json(lab_id: str, board: list[Standing]) -> dict:
    """What the hub and the website show: no student id, only the opt-in names."""
    return {"lab": lab_id, "published": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "entries": [{"rank": s.rank, "name": s.name, "score": s.score, "max_score": s.max_score,
                         "speed": round(s.speed, 4) if s.speed else None, "ratios": s.ratios, "noisy": s.noisy,
                         "remeasured": s.rerun} for s in board]}


def html(lab_id: str, board: list[Standing]) -> str:
    header, rows = as_rows(board)
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
    cell = lambda i, c: f"<td>{escape(c)}</td>" if i == 1 else f'<td class="num">{escape(c)}</td>'  # noqa: E731  (1: the name)
    body = "".join("<tr>" + "".join(cell(i, c) for i, c in enumerate(row)) + "</tr>\n" for row in rows)
    empty = "" if board else '<p class="note">No graded submission has speed measurements yet.</p>\n'
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(lab_id)} leaderboard</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n"
            f"<h1>{escape(lab_id)} leaderboard</h1>\n"
            "<p>Ranked by score, then by speed: the grader's own measurement of each engine against the course's "
            "reference engine at the same milestone (reference seconds over the engine's, median of interleaved "
            "timed pairs; above 1x is faster). Names appear only for learners who opted in; the top entries "
            "were measured again before this page was written.</p>\n"
            f"{empty}<table>\n<caption>{escape(lab_id)}: {len(board)} timed submission(s)</caption>\n"
            f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n</main>\n</body>\n</html>\n")
