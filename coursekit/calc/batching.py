"""Static vs continuous batching, simulated on a trace of requests (Module 3, Lab 3).

The engine runs in iterations. One iteration decodes one token for every running request and
costs `base_s + per_seq_s * batch`: the base term is reading the weights once (shared by the whole
batch, which is why batching pays while decode is bandwidth-bound), the per-sequence term is that
request's KV reads and its share of compute. A request joining the batch is prefilled in the
iteration it joins, adding `prefill_token_s` per prompt token to that iteration.

- Static batching: when the engine is idle it takes up to `max_batch` waiting requests and runs
  them until the *longest* finishes; early finishers sit idle and newcomers wait.
- Continuous (iteration-level) batching, as in Orca (Yu et al., OSDI 2022): after every iteration
  finished requests leave and waiting ones take their slots.
"""
from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Request:
    rid: int
    arrival_s: float
    prompt_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class StepCost:
    base_s: float = 0.020          # one pass over the weights (e.g. 14 GB at ~0.7 TB/s effective)
    per_seq_s: float = 0.0005
    prefill_token_s: float = 0.00005

    def iteration(self, batch: int, prefill_tokens: int = 0) -> float:
        return self.base_s + self.per_seq_s * batch + self.prefill_token_s * prefill_tokens


def make_trace(n_requests: int = 200, seed: int = 0, rate_per_s: float = 3.0,
               prompt_range: tuple[int, int] = (32, 512), mean_output: float = 128.0,
               max_output: int = 1024) -> list[Request]:
    """Poisson arrivals; output lengths geometric-like (many short answers, a long tail)."""
    rng = random.Random(seed)
    t, trace = 0.0, []
    for rid in range(n_requests):
        t += rng.expovariate(rate_per_s)
        out = min(max_output, max(1, int(rng.expovariate(1 / mean_output)) + 1))
        trace.append(Request(rid, t, rng.randint(*prompt_range), out))
    return trace


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, int(round(q / 100 * len(ordered) + 0.5)) - 1))
    return ordered[k]


def simulate(trace: list[Request], policy: str = "continuous", max_batch: int = 16,
             cost: StepCost = StepCost()) -> dict:
    """Run the trace; return throughput and latency statistics for the chosen policy."""
    if policy not in ("static", "continuous"):
        raise ValueError(f"coursekit/calc/batching.py: policy must be 'static' or 'continuous', got {policy!r}")
    if max_batch < 1:
        raise ValueError(f"coursekit/calc/batching.py: max_batch must be >= 1, got {max_batch}")
    pending = sorted(trace, key=lambda r: r.arrival_s)
    waiting: list[Request] = []
    running: dict[int, int] = {}          # rid -> tokens still to generate
    first_token, done = {}, {}
    now, busy_slots, iterations = 0.0, 0, 0
    i = 0
    while len(done) < len(trace):
        while i < len(pending) and pending[i].arrival_s <= now:
            waiting.append(pending[i])
            i += 1
        admit = policy == "continuous" or not running
        joined = []
        if admit:
            while waiting and len(running) < max_batch:
                req = waiting.pop(0)
                running[req.rid] = req.output_tokens
                joined.append(req)
        if not running:                      # idle: jump to the next arrival
            now = max(now, pending[i].arrival_s)
            continue
        active = [rid for rid, left in running.items() if left > 0]
        # Static batches keep finished requests' slots occupied (padding) until the batch ends.
        batch = len(running) if policy == "static" else len(active)
        now += cost.iteration(batch, sum(r.prompt_tokens for r in joined))
        iterations += 1
        busy_slots += len(active)
        for rid in active:
            if rid not in first_token:
                first_token[rid] = now
            running[rid] -= 1
            if running[rid] == 0:
                done[rid] = now
        if policy == "continuous" or all(left == 0 for left in running.values()):
            running = {rid: left for rid, left in running.items() if left > 0}
    latency = [done[r.rid] - r.arrival_s for r in trace]
    ttft = [first_token[r.rid] - r.arrival_s for r in trace]
    tokens = sum(r.output_tokens for r in trace)
    makespan = max(done.values()) - min(r.arrival_s for r in trace)
    return {
        "policy": policy,
        "tokens_per_s": tokens / makespan,
        "mean_latency_s": sum(latency) / len(latency),
        "p99_latency_s": _percentile(latency, 99),
        "mean_ttft_s": sum(ttft) / len(ttft),
        "p99_ttft_s": _percentile(ttft, 99),
        "mean_useful_batch": busy_slots / iterations,
        "iterations": iterations,
        "makespan_s": makespan,
        "requests": len(trace),
    }
