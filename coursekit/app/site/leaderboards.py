"""A class's published leaderboards as pages of the course site (`course site --leaderboard DIR`).

DIR holds what `autograder leaderboard LAB` wrote (LAB.json: ranks, opt-in names, the grader's measured
speed ratios; no student id). Each board of a lab in the outline becomes leaderboard/LAB.md, and the
lab's page ends with a link to it. The site reads the JSON as data: every name is escaped, a board that
is not the shape the grader writes is named in the build log and left out, and the rest of the site is
built as usual.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

import nbformat

FOLDER = "leaderboard"
NUMBER = (int, float)
ENTRY = {"rank": (int, "a whole number"), "name": (str, "text"), "score": (NUMBER, "a number"),
         "max_score": (NUMBER, "a number"), "ratios": (dict, "an object of task: ratio")}


def _problem(data) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        return "not a leaderboard: expected an object with an 'entries' list"
    for n, entry in enumerate(data["entries"], 1):
        if not isinstance(entry, dict):
            return f"entry {n} is not an object"
        for key, (kind, said) in ENTRY.items():
            if not isinstance(entry.get(key), kind) or isinstance(entry.get(key), bool):
                return f"entry {n}: {key!r} is missing or not {said}"
        if not all(isinstance(r, NUMBER) for r in entry["ratios"].values()):
            return f"entry {n}: a speed ratio is not a number"
        if entry.get("speed") is not None and not isinstance(entry["speed"], NUMBER):
            return f"entry {n}: 'speed' is not a number"
    return None


def load_boards(folder: Path | None, labs: list[str], log=print) -> dict[str, dict]:
    """lab id -> its board, for the labs of the outline that have a well-formed LAB.json in `folder`."""
    if folder is None:
        return {}
    if not Path(folder).is_dir():
        raise RuntimeError(f"--leaderboard {folder}: no such folder")
    boards = {}
    for lab in labs:
        path = Path(folder) / f"{lab}.json"
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            log(f"  leaving out {path}: cannot be read as JSON ({error})")
            continue
        problem = _problem(data)
        if problem:
            log(f"  leaving out {path}: {problem}")
            continue
        boards[lab] = data
    return boards


def _speed(value) -> str:
    return f"{value:.2f}x" if isinstance(value, NUMBER) and value > 0 else "-"


def board_page(lab: str, data: dict, lab_page: str) -> str:
    """The page's MyST source: a heading, what the numbers are, and one table with header cells."""
    tasks = sorted({t for e in data["entries"] for t in e["ratios"]})
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in
                   ["Rank", "Name", "Score", "Speed (geometric mean)", *[f"{t} speed" for t in tasks]])
    rows = []
    for e in data["entries"]:
        noisy = set(e.get("noisy") or [])
        cells = [str(e["rank"]), escape(e["name"]), f"{e['score']:g}/{e['max_score']:g}", _speed(e.get("speed")),
                 *[_speed(e["ratios"].get(t)) + (" (noisy)" if t in noisy else "") for t in tasks]]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    table = (f"<table>\n<caption>{escape(lab)}: {len(rows)} timed engine(s)</caption>\n<thead><tr>{head}</tr></thead>\n"
             f"<tbody>\n" + "\n".join(rows) + "\n</tbody>\n</table>" if rows
             else "No graded engine had been timed when this board was published.")
    published = escape(str(data.get("published", "")))
    return (f"---\norphan: true\n---\n\n# {lab}: class leaderboard\n\n"
            "Engines ranked by score (milestones passed), then by speed: the grader's own measurement of each "
            "engine against the course's reference engine, both timed in the same sandbox (reference seconds "
            "over the engine's; above 1x is faster). Only learners who opted in are named."
            + (f" Published {published}." if published else "") + "\n\n"
            f"{table}\n\nBack to [the lab]({lab_page}).\n")


def link_cell(lab: str, lab_rel: str):
    """The cell that ends the lab's page: where its class leaderboard is."""
    up = "../" * (len(Path(lab_rel).parts) - 1)
    return nbformat.v4.new_markdown_cell(
        f"## Class leaderboard\n\nYour class's engines, ranked by the grader's own measurements: "
        f"[the {lab} leaderboard]({up}{FOLDER}/{lab}.md).")
