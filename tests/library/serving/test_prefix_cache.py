"""The prefix cache, the engine's optional fifth step: freed full blocks stay indexed by block hash until
the allocator needs room, so a later request reuses a finished one's blocks (hits across time); eviction
takes the least recently used block that no request holds. Tokens stay the reference's."""
import random

import pytest

from coursekit.serving.engine import MILESTONES, milestone_engine

from test_serving_engine import BS, VOCAB, accounting, assert_identical, drive, pair  # noqa: F401  (the fixture)

pytestmark = pytest.mark.float_sensitive


def one_after_another(engine, requests, check=None):
    """Each request added only after the previous one finished: sharing alone never finds a holder."""
    outputs = []
    for prompt, n in requests:
        outputs += drive(engine, [(prompt, n)], check)
    return outputs


def system_prompt_requests(seed, n, system_len=9, question=(1, 6)):
    rng = random.Random(seed)
    system = [rng.randrange(VOCAB) for _ in range(system_len)]
    return [(system + [rng.randrange(VOCAB) for _ in range(rng.randint(*question))], rng.randint(2, 6))
            for _ in range(n)]


def test_milestones_one_to_four_keep_the_cache_off():
    assert all(not MILESTONES[m].get("prefix_cache") for m in (1, 2, 3, 4)) and MILESTONES[5]["prefix_cache"]


def test_hits_across_time_skip_the_prefill_and_keep_the_tokens(pair):
    target, _ = pair
    requests = system_prompt_requests(seed=2, n=5)
    sharing = milestone_engine(3, target, num_blocks=32, block_size=BS)
    caching = milestone_engine(5, target, num_blocks=32, block_size=BS)
    assert_identical(target, requests, one_after_another(sharing, requests, accounting))
    assert_identical(target, requests, one_after_another(caching, requests, accounting))
    assert sharing.stats["shared_blocks"] == sharing.stats["cache_hits"] == 0      # nobody held the prompt
    # the 9-token system prompt fills two blocks of 4: every later request revives both
    assert caching.stats["cache_hits"] == 2 * (len(requests) - 1)
    assert caching.stats["prefill_tokens"] == sharing.stats["prefill_tokens"] - 8 * (len(requests) - 1)
    assert caching.kv_blocks_in_use == 0          # cached blocks are free: nobody holds them


def test_a_preempted_request_finds_its_own_blocks_again(pair):
    """Recompute preemption with the cache on: the victim's full blocks stay cached, so its rerun is short."""
    target, _ = pair
    rng = random.Random(8)
    requests = [([rng.randrange(VOCAB) for _ in range(rng.randint(3, 12))], rng.randint(8, 16)) for _ in range(10)]
    biggest = max(-(-(len(p) + n) // BS) for p, n in requests)
    engine = milestone_engine(5, target, num_blocks=biggest + 2, block_size=BS, token_budget=8)
    assert_identical(target, requests, drive(engine, requests, accounting))
    assert engine.stats["preemptions"] > 0 and engine.stats["cache_hits"] > 0


def test_eviction_under_a_tight_budget_never_takes_a_held_block(pair):
    """Distinct prompts through a cache too small to keep them all: blocks are evicted, least recently
    used first, and never one a running request holds."""
    target, _ = pair
    rng = random.Random(11)
    prompts = [[rng.randrange(VOCAB) for _ in range(12)] for _ in range(3)]
    requests = [(prompts[i % 3] + [rng.randrange(VOCAB)], 3) for i in range(9)] + \
        [([rng.randrange(VOCAB) for _ in range(rng.randint(3, 16))], rng.randint(2, 8)) for _ in range(8)]
    engine = milestone_engine(5, target, num_blocks=10, block_size=BS, token_budget=8)
    manager = engine.block_manager
    allocate = manager.allocate

    def watched():
        held = {b for req in engine.scheduler.running for b in req.blocks}
        block = allocate()
        assert block not in held, f"block {block} handed out while a running request holds it"
        return block
    manager.allocate = watched
    assert_identical(target, requests, drive(engine, requests, accounting))
    assert engine.stats["evictions"] > 0 and engine.stats["cache_hits"] > 0


def test_eviction_is_least_recently_used(pair):
    """Three finished prompts, room to keep only some: the one used longest ago is the one gone."""
    target, _ = pair
    rng = random.Random(3)
    a, b, c = ([rng.randrange(VOCAB) for _ in range(8)] for _ in range(3))       # two full blocks each
    engine = milestone_engine(5, target, num_blocks=6, block_size=BS)
    one_after_another(engine, [(a + [1], 2), (b + [1], 2), (a + [2], 2)])          # a used again after b
    index = engine.block_manager.index
    assert len(index.lookup(a)) == 2 and len(index.lookup(b)) == 2
    # c needs 3 blocks: the 2 empty ones, then one evicted: b's (used longest ago), its tail first,
    # so b's head stays findable
    one_after_another(engine, [(c + [1], 3)])
    assert engine.stats["evictions"] == 1
    assert len(index.lookup(a)) == 2 and len(index.lookup(c)) == 2 and len(index.lookup(b)) == 1


@pytest.mark.parametrize("budget", [None, 5])
def test_the_fifth_step_gives_the_reference_tokens(pair, budget):
    from test_serving_engine import mixed_requests
    target, _ = pair
    requests = mixed_requests(seed=4)
    engine = milestone_engine(5, target, num_blocks=24, block_size=BS, token_budget=budget)
    assert_identical(target, requests, drive(engine, requests, accounting))
    again = drive(engine, requests, accounting)            # the same requests later: the cache serves them
    assert_identical(target, requests, again)
    assert engine.stats["cache_hits"] > 0
