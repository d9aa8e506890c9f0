"""Lab 6 (the serving engine, four milestones): how each milestone's engine is graded.

The learner's `make_engine(milestone, model, cache, draft, draft_cache, token_budget)` builds an engine;
the course's loop (coursekit/checks/lab6_serving.py, `encode`) drives it through the case's requests
and records what it sees from outside the engine. The reference is never the learner's report: the
trusted side decodes each request alone with the course decoder (`trusted_decode`, full
recomputation), and `serving_match` judges the record by the identical-tokens rule
(coursekit/serving/identical.py), the grader-chosen KV budget, and each milestone's limits
(lab6_cases.py says how every limit is computed from the workload).
"""
from __future__ import annotations

import random
import sys
from pathlib import Path

from autograder.judge.speed import SpeedSpec
from autograder.spec import DEFAULT_FORBIDDEN, Case, LabSpec, Task
from coursekit.checks.lab6_serving import encode, encode_trusted, prepare, serving_match, trusted_decode

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lab6_cases as W  # noqa: E402  (beside this spec: the cases' generators)
import lab6_wrong as wrong_engines  # noqa: E402 - imported after the sys.path set-up above

LAB = "lab6-serving"

# The course's own engine, allocator, scheduler and speculation, and the decoder's whole-sequence paths,
# are what the learner builds; the paged-attention kernel (coursekit.serving.paged) and the request
# bookkeeping (coursekit.serving.request) are given.
ENGINE_CODE = DEFAULT_FORBIDDEN + ("coursekit.serving.engine", "coursekit.serving.blocks", "coursekit.serving.naive",
                                   "coursekit.serving.speculative", "coursekit.serving.identical",
                                   "coursekit.nn.decoder.TinyDecoder.forward",
                                   "coursekit.nn.decoder.DecoderLayer.forward",
                                   "coursekit.nn.decoder.Attention.forward")


def _case(name: str, generator, seed: int, *extra, hint: str = "", **kw) -> Case:
    return Case(name, args=generator(random.Random(seed), *extra, **kw), hint=hint)


def _hidden(make):
    def draw(rng: random.Random) -> Case:
        name, args = make(rng)
        return Case(name, args=args)
    return draw


def _paged_hidden(rng):
    n = rng.randint(4, 9)
    return f"{n} requests one after another, budget = the largest request + 1 block", W.paged(rng, n)


def _batching_hidden(rng):
    if rng.random() < 0.5:
        n = rng.randint(5, 10)
        return f"{n} requests joining within 4 steps, blocks for all", W.batching(rng, n)
    n = 2 * rng.randint(8, 12)
    return f"a stream of {n} requests, 2 per step, budget for about 2", W.stream(rng, n)


def _chunked_hidden(rng):
    roll = rng.random()
    if roll < 0.4:
        n = rng.randint(5, 9)
        return f"{n} prompts up to 30 tokens, token budget 8", W.chunked(rng, n)
    if roll < 0.7:
        n = rng.randint(4, 7)
        return f"{n} requests sharing a {3}-block prefix", W.shared_prefix(rng, n)
    n = rng.randint(3, 5)
    return f"{n} requests whose whole prompt is a cached block", W.copy_on_write(rng, n)


def _speculative_hidden(rng):
    if rng.random() < 0.5:
        n = rng.randint(4, 8)
        return f"{n} requests, token budget 32", W.speculative(rng, n)
    return "one request alone", W.speculative(rng, 1, alone=True)


def _task(grade_id, title, points, visible, hidden, wrong) -> Task:
    return Task(grade_id, title, points, "make_engine", visible=visible, hidden=_hidden(hidden), n_hidden=3,
                prepare=prepare, encode=encode, encode_reference=encode_trusted, compare=serving_match(),
                reference=trusted_decode,
                forbidden=ENGINE_CODE, wrong=wrong)


# Speed: each passing milestone is timed against the course's reference engine at that milestone
# (autograder/judge/speed.py); pairs, spread limit and floor come from benchmarks/bench_speed_spread.py
# (benchmarks/RESULTS.md, "Lab 6 speed grading").
SPEED = SpeedSpec(milestones={"test_paged": 1, "test_batching": 2, "test_chunked": 3, "test_speculative": 4},
                  workload=W.timed, reference_cells=W.REFERENCE_CELLS, pairs=3, max_rounds=3,
                  spread_limit=0.25, floor=0.25)

SPEC = LabSpec(
    lab_id=LAB,
    notebook=f"{LAB}.ipynb",
    budget_s=240,
    speed=SPEED,
    tasks=(
        _task("test_paged", "Milestone 1 (paged KV cache)", 3, (
            _case("6 requests one after another, budget = the largest + 1 block", W.paged, 1, 6,
                  hint="blocks go back to the allocator when a request finishes; with one spare block a leak runs out"),
            _case("8 requests, long answers", W.paged, 11, 8,
                  hint="take a block only when the last one is full: ceil(positions / block_size) blocks, "
                       "never prompt + max_new_tokens up front"),
        ), _paged_hidden, wrong_engines.MILESTONE_1),
        _task("test_batching", "Milestone 2 (continuous batching)", 3, (
            _case("8 requests joining within 4 steps, blocks for all", W.batching, 2, 8,
                  hint="every step runs every running request and admits whoever has arrived"),
            _case("a stream of 20 requests, 2 per step, budget for about 2", W.stream, 3, 20,
                  hint="admit first come first served without skipping the head of the queue; when blocks run "
                       "out preempt the youngest running request and recompute it later"),
        ), _batching_hidden, wrong_engines.MILESTONE_2),
        _task("test_chunked", "Milestone 3 (chunked prefill, prefix sharing)", 3, (
            _case("8 prompts up to 30 tokens, token budget 8", W.chunked, 4, 8,
                  hint="decodes first, then prompt chunks, never more than token_budget tokens in one step"),
            _case("5 requests sharing a 3-block prefix", W.shared_prefix, 5, 5,
                  hint="index a block by the whole prefix it ends, once its positions are computed"),
            _case("4 requests whose whole prompt is a cached block", W.copy_on_write, 9, 4,
                  hint="the last prompt token always reruns (its logits pick the first token): copy the shared "
                       "block, keys and values included, before writing into it"),
        ), _chunked_hidden, wrong_engines.MILESTONE_3),
        _task("test_speculative", "Milestone 4 (speculative decoding)", 3, (
            _case("6 requests, token budget 32", W.speculative, 6, 6,
                  hint="keep drafted tokens while they equal the target's argmax, then add the target's own token"),
            _case("one request alone", W.speculative, 7, 1, alone=True,
                  hint="the draft proposes K tokens; the target checks them all in one pass"),
        ), _speculative_hidden, wrong_engines.MILESTONE_4),
    ),
)
