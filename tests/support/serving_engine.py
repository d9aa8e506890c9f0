"""Shared by the serving engine's tests (tests/library/serving/): the small target/draft pair, a driver
that steps an engine to the end, the identical-tokens check against a decode of each request alone, and the
block-accounting invariants."""
import math

import pytest

from coursekit.nn.draft import build_draft_pair
from coursekit.serving.identical import check_identical, reference_decode

VOCAB, BS = 64, 4


@pytest.fixture(scope="module")
def pair():
    return build_draft_pair(seed=5, n_layers=3, draft_layers=1, vocab_size=VOCAB, d_model=32)


def drive(engine, requests, check=None):
    """Add everything, step to the end; `check(engine)` after every step. -> outputs in request order."""
    ids = [engine.add_request(p, n) for p, n in requests]
    outs = {rid: [] for rid in ids}
    while engine.has_unfinished():
        step = engine.step()
        for rid, new in step.new_tokens.items():
            outs[rid] += new
        if check:
            check(engine)
    return [outs[rid] for rid in ids]


_REFERENCES = {}


def reference(model, prompt, n):
    """reference_decode, once per model, prompt and length in this module (it is the slow part)."""
    key = (id(model), tuple(prompt), n)
    if key not in _REFERENCES:
        _REFERENCES[key] = reference_decode(model, prompt, n)
    return _REFERENCES[key]


def assert_identical(model, requests, outputs):
    for i, ((prompt, n), got) in enumerate(zip(requests, outputs)):
        want, logits = reference(model, prompt, n)
        message = check_identical(got, want, logits)
        assert message is None, f"request {i}: {message}"


def accounting(engine):
    """The invariants after every step: each running request holds exactly the blocks its cached
    positions need, each block's count is its number of holders, and nothing else is held."""
    held = {}
    for req in engine.scheduler.running:
        assert len(req.blocks) == math.ceil(req.num_computed / engine.config.block_size), req
        for block in req.blocks:
            held[block] = held.get(block, 0) + 1
    assert engine.block_manager.allocator.num_used == len(held)
    for block, count in enumerate(engine.block_manager.allocator.refcount):
        assert count == held.get(block, 0)
