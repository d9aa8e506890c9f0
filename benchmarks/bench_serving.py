"""Module 6: the reference engine at each milestone against the naive engine, on the same requests.

The issue's target: at 32 concurrent requests on 2 CPU cores (by default 96 requests sent so that 32
are in flight at every moment until the pool drains; --concurrency 0 sends them all at t=0), the reference engine at its last
milestone reaches >= 5x the throughput of the naive engine (one request at a time, Lab 3's cache), with
identical tokens (coursekit/serving/identical.py). Each repeat runs every engine once, in a rotated
order, on a fresh engine; ratios are taken within a repeat (same load on the shared machine) and the
median over repeats is reported, as the grader will. --workloads adds the harness's table for the
Poisson chat, shared-prefix and long-prompt streams.

    .venv/bin/python benchmarks/bench_serving.py [--device cpu|cuda] [--requests 32] [--repeats 3] [--workloads]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # spinning OpenMP threads on a shared CPU (tests/conftest.py)

import torch  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import

from coursekit.device import describe_device, pick_device  # noqa: E402 - imported after the sys.path set-up above
from coursekit.nn.draft import build_draft_pair  # noqa: E402 - imported after the sys.path set-up above
from coursekit.serving import harness, workloads  # noqa: E402 - imported after the sys.path set-up above
from coursekit.serving.engine import milestone_engine  # noqa: E402 - imported after the sys.path set-up above
from coursekit.serving.identical import check_identical  # noqa: E402 - imported after the sys.path set-up above
from coursekit.serving.naive import NaiveEngine  # noqa: E402 - imported after the sys.path set-up above

OBJECTIVE = harness.Objective(ttft=2.0, tpot=0.2)     # goodput's latency objective on a shared 2-core CPU


def make_engines(target, draft, num_blocks: int, block_size: int) -> dict:
    return {"naive": lambda: NaiveEngine(target, block_size=block_size, record_logits=True),
            "m1 paged": lambda: milestone_engine(1, target, num_blocks=num_blocks, block_size=block_size),
            "m2 continuous": lambda: milestone_engine(2, target, num_blocks=num_blocks, block_size=block_size),
            "m3 chunked+prefix": lambda: milestone_engine(3, target, num_blocks=num_blocks, block_size=block_size),
            "m4 speculative": lambda: milestone_engine(4, target, draft, num_blocks=num_blocks, block_size=block_size)}


def burst(args, target, draft, device) -> None:
    work = workloads.chat(args.requests, None, seed=args.seed, vocab=target.config.vocab_size, scale=args.scale)
    prompt_mean = statistics.mean(len(i.prompt) for i in work.items)
    how = f"{args.concurrency} in flight (closed loop)" if args.concurrency else "all at t=0"
    print(f"\n{args.requests} requests, {how} ({work.about}): mean prompt {prompt_mean:.0f}, "
          f"{work.output_tokens} output tokens; {describe_device(device)}; repeats {args.repeats}\n")
    makers = make_engines(target, draft, args.blocks, args.block_size)
    names = [n for n in makers if n in args.engines.split(",")] if args.engines else list(makers)
    warm = workloads.chat(4, None, seed=99, vocab=target.config.vocab_size, scale=16)
    for name in names:                                         # first calls allocate and pick kernels
        harness.serve(makers[name](), warm)
    results = {name: [] for name in names}
    for rep in range(args.repeats):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            engine = makers[name]()
            cpu = time.process_time()
            run = harness.serve(engine, work, concurrency=args.concurrency or None)
            summary = harness.summarize(run, OBJECTIVE)
            # CPU seconds of this process: what other jobs on a shared machine disturb least
            summary["tok_per_cpu_s"] = summary["output_tokens"] / (time.process_time() - cpu)
            results[name].append((run, summary, getattr(engine, "stats", {}), engine))
    base = results["naive"]
    ref_logits = {i: torch.stack(r.logits) for i, r in enumerate(base[0][3].finished_requests)}
    print("| engine | tok/s (median) | x naive (median of per-repeat ratios) | range | x naive, CPU time | TTFT p50 s "
          "| TPOT p50 ms | peak KV blocks | steps | preemptions | draft accepted | same tokens |")
    print("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        runs = results[name]
        ratios = [s["tok_per_s"] / b[1]["tok_per_s"] for (_, s, _, _), b in zip(runs, base)]
        cpu_ratios = [s["tok_per_cpu_s"] / b[1]["tok_per_cpu_s"] for (_, s, _, _), b in zip(runs, base)]
        mid = runs[sorted(range(len(runs)), key=lambda i: runs[i][1]["tok_per_s"])[len(runs) // 2]]
        same = sum(check_identical(rec.tokens, ref.tokens, ref_logits[i]) is None
                   for i, (rec, ref) in enumerate(zip(runs[0][0].records, base[0][0].records)))
        stats = mid[2]
        accepted = f"{stats['accepted']}/{stats['proposed']}" if stats.get("proposed") else "-"
        print(f"| {name} | {statistics.median(s['tok_per_s'] for _, s, _, _ in runs):.1f} | "
              f"{statistics.median(ratios):.2f}x | {min(ratios):.2f}-{max(ratios):.2f} | "
              f"{statistics.median(cpu_ratios):.2f}x | {mid[1]['ttft_p50']:.2f} | "
              f"{1e3 * mid[1]['tpot_p50']:.1f} | {mid[1]['peak_blocks']} | {mid[1]['steps']} | "
              f"{stats.get('preemptions', 0)} | {accepted} | {same}/{len(runs[0][0].records)} |")


def streams(args, target, draft) -> None:
    vocab = target.config.vocab_size
    works = [workloads.chat(args.stream_requests, args.rate, seed=1, vocab=vocab, scale=args.scale),
             workloads.shared_prefix(args.stream_requests, args.rate, seed=2, vocab=vocab, prefix_len=96, scale=args.scale),
             workloads.long_prompt(args.stream_requests, args.rate, seed=3, vocab=vocab, scale=args.scale * 2)]
    print(f"\nPoisson streams at {args.rate:g} req/s; goodput objective TTFT <= {OBJECTIVE.ttft:g} s and "
          f"TPOT <= {1e3 * OBJECTIVE.tpot:g} ms\n")
    print(harness.table_header())
    makers = make_engines(target, draft, args.blocks, args.block_size)
    for work in works:
        for name in ("m2 continuous", "m3 chunked+prefix", "m4 speculative"):
            run = harness.serve(makers[name](), work)
            print(harness.table_row(name, work.name, harness.summarize(run, OBJECTIVE)), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--requests", type=int, default=96)
    parser.add_argument("--concurrency", type=int, default=32, help="requests in flight; 0: all at t=0")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scale", type=float, default=8.0, help="divide the ShareGPT-like lengths by this")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--blocks", type=int, default=1024)
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", default="", help="comma-separated subset (naive is always needed)")
    parser.add_argument("--workloads", action="store_true", help="also the Poisson streams' table")
    parser.add_argument("--rate", type=float, default=4.0)
    parser.add_argument("--stream-requests", type=int, default=24)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    device = pick_device(verbose=False, prefer=args.device)
    target, draft = build_draft_pair(seed=args.seed)           # the course's target and early-exit draft
    target, draft = target.to(device), draft.to(device)
    print(f"model: {target.num_params() / 1e6:.2f}M parameters ({target.config}); draft: "
          f"{len(draft.layers)} of its {len(target.layers)} layers")
    burst(args, target, draft, device)
    if args.workloads:
        streams(args, target, draft)


if __name__ == "__main__":
    main()
