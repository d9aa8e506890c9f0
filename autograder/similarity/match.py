"""Pairs of documents that share fingerprints, with their matching regions (MOSS's way of showing them).

Fingerprints that also occur in the boilerplate (the starter notebook, the course library the lab
imports) are dropped before anything is compared, and the tokens they cover count for neither side, so
a submission that only fills in a few lines is measured on those lines. Candidate pairs come from an
inverted index of fingerprints, so the work grows with what students share, not with the number of pairs.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from itertools import combinations

from autograder.similarity.fingerprint import K, W, kgram_hashes, winnow
from autograder.similarity.sources import Doc

MAX_PLACES = 8          # occurrences of one fingerprint per document used for regions (repeated code)


@dataclass
class Prepared:
    doc: Doc
    own: int                                          # tokens outside the boilerplate
    fps: dict[int, list[tuple[int, int]]]             # fingerprint -> (cell, k-gram position) in the doc
    common: list[bytearray]                           # per cell: 1 for a token inside boilerplate


@dataclass(frozen=True)
class Region:
    cell_a: int
    first_a: int                                      # token positions, end exclusive
    last_a: int
    cell_b: int
    first_b: int
    last_b: int


@dataclass
class Match:
    a: Prepared
    b: Prepared
    cover_a: float                                    # share of a's own tokens inside a matching region
    cover_b: float
    tokens_a: int
    tokens_b: int
    regions: list[Region]

    @property
    def score(self) -> float:
        return max(self.cover_a, self.cover_b)


def boilerplate_hashes(docs: list[Doc]) -> set[int]:
    return {h for doc in docs for cell in doc.cells for h in kgram_hashes([t.text for t in cell.toks])}


def prepare(doc: Doc, boilerplate: set[int]) -> Prepared:
    fps: dict[int, list[tuple[int, int]]] = defaultdict(list)
    common, own = [], 0
    for ci, cell in enumerate(doc.cells):
        hashes = kgram_hashes([t.text for t in cell.toks])
        mask = bytearray(len(cell.toks))
        for pos, h in enumerate(hashes):
            if h in boilerplate:
                mask[pos:pos + K] = b"\x01" * len(mask[pos:pos + K])
        for pos in winnow(hashes):
            if hashes[pos] not in boilerplate:
                fps[hashes[pos]].append((ci, pos))
        common.append(mask)
        own += len(mask) - sum(mask)
    return Prepared(doc, own, dict(fps), common)


def _regions(a: Prepared, b: Prepared, shared: set[int]) -> list[Region]:
    """Runs of shared fingerprints at one offset in one cell of each: two or more fingerprints each at
    most W k-grams apart (one lone k-gram of normalised tokens is too common to mean anything)."""
    diagonals: dict[tuple[int, int, int], list[tuple[int, int]]] = defaultdict(list)
    for h in shared:
        for ca, pa in a.fps[h][:MAX_PLACES]:
            for cb, pb in b.fps[h][:MAX_PLACES]:
                diagonals[ca, cb, pa - pb].append((pa, pb))
    regions = []
    for (ca, cb, _), places in diagonals.items():
        places.sort()
        run = [places[0]]
        for place in places[1:] + [None]:
            if place is not None and place[0] - run[-1][0] <= W:
                run.append(place)
                continue
            if len(run) >= 2:
                regions.append(Region(ca, run[0][0], run[-1][0] + K, cb, run[0][1], run[-1][1] + K))
            if place is not None:
                run = [place]
    return sorted(regions, key=lambda r: (r.cell_a, r.first_a, r.cell_b, r.first_b))


def _covered(p: Prepared, spans: list[tuple[int, int, int]]) -> int:
    marked = set()
    for cell, first, last in spans:
        mask = p.common[cell]
        marked.update((cell, i) for i in range(first, min(last, len(mask))) if not mask[i])
    return len(marked)


def compare(a: Prepared, b: Prepared, ignore: frozenset[int] = frozenset()) -> Match | None:
    shared = (a.fps.keys() & b.fps.keys()) - ignore
    if len(shared) < 2:
        return None
    regions = _regions(a, b, shared)
    if not regions:
        return None
    tokens_a = _covered(a, [(r.cell_a, r.first_a, r.last_a) for r in regions])
    tokens_b = _covered(b, [(r.cell_b, r.first_b, r.last_b) for r in regions])
    return Match(a, b, tokens_a / a.own if a.own else 0.0, tokens_b / b.own if b.own else 0.0,
                 tokens_a, tokens_b, regions)


def too_common(docs: list[Prepared], max_common: int | None) -> frozenset[int]:
    """Fingerprints held by more than `max_common` documents (MOSS's -m: a passage most of the class
    wrote is an idiom or a hint, not a copy); none without a limit."""
    if max_common is None:
        return frozenset()
    held = Counter(h for p in docs for h in p.fps)
    return frozenset(h for h, n in held.items() if n > max_common)


def candidate_pairs(left: list[Prepared], right: list[Prepared] | None = None,
                    ignore: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """(i, j) with i < j in `left`, or i in `left` and j in `right`, sharing two fingerprints or more."""
    holders: dict[int, list[int]] = defaultdict(list)
    for index, p in enumerate(left):
        for h in p.fps.keys() - ignore:
            holders[h].append(index)
    counts: Counter = Counter()
    if right is None:
        for held in holders.values():
            if len(held) > 1:
                counts.update(combinations(held, 2))
    else:
        for j, p in enumerate(right):
            counts.update((i, j) for h in p.fps.keys() - ignore for i in holders.get(h, ()))
    return sorted(pair for pair, n in counts.items() if n >= 2)
