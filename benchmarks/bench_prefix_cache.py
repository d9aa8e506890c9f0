"""The prefix cache (the engine's optional fifth step) against prefix sharing alone, on a shared-system-prompt stream.

Requests open with one of a few long system prompts (`workloads.shared_prefix`, Zheng et al. 2024) and are
sent closed-loop, `c` in flight at a time, so the order of work does not depend on the machine's speed.
Sharing (milestone 3) reuses a system prompt's blocks only while another request holding them still runs;
the cache (milestone 5) also reuses blocks a finished request left behind. Per row: the prefix hit rate
(prompt tokens not prefilled / prompt tokens), blocks revived from the cache, prefill tokens computed,
evictions, wall and CPU seconds (medians of --repeats alternating runs; ratio: sharing's / the cache's,
same run), and tokens against sharing's under the near-tie rule (coursekit/serving/identical.py). A small
--tight-blocks budget forces eviction.

    .venv/bin/python benchmarks/bench_prefix_cache.py [--requests 48] [--prefixes 4] [--threads 2]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # spinning OpenMP threads on a shared CPU (tests/conftest.py)

import torch  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import

from coursekit.nn.draft import build_draft_pair  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import
from coursekit.serving import harness, workloads  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import
from coursekit.serving.engine import milestone_engine  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import
from coursekit.serving.identical import check_identical  # noqa: E402 - after OMP_WAIT_POLICY is set, which torch reads on import


def run(milestone: int, target, work, concurrency: int, num_blocks: int, block_size: int) -> dict:
    engine = milestone_engine(milestone, target, num_blocks=num_blocks, block_size=block_size,
                              record_logits=milestone == 3)
    wall, cpu = time.perf_counter(), time.process_time()
    result = harness.serve(engine, work, concurrency=concurrency)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    prompt_tokens = sum(len(item.prompt) for item in work.items)
    # a preempted request prefills again: count prompt work once per admission, as the engine did it
    return dict(engine=engine, run=result, wall=wall, cpu=cpu, stats=engine.stats,
                hit_rate=1 - engine.stats["prefill_tokens"] / prompt_tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=48)
    parser.add_argument("--prefixes", type=int, default=4)
    parser.add_argument("--prefix-len", type=int, default=192)
    parser.add_argument("--scale", type=float, default=8.0, help="divide the ShareGPT-like output lengths by this")
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument("--blocks", type=int, default=1024)
    parser.add_argument("--tight-blocks", type=int, default=64, help="a budget that forces eviction (0: skip)")
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    target, _ = build_draft_pair(seed=0)
    work = workloads.shared_prefix(args.requests, None, seed=2, vocab=target.config.vocab_size,
                                   n_prefixes=args.prefixes, prefix_len=args.prefix_len, scale=args.scale)
    prompt_tokens = sum(len(item.prompt) for item in work.items)
    print(f"model: {target.num_params() / 1e6:.2f}M parameters; {work.about}; {args.requests} requests, "
          f"{prompt_tokens} prompt tokens, {work.output_tokens} output tokens; block size {args.block_size}; "
          f"{args.threads} threads\n")
    harness.serve(milestone_engine(3, target), workloads.shared_prefix(4, None, seed=9, vocab=target.config.vocab_size,
                                                                      prefix_len=32))   # warm-up
    print("| in flight | KV blocks | engine | prefix hit rate | blocks from cache | blocks shared | prefill tokens "
          "| evictions | preemptions | wall s | CPU s | x sharing (CPU) | same tokens |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    cases = [(int(c), args.blocks) for c in args.concurrency.split(",")]
    if args.tight_blocks:
        cases.append((max(c for c, _ in cases), args.tight_blocks))
    for concurrency, blocks in cases:
        # repeats alternate the two engines; counts are the same every time, times are the medians
        reps = [[run(m, target, work, concurrency, blocks, args.block_size) for m in (3, 5)[::1 - 2 * (i % 2)]]
                for i in range(args.repeats)]
        sharing, caching = (min((r for rep in reps for r in rep if r["engine"].config.prefix_cache == cache),
                                key=lambda r: r["cpu"]) for cache in (False, True))
        for key in ("wall", "cpu"):
            for cache, r in ((False, sharing), (True, caching)):
                r[key] = statistics.median(x[key] for rep in reps for x in rep
                                           if x["engine"].config.prefix_cache == cache)
        ref = {r.rid: torch.stack(r.logits) for r in sharing["engine"].finished_requests}
        for name, r in (("sharing (m3)", sharing), ("cache (m5)", caching)):
            same = sum(check_identical(got.tokens, want.tokens, ref[i]) is None
                       for i, (got, want) in enumerate(zip(r["run"].records, sharing["run"].records)))
            s = r["stats"]
            print(f"| {concurrency} | {blocks} | {name} | {r['hit_rate']:.1%} | {s['cache_hits']} | "
                  f"{s['shared_blocks']} | {s['prefill_tokens']} | {s['evictions']} | {s['preemptions']} | "
                  f"{r['wall']:.2f} | {r['cpu']:.2f} | {sharing['cpu'] / r['cpu']:.2f}x | "
                  f"{same}/{len(work.items)} |", flush=True)


if __name__ == "__main__":
    main()
