"""`autograder similarity LAB`: pairs of submissions, and submissions and the course's reference code,
that share more than a threshold of their code; a plain-text table, a JSON form and an HTML page.

It is a report for a person to read, never a grade: nothing here writes to the gradebook or the
results store, and a pair above the threshold is a reason to look, not a finding.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from autograder.course import Course
from autograder.record.tables import table
from autograder.similarity import sources
from autograder.similarity.fingerprint import K, W
from autograder.similarity.match import Match, boilerplate_hashes, candidate_pairs, compare, prepare, too_common

THRESHOLD = 0.5         # share of one side's own code inside matching regions
# Against the reference, the share of the reference found in a student's code: honest work aims at the
# same answer, so it shares more with the reference than with a classmate (Lab 3: honest at most 50%,
# pasted at least 79%, tests/grading/similarity/test_similarity.py), and the bar is higher.
REF_THRESHOLD = 0.7
MIN_TOKENS = 50         # and at least this many tokens matched on both sides: a formula every student
                        # writes the same way (Lab 3's KV bytes: 44 tokens) is not a copy


@dataclass
class Report:
    lab: str
    threshold: float
    min_tokens: int
    ref_threshold: float
    compared: list[str]                                    # students whose code was compared
    skipped: list[tuple[str, str]]                         # (student, reason)
    pairs: list[Match]                                     # student with student, best first
    references: list[Match]                                # student (a) with reference code (b)
    boilerplate: list[str] = field(default_factory=list)   # what was left out of matching
    reference_code: list[str] = field(default_factory=list)  # this lab's: solution cells, what its tasks forbid


def _keep(match: Match | None, score: float, threshold: float, min_tokens: int) -> bool:
    return match is not None and score >= threshold and min(match.tokens_a, match.tokens_b) >= min_tokens


def build(course: Course, lab: str, threshold: float = THRESHOLD, min_tokens: int = MIN_TOKENS,
          max_common: int | None = None, ref_threshold: float = REF_THRESHOLD) -> Report:
    spec = course.spec(lab)
    starter = sources.starter_cells(course, spec)
    seen: set[str] = set()
    forbidden = sorted({name for task in spec.tasks for name in task.forbids})
    references = sources.solution_docs(spec) + sources.library_docs(forbidden, seen)
    library = sources.library_docs(sources.imported_modules(starter), seen)   # forbidden ones already taken
    students, skipped = [], []
    given_cells = {cell.source for cell in starter}
    for submission in course.submissions(lab):
        try:
            doc = sources.read_student(course, submission.student_id, submission.notebook)
        except ValueError as reason:
            skipped.append((submission.student_id, str(reason)))
            continue
        doc.cells = [cell for cell in doc.cells if cell.source not in given_cells]   # untouched: all starter
        students.append(doc)
    given = [sources.Doc("starter notebook", "boilerplate", starter)] + library
    sources.tokenize_all(given + references + students)
    common = boilerplate_hashes(given)
    ready = [prepare(doc, common) for doc in students]
    refs = [p for p in (prepare(doc, common) for doc in references) if p.fps]
    ignore = too_common(ready, max_common)
    pairs = [m for i, j in candidate_pairs(ready, ignore=ignore) if _keep(
        m := compare(ready[i], ready[j], ignore), m.score if m else 0, threshold, min_tokens)]
    # against the reference, what counts is how much of the reference is in the student's code
    found = [m for i, j in candidate_pairs(ready, refs) if _keep(
        m := compare(ready[i], refs[j]), m.cover_b if m else 0, ref_threshold, min_tokens)]
    return Report(lab, threshold, min_tokens, ref_threshold, [d.name for d in students], skipped,
                  sorted(pairs, key=lambda m: (-m.score, m.a.doc.name, m.b.doc.name)),
                  sorted(found, key=lambda m: (-m.cover_b, m.a.doc.name, m.b.doc.name)),
                  [f"{spec.lab_id}/{spec.notebook} (released starter)"] + [d.name for d in library],
                  [d.name for d in references if d.name.startswith("solution notebook")]
                  + [name for name in forbidden if name.startswith("coursekit")])


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def text(report: Report) -> str:
    out = [f"== {report.lab}: similarity of {len(report.compared)} submissions ({len(report.skipped)} skipped); "
           f"a pair is listed at {_pct(report.threshold)} of one side's own code and {report.min_tokens} tokens, "
           f"a reference match at {_pct(report.ref_threshold)} of the reference and {report.min_tokens} tokens. "
           "A report to read, not a grade."]
    rows = [[m.a.doc.name, m.b.doc.name, _pct(m.score), _pct(m.cover_a), _pct(m.cover_b), len(m.regions)]
            for m in report.pairs]
    out += ["pairs of submissions:", table(["student", "student", "similarity", "of first", "of second", "regions"],
                                           rows) if rows else "  none above the threshold"]
    rows = [[m.a.doc.name, m.b.doc.name, _pct(m.cover_b), m.tokens_b] for m in report.references]
    out += ["matches with the course's reference code:",
            table(["student", "reference", "of reference", "tokens"], rows) if rows else "  none above the threshold"]
    if report.skipped:
        out.append("skipped:")
        out += [f"  {student}: {reason}" for student, reason in report.skipped]
    return "\n".join(out)


def _region_json(m: Match) -> list[dict]:
    out = []
    for r in m.regions:
        ca, cb = m.a.doc.cells[r.cell_a], m.b.doc.cells[r.cell_b]
        out.append({"a": {"cell": ca.label, "lines": lines(ca, r.first_a, r.last_a)},
                    "b": {"cell": cb.label, "lines": lines(cb, r.first_b, r.last_b)}})
    return out


def lines(cell: sources.Cell, first: int, last: int) -> list[int]:
    """[first line, last line] (1-based) of the tokens first..last-1 of a cell."""
    last = min(last, len(cell.toks))
    return [cell.toks[first].line, max(t.end for t in cell.toks[first:last])]


def as_json(report: Report) -> str:
    def match(m: Match, kind: str) -> dict:
        score = m.cover_b if kind[1] == "reference" else m.score      # against the reference: its share found
        return {kind[0]: m.a.doc.name, kind[1]: m.b.doc.name, "similarity": round(score, 4),
                "cover": [round(m.cover_a, 4), round(m.cover_b, 4)], "tokens": [m.tokens_a, m.tokens_b],
                "regions": _region_json(m)}
    return json.dumps({
        "lab": report.lab, "note": "a report to read, not a grade",
        "settings": {"threshold": report.threshold, "min_tokens": report.min_tokens,
                     "ref_threshold": report.ref_threshold, "k": K, "window": W},
        "compared": report.compared, "boilerplate": report.boilerplate,
        "skipped": [{"student": s, "reason": r} for s, r in report.skipped],
        "pairs": [match(m, ("student_a", "student_b")) for m in report.pairs],
        "reference_matches": [match(m, ("student", "reference")) for m in report.references],
    }, indent=1)
