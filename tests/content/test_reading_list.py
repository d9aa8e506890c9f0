"""The reading list names every paper the course cites ("Surname et al. YEAR", "A and B YEAR"), every chip
datasheet and every price page, generated from the modules the numbers come from."""
from __future__ import annotations

import re

from coursekit import hardware, prices, references, sources
from paths import ROOT

CITING = sorted([*ROOT.glob("course/**/*.ipynb"), *ROOT.glob("solutions/**/*.ipynb"), *ROOT.glob("quizzes/m*/*.yaml"),
                 *ROOT.glob("docs/errata/*.md"), *ROOT.glob("coursekit/calc/*.py"),
                 *ROOT.glob("coursekit/exercises/lessons/*.yaml")])
CITE = re.compile(r"\b([A-Z][A-Za-z'-]+)(?: et al\.| and [A-Z][A-Za-z-]+| & [A-Z][A-Za-z-]+),? \(?((?:19|20)\d\d)[ab]?\b")
MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "January", "February",
          "March", "April", "June", "July", "August", "September", "October", "November", "December"}


def _listed(surname: str, year: str) -> bool:
    return any(surname in r.authors and year in f"{r.key} {r.venue}" for r in references.PAPERS)


def test_every_paper_cited_by_author_and_year_is_on_the_reading_list():
    missing = set()
    for path in CITING:
        for surname, year in CITE.findall(path.read_text(encoding="utf-8")):
            if surname not in MONTHS and not _listed(surname, year):
                missing.add(f"{surname} {year} ({path.relative_to(ROOT)})")
    assert not missing, "add to coursekit/references.py: " + "; ".join(sorted(missing)[:15])


def test_reading_list_has_every_paper_chip_and_price_with_a_link_or_source():
    assert sources.main(["--check"]) == 0, "run python -m coursekit.sources"
    text = sources.reading_list_path().read_text(encoding="utf-8")
    for r in references.PAPERS:
        assert r.title in text and r.link.split(" and ")[0] in text and re.search(r"(19|20)\d\d", r.venue + r.key)
        assert r.link.startswith("https://")
    for chip in hardware.ALL_CHIPS:
        assert chip.source in text
    for p in prices.all_entries():
        assert p.source in text
