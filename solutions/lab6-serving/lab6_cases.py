"""Lab 6's cases: workloads on the tiny models, the grader-chosen KV budgets, and the limits each
milestone is judged by (docs/SERVING.md, "How grading works"). Plain data only; the spec draws from here.

Every limit is computed from the workload, not measured from an engine:
- max_steps: twice the steps of one-at-a-time decoding plus 20; a scheduler that starves a request
  or stops making progress runs past it.
- batch_steps (milestone 2, blocks for everyone): the last arrival step + output length + 2; an engine
  that does not let requests join the running batch needs about the sum of the outputs.
- overtaken (milestone 2, a stream under a tight budget): how many later arrivals may get their first
  token before a request gets its own. First come first served (the course's choice) overtakes none;
  OVERTAKEN = 2 leaves room for another fair tie-break, and a scheduler that serves the newest first
  (which starves the oldest as long as requests keep coming) overtakes many.
- max_target_tokens (milestone 3, shared prefixes): the positions run without sharing, less half of
  what sharing the prefix's full blocks saves.
- speculate (milestone 4, one request): the target passes a non-speculative engine needs (one per
  token); an engine that verifies several drafted tokens per pass needs fewer.
"""
from __future__ import annotations

import math
import random

SHAPE = {"vocab_size": 64, "d_model": 32, "n_layers": 3}                 # the tests' tiny decoder
SPEC_SHAPE = {"vocab_size": 64, "d_model": 32, "n_layers": 3, "damp": 0.05}   # a draft that agrees often
BS = 4
OVERTAKEN = 2


def _blocks(prompt, max_new) -> int:
    return math.ceil((len(prompt) + max_new) / BS)


def _max_steps(requests) -> int:
    return 2 * sum(m + 1 for _, m, _ in requests) + 20


def random_requests(rng: random.Random, n: int, prompt=(1, 14), output=(1, 10), arrive=0, vocab=64) -> list:
    return [[[rng.randrange(vocab) for _ in range(rng.randint(*prompt))], rng.randint(*output),
             rng.randint(0, arrive)] for _ in range(n)]


def paged(rng: random.Random, n: int, spare: int = 1) -> tuple:
    """Milestone 1: the largest request's blocks + `spare`: an engine that leaks runs out."""
    requests = random_requests(rng, n, output=(1, 24), arrive=n)
    budget = max(_blocks(p, m) for p, m, _ in requests) + spare
    return (1, SHAPE, rng.randrange(2**16), requests, budget, BS, None, {"max_steps": _max_steps(requests)})


def batching(rng: random.Random, n: int) -> tuple:
    """Milestone 2, blocks for everyone at once: requests must join and leave the batch."""
    requests = random_requests(rng, n, arrive=4)
    budget = sum(_blocks(p, m) for p, m, _ in requests)
    limits = {"max_steps": _max_steps(requests), "batch_steps": max(a + m for _, m, a in requests) + 2}
    return (2, SHAPE, rng.randrange(2**16), requests, budget, BS, None, limits)


def stream(rng: random.Random, n: int) -> tuple:
    """Milestone 2, two arrivals per step under a budget of about two requests: a queue forms, running
    requests are preempted, and nobody may be overtaken by more than OVERTAKEN later arrivals."""
    requests = [[[rng.randrange(64) for _ in range(rng.randint(2, 8))], rng.randint(6, 12), i // 2] for i in range(n)]
    budget = 2 * max(_blocks(p, m) for p, m, _ in requests) + 1
    limits = {"max_steps": _max_steps(requests), "overtaken": OVERTAKEN,
              "arrivals": [a for _, _, a in requests]}
    return (2, SHAPE, rng.randrange(2**16), requests, budget, BS, None, limits)


def chunked(rng: random.Random, n: int, token_budget: int = 8) -> tuple:
    """Milestone 3, prompts longer than the token budget, a tight KV budget."""
    requests = random_requests(rng, n, prompt=(4, 30), output=(1, 10), arrive=6)
    budget = 2 * max(_blocks(p, m) for p, m, _ in requests) + 2
    return (3, SHAPE, rng.randrange(2**16), requests, budget, BS, token_budget, {"max_steps": _max_steps(requests)})


def shared_prefix(rng: random.Random, n: int, prefix_blocks: int = 3, whole: bool = True) -> tuple:
    """Milestone 3: a first request with a long answer holds the prefix while the others arrive; with
    `whole`, one later prompt is exactly the prefix (fully cached: its last token reruns, copy-on-write)."""
    prefix = [rng.randrange(64) for _ in range(prefix_blocks * BS)]
    requests = [[prefix + [rng.randrange(64)], 24, 0]]
    for i in range(1, n):
        suffix = [] if whole and i == 1 else [rng.randrange(64) for _ in range(rng.randint(1, 6))]
        requests.append([prefix + suffix, rng.randint(2, 8), 1 + i])
    unshared = sum(len(p) + m - 1 for p, m, _ in requests)
    saving = sum(min(len(prefix), len(p) - 1) for p, _, _ in requests[1:])
    limits = {"max_steps": _max_steps(requests), "max_target_tokens": unshared - saving // 2}
    budget = sum(_blocks(p, m) for p, m, _ in requests)
    return (3, SHAPE, rng.randrange(2**16), requests, budget, BS, 64, limits)


def copy_on_write(rng: random.Random, n: int) -> tuple:
    """Milestone 3: prompts that are exactly one cached block: each reruns its last token into the
    shared block, so it must copy the block first (and carry its keys and values over)."""
    prefix = [rng.randrange(64) for _ in range(BS)]
    requests = [[prefix + [rng.randrange(64)], 20, 0]] + [[list(prefix), rng.randint(4, 10), 1 + i] for i in range(1, n)]
    budget = sum(_blocks(p, m) for p, m, _ in requests)
    return (3, SHAPE, rng.randrange(2**16), requests, budget, BS, 64, {"max_steps": _max_steps(requests)})


def speculative(rng: random.Random, n: int, alone: bool = False) -> tuple:
    """Milestone 4: identical tokens for a batch; alone, one request whose draft must save target passes."""
    if alone:
        requests = [[[rng.randrange(64) for _ in range(rng.randint(2, 10))], rng.randint(16, 24), 0]]
        limits = {"max_steps": _max_steps(requests), "speculate": requests[0][1]}
    else:
        requests = random_requests(rng, n, prompt=(2, 20), output=(2, 12), arrive=5)
        limits = {"max_steps": _max_steps(requests)}
    budget = sum(_blocks(p, m + 4) for p, m, _ in requests) + 2
    return (4, SPEC_SHAPE, rng.randrange(2**16), requests, budget, BS, 32, limits)


def timed(rng: random.Random, milestone: int):
    """One timed workload for the speed ratio (autograder/judge/speed.py): 16 requests at step 0, blocks
    for all, prompts 4-40 and outputs 8-24 tokens; each pair of runs gets a fresh draw."""
    from autograder.spec import Case

    requests = random_requests(rng, 16, prompt=(4, 40), output=(8, 24))
    shape = SPEC_SHAPE if milestone == 4 else SHAPE
    budget = sum(_blocks(p, m + 4) for p, m, _ in requests)
    args = (milestone, shape, rng.randrange(2**16), requests, budget, BS, 64 if milestone >= 3 else None,
            {"max_steps": _max_steps(requests)})
    return Case(f"timed workload, milestone {milestone}", args=args)


# The course's reference engine at the same milestone, behind the learner's interface: the code a
# reference run executes (no learner code runs there).
REFERENCE_CELLS = '''
from coursekit.serving.engine import milestone_engine


def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    sizes = {"num_blocks": cache.k[0].shape[0], "block_size": cache.block_size}
    if token_budget is not None:
        sizes["token_budget"] = token_budget
    return milestone_engine(milestone, model, draft, **sizes)
'''
