"""The five source documents the course was built from, cited the way a course cites a reading.

One place for their titles, authors and dates: lessons and quizzes cite them by `short` (never by
file number), the reading list page is generated from here (`python -m coursekit.sources`), and the
errata pages name them the same way.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from coursekit.paths import course_root


@dataclass(frozen=True)
class Source:
    key: str            # the file-number the authors' notes use; never shown to students
    short: str          # how lessons cite it in running text
    citation: str       # full reference: author or publisher, title, date where given
    what: str           # what kind of document it is and what the course uses it for
    reliability: str    # how far to trust it, with the reason
    errata: tuple[str, ...]  # modules whose errata page corrects it


SOURCES = {
    "003": Source(
        "003", "the “Two Modes, Two Hardware Philosophies” course text",
        '"Module 6" of an online course on AI hardware: lessons "Two Modes, Two Hardware Philosophies", '
        '"Training Chips: The A100 and H100 Era", "Inference Chips: Purpose-Built Accelerators" and '
        '"The Economics of Split Infrastructure", with quizzes, tutor labs and a module test (no author or date given)',
        "A four-lesson course module on training versus inference hardware; it feeds Modules 1 to 4.",
        "Useful framing and chip survey, but several figures are off (a revenue example 1,000x too large, "
        "an A100 ratio from a rounded bandwidth, a KV-cache size that ignores grouped-query attention) and "
        "vendor claims are repeated as facts. Check every number.",
        ("m1", "m2", "m3", "m4", "m6", "m7"),
    ),
    "000": Source(
        "000", "the co-design textbook section",
        'Textbook section 58.5, "Training-Inference Co-Design" (closing chapter 58; no author given)',
        "A textbook section on designing models for how they will be served; it feeds Module 5.",
        "Good on the ideas (inference-aware scaling, MoE, cascades), weaker on facts: it mislabels "
        "DeepSeek-V3 as \"V4\", cites a model and a paper we could not find, and states a cascade saving "
        "that holds only for some prices.",
        ("m5", "m4", "m6"),
    ),
    "001": Source(
        "001", "Spuler's blog post",
        'David Spuler, "LLM Training versus Inference Efficiency", Aussie AI Blog, 25 April 2026',
        "A practitioner's blog post comparing compute, memory, network and disk for training and "
        "inference; it feeds Modules 1 and 3.",
        "A broad, readable overview with few numbers; one technical claim (decode-time FFNs as "
        "compute-bound) is wrong at ordinary batch sizes.",
        ("m1", "m2", "m3", "m6"),
    ),
    "002": Source(
        "002", "the Whetstone Forum thread",
        'The Whetstone Forum, "Training and inference hit different bottlenecks, and I think the asymmetry '
        'matters more than people realize" (a post by user sasha and four replies)',
        "A discussion thread; Module 1 uses it as a debate to test with arithmetic.",
        "Opinion: its growth rates (\"4x a year\", \"20-30% a year\") are unsourced and compare different "
        "quantities.",
        ("m1", "m4"),
    ),
    "004": Source(
        "004", "the Training vs. Inference guide",
        '"Training vs. Inference", a concepts guide (15-minute read; no author or date given)',
        "An introductory guide to memory in numbers for training and serving; it feeds Module 1.",
        "Clear rules of thumb, but its 70B training-memory total leaves out the FP32 master copy its own "
        "rule includes, and it calls the KV cache a modest overhead.",
        ("m1", "m4"),
    ),
}



def reading_list_path() -> Path:
    return course_root() / "docs" / "reading-list.md"


def render_reading_list() -> str:
    lines = ["# Reading list: the sources this course is built on", "",
             "The course drew facts and figures from five documents. Each is listed with what it is, how far "
             "to trust it, and where the course corrects it; the errata pages list every correction with "
             "its primary reference. Every paper, datasheet and price page the course cites follows them.", ""]
    for s in SOURCES.values():
        lines += [f"## {s.short[0].upper()}{s.short[1:]}", "", f"**Reference.** {s.citation}.", "",
                  f"**What it is.** {s.what}", "", f"**Reliability.** {s.reliability}", "",
                  "**Corrections.** " + ", ".join(f"[Module {m[1:]} errata](errata/{m}.md)" for m in s.errata)
                  + ".", ""]
    return "\n".join(lines + _cited_works())


def _cited_works() -> list[str]:
    """Every paper (coursekit.references), chip datasheet (coursekit.hardware) and price page
    (coursekit.prices) the course cites, generated from where the numbers are stored."""
    from coursekit import hardware, prices, references

    lines = ["# Everything else the course cites", "",
             "Generated from `coursekit.references`, `coursekit.hardware` and `coursekit.prices`, the places the "
             "lessons, quizzes and labs take their numbers from.", "", "## Papers and reports", ""]
    for r in sorted(references.PAPERS, key=lambda r: r.key.lower()):
        lines.append(f"* {r.authors}, *{r.title}*, {r.venue}. <{r.link.split(' and ')[0]}>"
                     + (f" and <{r.link.split(' and ')[1]}>" if " and " in r.link else ""))
    lines += ["", "## Chip datasheets and announcements", "",
              "One line per chip variant (and per multi-chip system), with the document each figure comes from.", ""]
    for chip in hardware.ALL_CHIPS:
        lines.append(f"* **{chip.name}** ({chip.date}): {chip.source}.")
    for system in hardware.SYSTEMS:
        if system.source not in {c.source for c in hardware.ALL_CHIPS}:
            lines.append(f"* **{system.name}** ({system.date}): {system.source}.")
    lines += ["", "## Price pages", "",
              "Each price with the page or announcement it was read from and its date; "
              "`python -m coursekit.prices --stale` lists those older than a year.", ""]
    for p in sorted(prices.all_entries(), key=lambda p: prices.entry_date(p.date)):
        what = p.chip if isinstance(p, prices.RentalPrice) else p.model
        lines.append(f"* **{what}** ({p.date}): {p.source}.")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write docs/reading-list.md from coursekit.sources.")
    parser.add_argument("--check", action="store_true", help="fail if the committed page is out of date")
    args = parser.parse_args(argv)
    text, path = render_reading_list(), reading_list_path()
    if args.check:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            print(f"{path}: out of date; run python -m coursekit.sources")
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
