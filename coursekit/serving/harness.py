"""Drive any engine through a workload on the harness's clock, and summarise what it measured.

The same loop runs on the student's side and in the grader: requests are added when their arrival
time has passed, the engine steps, and the harness stamps every new token with its own clock when
step() returns. Nothing an engine reports about time is used. Metrics (Yu et al. 2022; Zhong et al.
2024): time to first token (TTFT, from the scheduled arrival, so queueing counts), time per output
token (TPOT, the mean gap after the first token), throughput (output tokens per second of makespan),
goodput (requests per second that met both latency objectives) and the peak KV blocks held.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from .workloads import Workload


@dataclass
class Record:
    arrival: float
    tokens: list[int] = field(default_factory=list)
    times: list[float] = field(default_factory=list)


@dataclass
class Run:
    records: list[Record]
    seconds: float
    peak_blocks: int
    steps: int


@dataclass(frozen=True)
class Objective:
    """A latency objective: TTFT and TPOT limits in seconds (the benchmark states its own)."""
    ttft: float
    tpot: float


def serve(engine, workload: Workload, clock=time.perf_counter, sleep=time.sleep,
          concurrency: int | None = None) -> Run:
    """Replay the workload's arrival times; or, with `concurrency`, ignore them and keep that many
    requests in flight, sending the next as soon as one finishes (a closed loop, like vLLM's
    benchmark_serving --max-concurrency); a request's arrival is then when it was sent."""
    items = sorted(workload.items, key=lambda item: item.arrival)
    records, ids = [], {}
    start = clock()
    nxt, steps, peak, in_flight = 0, 0, 0, 0
    while nxt < len(items) or engine.has_unfinished():
        now = clock() - start
        while nxt < len(items) and (items[nxt].arrival <= now if concurrency is None else in_flight < concurrency):
            item = items[nxt]
            arrival = item.arrival if concurrency is None else now
            ids[engine.add_request(list(item.prompt), item.max_new_tokens, arrival)] = len(records)
            records.append(Record(arrival))
            nxt += 1
            in_flight += 1
        if not engine.has_unfinished():
            sleep(max(0.0, items[nxt].arrival - now))        # idle until the next arrival
            continue
        out = engine.step()
        stamp = clock() - start
        steps += 1
        peak = max(peak, engine.kv_blocks_in_use)
        in_flight -= len(out.finished)
        for rid, new in out.new_tokens.items():
            record = records[ids[rid]]
            record.tokens += new
            record.times += [stamp] * len(new)
    return Run(records, clock() - start, peak, steps)


def percentile(values: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summarize(run: Run, objective: Objective) -> dict:
    ttft = [r.times[0] - r.arrival for r in run.records if r.times]
    tpot = [(r.times[-1] - r.times[0]) / (len(r.times) - 1) for r in run.records if len(r.times) > 1]
    good = sum(1 for r in run.records if r.times and r.times[0] - r.arrival <= objective.ttft
               and (len(r.times) < 2 or (r.times[-1] - r.times[0]) / (len(r.times) - 1) <= objective.tpot))
    makespan = max(run.seconds, 1e-9)
    return {"requests": len(run.records), "output_tokens": sum(len(r.tokens) for r in run.records),
            "seconds": run.seconds, "tok_per_s": sum(len(r.tokens) for r in run.records) / makespan,
            "ttft_p50": percentile(ttft, 50), "ttft_p99": percentile(ttft, 99),
            "tpot_p50": percentile(tpot, 50), "tpot_p99": percentile(tpot, 99),
            "goodput": good / makespan, "peak_blocks": run.peak_blocks, "steps": run.steps}


COLUMNS = [("engine", "{}"), ("workload", "{}"), ("tok/s", "{:.1f}"), ("TTFT p50 s", "{:.3f}"),
           ("TTFT p99 s", "{:.3f}"), ("TPOT p50 ms", "{:.1f}"), ("TPOT p99 ms", "{:.1f}"),
           ("goodput req/s", "{:.2f}"), ("peak KV blocks", "{}")]


def table_row(engine: str, workload: str, s: dict) -> str:
    values = [engine, workload, s["tok_per_s"], s["ttft_p50"], s["ttft_p99"], 1e3 * s["tpot_p50"],
              1e3 * s["tpot_p99"], s["goodput"], s["peak_blocks"]]
    return "| " + " | ".join(fmt.format(v) for (_, fmt), v in zip(COLUMNS, values)) + " |"


def table_header() -> str:
    names = [name for name, _ in COLUMNS]
    return "| " + " | ".join(names) + " |\n|" + "|".join("---" if i < 2 else "---:" for i in range(len(names))) + "|"
