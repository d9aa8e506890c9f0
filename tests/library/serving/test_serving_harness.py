"""The serving harness (coursekit/serving/harness.py) and workloads: the numbers the table prints."""
import statistics

import pytest

from coursekit.serving import harness, workloads
from coursekit.serving.request import StepOutput


class FakeClock:
    """Each reading advances 0.5 s: deterministic times without sleeping."""

    def __init__(self):
        self.t = 0.0
        self.slept = []

    def __call__(self):
        self.t += 0.5
        return self.t

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.t += seconds


class Echo:
    """A two-token engine: the prompt's first token, then its last; one request per step."""

    def __init__(self):
        self.queue, self.blocks = [], 0

    def add_request(self, prompt, max_new_tokens, arrival_time=0.0):
        self.queue.append([len(self.queue), list(prompt), 0])
        return self.queue[-1][0]

    def has_unfinished(self):
        return any(r[2] < 2 for r in self.queue)

    @property
    def kv_blocks_in_use(self):
        return sum(r[2] < 2 for r in self.queue)

    def step(self):
        req = next(r for r in self.queue if r[2] < 2)
        req[2] += 1
        return StepOutput({req[0]: [req[1][0] if req[2] == 1 else req[1][-1]]}, [req[0]] if req[2] == 2 else [])


def test_serve_stamps_tokens_with_its_own_clock_and_waits_for_arrivals():
    work = workloads.Workload("w", (workloads.Item((1, 2), 2, 0.0), workloads.Item((3, 4, 5), 2, 5.0)), "")
    clock = FakeClock()
    run = harness.serve(Echo(), work, clock=clock, sleep=clock.sleep)
    assert [r.tokens for r in run.records] == [[1, 2], [3, 5]]
    assert clock.slept                       # idle between the first request's end and the second's arrival
    assert all(r.times[0] >= r.arrival for r in run.records)
    assert run.steps == 4 and run.peak_blocks == 1


def test_summary_metrics():
    records = [harness.Record(0.0, [1, 2, 3], [1.0, 2.0, 3.0]), harness.Record(1.0, [4, 5], [4.0, 4.5]),
               harness.Record(2.0, [6], [2.5])]
    s = harness.summarize(harness.Run(records, 5.0, 7, 9), harness.Objective(ttft=1.0, tpot=0.6))
    assert s["tok_per_s"] == pytest.approx(6 / 5)
    assert s["ttft_p50"] == pytest.approx(1.0) and s["ttft_p99"] == pytest.approx(2.96)   # TTFTs 1.0, 3.0, 0.5
    assert s["tpot_p50"] == pytest.approx(0.75)           # gaps of 1.0 and 0.5
    assert s["goodput"] == pytest.approx(1 / 5)           # only the one-token request meets both limits
    assert s["peak_blocks"] == 7
    assert harness.percentile([3, 1, 2], 50) == 2 and harness.percentile([], 50) != harness.percentile([], 50)
    assert harness.table_row("e", "w", s).count("|") == len(harness.COLUMNS) + 1


def test_workloads_are_seeded_and_follow_their_shapes():
    a, b = workloads.chat(400, 4.0, seed=1), workloads.chat(400, 4.0, seed=1)
    assert a == b and a != workloads.chat(400, 4.0, seed=2)
    gaps = [y.arrival - x.arrival for x, y in zip(a.items, a.items[1:])]
    assert statistics.mean(gaps) == pytest.approx(1 / 4.0, rel=0.15)          # Poisson at 4 req/s
    prompts = [len(i.prompt) for i in a.items]
    outputs = [i.max_new_tokens for i in a.items]
    assert statistics.mean(outputs) > 1.5 * statistics.mean(prompts)           # ShareGPT: outputs ~2x prompts
    assert statistics.mean(prompts) == pytest.approx(workloads.SHAREGPT_MEAN_PROMPT / 4, rel=0.2)
    assert all(i.arrival == 0 for i in workloads.chat(5, None, seed=0).items)
    shared = workloads.shared_prefix(20, None, seed=3, n_prefixes=2, prefix_len=32)
    assert len({i.prompt[:32] for i in shared.items}) == 2
    long = workloads.long_prompt(200, None, seed=4)
    assert max(len(i.prompt) for i in long.items) > 4 * statistics.median(len(i.prompt) for i in long.items)


def test_closed_loop_keeps_the_stated_number_in_flight():
    work = workloads.Workload("w", tuple(workloads.Item((i, i), 2, 0.0) for i in range(3)), "")
    clock = FakeClock()
    engine = Echo()
    run = harness.serve(engine, work, clock=clock, sleep=clock.sleep, concurrency=1)
    assert [r.tokens for r in run.records] == [[0, 0], [1, 1], [2, 2]]
    # each request was sent only after the one before had finished
    assert all(later.arrival >= earlier.times[-1] for earlier, later in zip(run.records, run.records[1:]))
