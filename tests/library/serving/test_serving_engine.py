"""Module 6's reference engines (coursekit/serving): identical tokens, block accounting, preemption
without starvation, chunked prefill, prefix sharing with copy-on-write, speculative decoding."""
import math
import random

import pytest
import torch

from coursekit.nn.decoder import DecoderConfig, build_model
from coursekit.nn.draft import build_draft_pair
from coursekit.serving.blocks import BlockAllocator, OutOfBlocks, PrefixIndex, block_hash
from coursekit.serving.engine import ServingEngine, EngineConfig, milestone_engine
from coursekit.serving.identical import MARGIN, check_identical, reference_decode
from coursekit.serving.naive import NaiveEngine

pytestmark = pytest.mark.float_sensitive   # run again under other kernels and threads (test_portable_floats.py)

VOCAB, BS = 64, 4


@pytest.fixture(scope="module")
def pair():
    return build_draft_pair(seed=5, n_layers=3, draft_layers=1, vocab_size=VOCAB, d_model=32)


def mixed_requests(seed=0, n=10):
    """Varied lengths; half open with one of two 9-token system prompts (two full blocks shared)."""
    rng = random.Random(seed)
    systems = [[rng.randrange(VOCAB) for _ in range(9)] for _ in range(2)]
    out = []
    for i in range(n):
        head = systems[i % 2] if i % 3 else []
        out.append((head + [rng.randrange(VOCAB) for _ in range(rng.randint(1, 14))], rng.randint(1, 10)))
    return out


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


def engines(target, draft, num_blocks=64):
    return {"naive": NaiveEngine(target, block_size=BS),
            "m1 paged": milestone_engine(1, target, num_blocks=num_blocks, block_size=BS),
            "m2 continuous": milestone_engine(2, target, num_blocks=num_blocks, block_size=BS),
            "m3 chunked+shared": milestone_engine(3, target, num_blocks=num_blocks, block_size=BS, token_budget=7),
            "m4 speculative": milestone_engine(4, target, draft, num_blocks=num_blocks, block_size=BS, token_budget=11)}


@pytest.mark.parametrize("name", ["naive", "m1 paged", "m2 continuous", "m3 chunked+shared", "m4 speculative"])
def test_every_engine_gives_the_reference_greedy_tokens(pair, name):
    target, draft = pair
    requests = mixed_requests(seed=1)
    engine = engines(target, draft)[name]
    assert_identical(target, requests, drive(engine, requests))


def test_float32_drift_is_far_below_the_margin(pair):
    """The margin hides no bug: every logits row behind an engine's token (until a near-tie parting)
    is within MARGIN / 10 of the reference's, under batching, chunking, sharing and speculation."""
    target, draft = pair
    requests = mixed_requests(seed=1)
    engine = milestone_engine(4, target, draft, num_blocks=64, block_size=BS, token_budget=9, record_logits=True)
    drive(engine, requests)
    engine2 = milestone_engine(3, target, num_blocks=64, block_size=BS, token_budget=5, record_logits=True)
    drive(engine2, requests)
    worst = 0.0
    for eng in (engine, engine2):
        by_id = {r.rid: r for r in eng.finished_requests}
        for rid, (prompt, n) in enumerate(requests):
            req = by_id[rid]
            want, logits = reference(target, prompt, n)
            same = next((s for s in range(n) if req.output[s] != want[s]), n)
            got = torch.stack(req.logits[:min(same + 1, n)])
            worst = max(worst, float((got - logits[:len(got)]).abs().max()))
    assert worst < MARGIN / 10, worst


def test_float64_engines_match_exactly():
    """In float64 the summation-order drift is ~1e-15: the same rule leaves no room, tokens are equal."""
    target, draft = build_draft_pair(seed=7, n_layers=3, draft_layers=1, vocab_size=VOCAB, d_model=32)
    target, draft = target.double(), draft.double()
    requests = mixed_requests(seed=3, n=6)
    for name, engine in engines(target, draft).items():
        if name in ("m2 continuous", "m3 chunked+shared", "m4 speculative"):
            outputs = drive(engine, requests)
            for (prompt, n), got in zip(requests, outputs):
                assert got == reference(target, prompt, n)[0], name


def test_identical_rule():
    logits = torch.tensor([[0.0, 2.0, 1.0], [1.0, 1.0 - MARGIN / 2, 0.0], [3.0, 0.0, 0.0]])
    want = [1, 0, 0]
    assert check_identical([1, 0, 0], want, logits) is None
    assert check_identical([1, 1, 2], want, logits) is None       # parted at a near-tie: rest not compared
    assert "step 0" in check_identical([2, 0, 0], want, logits)  # 1.0 below the best: not a tie
    assert "step 1" in check_identical([1, 2, 0], want, logits)  # a token outside the tie
    assert "tokens" in check_identical([1, 0], want, logits)


def test_the_rule_catches_a_real_bug(pair):
    """Copy-on-write that forgets to copy: the writer reads an empty block, and the check says so."""
    target, _ = pair
    engine = milestone_engine(3, target, num_blocks=64, block_size=BS)
    engine.cache.copy_block = lambda src, dst: None
    prompt = [random.Random(4).randrange(VOCAB) for _ in range(8)]          # two full blocks
    first = engine.add_request(prompt, 6)
    outs = {first: engine.step().new_tokens[first], first + 1: []}          # prefilled and indexed
    engine.add_request(prompt, 6)
    while engine.has_unfinished():
        for rid, new in engine.step().new_tokens.items():
            outs[rid] += new
    want, logits = reference(target, prompt, 6)
    assert check_identical(outs[first], want, logits) is None
    assert check_identical(outs[first + 1], want, logits) is not None


def test_block_allocator_and_prefix_index():
    alloc = BlockAllocator(3)
    a, _ = alloc.allocate(), alloc.allocate()
    assert alloc.share(a) == a and alloc.refcount[a] == 2 and alloc.num_used == 2
    assert not alloc.release(a) and alloc.release(a) and alloc.num_free == 2
    with pytest.raises(ValueError):
        alloc.release(a)
    with pytest.raises(ValueError):
        alloc.share(a)
    alloc.allocate(), alloc.allocate()
    with pytest.raises(OutOfBlocks):
        alloc.allocate()
    assert alloc.peak_used == 3
    index = PrefixIndex(2)
    first = index.register(7, None, [1, 2])
    index.register(8, first, [3, 4])
    assert index.register(9, None, [1, 2]) is first                # equal content: the indexed block is found
    blocks = lambda tokens: [e.block for e in index.lookup(tokens)]
    assert blocks([1, 2, 3, 4, 9]) == [7, 8] and blocks([1, 2, 9]) == [7] and blocks([2, 1]) == []
    assert blocks([9, 9, 3, 4]) == []               # the same block after another first block: another key
    index.forget(7)
    assert blocks([1, 2, 3, 4]) == []               # a prefix cannot skip a block
    assert len(index) == 1 and 8 in index


def test_a_hash_collision_is_a_miss_never_a_wrong_block(monkeypatch):
    """Every key collides here: a lookup still finds only blocks whose tokens, and parents', are its own."""
    import coursekit.serving.blocks as blocks_module
    monkeypatch.setattr(blocks_module, "block_hash", lambda parent, tokens: 42)
    index = PrefixIndex(2)
    index.register(7, None, [1, 2])
    assert index.register(8, None, [5, 6]) is None                     # the slot is taken: not indexed
    assert [e.block for e in index.lookup([1, 2])] == [7] and index.lookup([5, 6]) == []
    assert index.lookup([1, 2, 1, 2]) == [index.lookup([1, 2])[0]]     # same key, but not after block 7


def test_an_entry_under_a_forgotten_parent_gives_way():
    """A block indexed under a parent that was since forgotten cannot be reached; when the same content is
    indexed again, the unreachable entry is replaced, so the new chain is found whole."""
    index = PrefixIndex(2)
    index.register(8, index.register(7, None, [1, 2]), [3, 4])
    index.forget(7)
    assert index.lookup([1, 2, 3, 4]) == []
    index.register(10, index.register(9, None, [1, 2]), [3, 4])
    assert [e.block for e in index.lookup([1, 2, 3, 4])] == [9, 10] and 8 not in index


def test_block_hash_chains_the_prefix():
    assert block_hash(block_hash(0, [1, 2]), [3, 4]) != block_hash(block_hash(0, [9, 9]), [3, 4])
    assert block_hash(0, (1, 2)) == block_hash(0, [1, 2])


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


@pytest.mark.parametrize("milestone", [2, 3, 4])
def test_block_accounting(pair, milestone):
    target, draft = pair
    requests = mixed_requests(seed=1)
    engine = milestone_engine(milestone, target, draft, num_blocks=40, block_size=BS, token_budget=12)
    assert_identical(target, requests, drive(engine, requests, check=accounting))
    assert engine.block_manager.allocator.num_used == 0 and not any(engine.block_manager.allocator.refcount)
    if milestone >= 3:
        assert engine.stats["shared_blocks"] > 0
    # the peak never exceeds what the requests held at once: all of them, each with its full length
    worst_case = sum(math.ceil((len(p) + n) / BS) for p, n in requests)
    assert 0 < engine.block_manager.allocator.peak_used <= min(worst_case, 40)


def test_prefix_sharing_and_copy_on_write(pair):
    target, _ = pair
    rng = random.Random(6)
    prompt = [rng.randrange(VOCAB) for _ in range(8)]                        # exactly two blocks
    engine = milestone_engine(3, target, num_blocks=16, block_size=BS)
    a = engine.add_request(prompt, 5)
    engine.step()
    b = engine.add_request(prompt, 5)                                         # whole prompt cached
    c = engine.add_request(prompt[:5] + [1, 2, 3], 5)                         # first block only
    engine.step()
    ra, rb, rc = (next(r for r in engine.scheduler.running if r.rid == i) for i in (a, b, c))
    assert rb.blocks[0] == ra.blocks[0] == rc.blocks[0] and engine.block_manager.allocator.refcount[ra.blocks[0]] == 3
    # b must rerun its last prompt token and so writes into the second block: it got its own copy
    assert rb.blocks[1] != ra.blocks[1] and engine.block_manager.allocator.refcount[ra.blocks[1]] == 1
    assert engine.stats["cow_copies"] == 1 and engine.stats["shared_blocks"] == 3
    accounting(engine)
    outs = {rid: list(req.output) for rid, req in ((a, ra), (b, rb), (c, rc))}
    while engine.has_unfinished():
        for rid, new in engine.step().new_tokens.items():
            outs[rid] += new
        accounting(engine)
    for rid, p in ((a, prompt), (b, prompt), (c, prompt[:5] + [1, 2, 3])):
        want, logits = reference(target, p, 5)
        assert check_identical(outs[rid], want, logits) is None
    assert engine.block_manager.allocator.num_used == 0


@pytest.mark.parametrize("milestone", [2, 4])
def test_preemption_never_starves(pair, milestone):
    """A budget that fits only the largest request: preemption happens, always of the youngest running
    request, and a stream of new arrivals cannot hold back older requests: everyone finishes, with
    the reference's tokens."""
    target, draft = pair
    rng = random.Random(8)
    requests = [([rng.randrange(VOCAB) for _ in range(rng.randint(3, 12))], rng.randint(8, 16)) for _ in range(14)]
    spec = 3 if milestone == 4 else 0
    biggest = max(math.ceil((len(p) + n + spec) / BS) for p, n in requests)
    engine = milestone_engine(milestone, target, draft, num_blocks=biggest, block_size=BS, token_budget=8)
    victims = []
    preempt = engine.scheduler.preempt

    def watched(req):
        victims.append(req is max(engine.scheduler.running, key=lambda r: (r.arrival_time, r.rid)))
        preempt(req)
    engine.scheduler.preempt = watched
    ids, outs, arrived = [], {}, 0
    while arrived < len(requests) or engine.has_unfinished():
        if arrived < len(requests):                    # one new request per step: constant pressure
            p, n = requests[arrived]
            ids.append(engine.add_request(p, n, arrival_time=float(arrived)))
            outs[ids[-1]] = []
            arrived += 1
        for rid, new in engine.step().new_tokens.items():
            outs[rid] += new
        accounting(engine)
        assert engine.stats["steps"] < 1000, "some request is not making progress"
    assert victims and all(victims)
    assert engine.stats["preemptions"] == len(victims)
    assert_identical(target, requests, [outs[i] for i in ids])


def test_chunked_prefill_equals_unchunked(pair):
    target, _ = pair
    rng = random.Random(9)
    requests = [([rng.randrange(VOCAB) for _ in range(rng.randint(10, 40))], 6) for _ in range(5)]
    whole = drive(milestone_engine(2, target, num_blocks=64, block_size=BS, record_logits=True), requests)
    for budget in (1, 3, 16):
        chunked = drive(milestone_engine(3, target, num_blocks=64, block_size=BS, token_budget=budget), requests)
        for (prompt, n), a, b in zip(requests, whole, chunked):
            want, logits = reference(target, prompt, n)
            assert check_identical(a, want, logits) is None and check_identical(b, want, logits) is None


def test_speculative_decoding(pair):
    target, draft = pair
    requests = mixed_requests(seed=1)[:6]
    engine = milestone_engine(4, target, draft, num_blocks=64, block_size=BS)
    assert_identical(target, requests, drive(engine, requests))
    assert 0 < engine.stats["accepted"] < engine.stats["proposed"]
    # a perfect draft (the target itself) is always accepted; a useless one changes no token
    perfect = milestone_engine(4, target, target, num_blocks=64, block_size=BS)
    assert_identical(target, requests, drive(perfect, requests))
    assert perfect.stats["accepted"] == perfect.stats["proposed"] > 0
    useless = build_model(DecoderConfig(vocab_size=VOCAB, d_model=32, n_layers=1), seed=99)
    engine = milestone_engine(4, target, useless, num_blocks=64, block_size=BS)
    assert_identical(target, requests, drive(engine, requests))
    # after its trial rounds the engine stops drafting when the draft does not pay, and keeps on when it does
    assert engine.stats["rounds"] >= 16 and not engine._speculation_pays() and perfect._speculation_pays()


def test_requests_are_checked(pair):
    target, _ = pair
    engine = milestone_engine(2, target, num_blocks=4, block_size=BS)
    with pytest.raises(ValueError, match="KV blocks"):
        engine.add_request([1] * 10, 10)
    with pytest.raises(ValueError):
        engine.add_request([], 3)
    with pytest.raises(ValueError):
        engine.add_request([VOCAB], 3)
    with pytest.raises(ValueError, match="speculative"):
        ServingEngine(target, EngineConfig(speculate=2))


def test_lab6_forbids_every_file_of_the_reference_engine():
    """While a learner's engine is graded, every file of coursekit/serving but the given ones (the paged
    attention, the request bookkeeping, harness, workloads, published numbers) is a stand-in, so no part
    of the reference engine (its scheduler, block manager, allocator, speculation) can be borrowed."""
    from pathlib import Path

    import coursekit.serving
    from autograder.sandbox.standins import plan
    from autograder.spec import load_spec

    root = Path(coursekit.serving.__file__).parent
    given = {"__init__.py", "paged.py", "request.py", "harness.py", "workloads.py", "published.py"}
    engine = {str(p.resolve()) for p in root.rglob("*.py") if p.relative_to(root).as_posix() not in given}
    assert len(engine) >= 8 and any(p.endswith("scheduler.py") for p in engine)
    for task in load_spec("lab6-serving").tasks:
        assert engine <= plan(task.forbids).keys(), (task.grade_id, engine - plan(task.forbids).keys())
