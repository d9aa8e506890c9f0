"""A superlative in a lesson ("more than any", "first", "only") names its source or is computed.

Such claims go stale as chips ship (the MI355X's "more HBM than any NVIDIA part" stopped being true three
months before it shipped) or repeat a vendor's launch line (Ironwood as Google's "first TPU designed for
inference", though TPU v1 was inference-only). docs/DESIGN.md states the rule; this test enforces it on
every lesson's markdown, paragraph by paragraph and bullet by bullet.
"""
from __future__ import annotations

import re

import nbformat
import pytest

from paths import ROOT

LESSONS = sorted(ROOT.glob("course/m*/0*.ipynb"))

SUPERLATIVE = re.compile(
    r"more [\w\s-]{0,40}? than any"
    r"|\b(?:\w+'s|the|its|their) first (?:TPU|GPU|chip|accelerator|processor|[\w-]+ (?:chip|GPU|TPU))"
    r"|\b(?:the|its|their) only (?:TPU|GPU|chip|accelerator|vendor|[\w-]+ (?:chip|GPU|TPU|vendor))"
    r"|\b(?:the )?first to\b|\bthe only one\b", re.I)
# What makes a paragraph's superlative checkable: a citation, a claim attributed to its maker, or a pointer
# to the numbers the notebook prints. A bare date is not a source. Errata notes quote old claims on purpose.
SOURCED = re.compile(
    r"et al\.? \d{4}|\bprinted\b|\btable\b|\bcomputed\b|\bErrata\b|\bCorrection\b"
    r"|\bdatasheet\b|\bannouncement\b|\blaunch (?:post|line)\b|\bcalls\b", re.I)
NEGATED = re.compile(r"\bnot (?:the|its|their) only\b", re.I)


def units(markdown: str) -> list[str]:
    """Paragraphs, and each bullet of a list on its own: a source in one bullet does not vouch for another."""
    return [u for para in markdown.split("\n\n") for u in re.split(r"\n\s*[*-] ", "\n" + para) if u.strip()]


def unsourced(paragraph: str) -> list[str]:
    """The superlatives of one paragraph (or bullet) that neither name a source nor point at computed numbers."""
    text = NEGATED.sub("", " ".join(paragraph.split()))
    found = [m.group(0) for m in SUPERLATIVE.finditer(text)]
    return [] if not found or SOURCED.search(text) else found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_every_superlative_names_its_source_or_is_computed(path):
    nb = nbformat.read(path, as_version=4)
    bad = [(claims, para[:120]) for cell in nb.cells if cell.cell_type == "markdown"
           for para in units(cell.source) if (claims := unsourced(para))]
    assert not bad, f"{path.name}: superlatives without a source or a computed table: {bad}"


def test_the_checker_catches_what_the_review_found_and_passes_what_is_sourced():
    assert unsourced("GPUs built from chiplets, with more HBM per GPU than any NVIDIA part of their year.")
    assert unsourced("Ironwood, announced in April 2025 as Google's first TPU designed for inference.")
    assert not unsourced("Google's launch post calls Ironwood its first TPU for inference (Jouppi et al. 2017 disagree).")
    assert not unsourced("The MI300X carried more HBM than any NVIDIA GPU of its time (the table printed above).")
    assert not unsourced("The A100 and H100 are not the only training silicon a learner meets.")


def test_bullets_are_checked_one_by_one():
    text = "* Groq: the SRAM chip of the table above.\n* Ironwood, Google's first TPU designed for inference."
    assert [u for u in units(text) if unsourced(u)] == ["Ironwood, Google's first TPU designed for inference."]
