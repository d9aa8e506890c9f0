"""MoE layer: per-token loop vs vectorized dispatch, and speculative decoding's measured acceptance
(Module 5, Lab 5). Uses coursekit.nn.moe's per-token reference and the Lab 5 solution notebook's
functions (loaded the way the autograder loads its reference). Prints markdown tables for
benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/m5_moe.py [--device cpu|cuda]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from autograder.judge.reference import solution_namespace
from autograder.spec import spec_module
from coursekit.calc.speculative import acceptance_rate_from_counts, speedup
from coursekit.device import describe_device, pick_device, synchronize
from coursekit.nn.decoder import greedy_generate
from coursekit.nn.moe import MoEConfig, build_moe

SOLUTION = Path(__file__).resolve().parent.parent / "solutions" / "lab5-moe" / "lab5-moe.ipynb"
CONFIG = MoEConfig(d_model=64, d_ff=128, n_experts=8, top_k=2)   # the lab's measurement layer


def best_time(fn, device, repeats: int) -> float:
    fn()
    best = float("inf")
    for _ in range(repeats):           # best of a few: the machine is shared, noise only adds time
        synchronize(device)
        start = time.perf_counter()
        fn()
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return best


def dispatch_table(sol, device) -> None:
    layer = build_moe(CONFIG, seed=0).to(device)
    print(f"\nMoE layer d_model={CONFIG.d_model}, d_ff={CONFIG.d_ff}, {CONFIG.n_experts} experts, top-{CONFIG.top_k}"
          f" on {describe_device(device)}\n")
    print("| tokens | per-token loop (ms) | vectorized (ms) | speedup | max abs diff |")
    print("|---:|---:|---:|---:|---:|")
    with torch.no_grad():
        for tokens in (512, 2048, 4096, 8192):
            x = torch.randn(tokens, CONFIG.d_model, generator=torch.Generator().manual_seed(tokens)).to(device)
            diff = (layer(x) - sol["moe_forward"](x, layer)).abs().max().item()
            t_loop = best_time(lambda: layer(x), device, repeats=2)
            t_vec = best_time(lambda: sol["moe_forward"](x, layer), device, repeats=10)
            print(f"| {tokens} | {t_loop * 1e3:.1f} | {t_vec * 1e3:.2f} | {t_loop / t_vec:.0f}x | {diff:.1e} |")


def acceptance_table(sol, device) -> None:
    print("\nGreedy speculative decoding, build_draft_pair(seed=0, 4 layers, draft = first 2, damp 0.3), "
          "4 prompts x 48 new tokens; every output equals the target's greedy output\n")
    print("| k | accepted | rejected | measured a | tokens per target step | speedup predicted at c=0.05 |")
    print("|---:|---:|---:|---:|---:|---:|")
    target, draft = spec_module("lab5-moe").build_draft_pair(seed=0)
    target, draft = target.to(device), draft.to(device)
    prompts = torch.randint(0, 256, (4, 8), generator=torch.Generator().manual_seed(1)).to(device)
    for k in (1, 2, 4, 6):
        acc = rej = steps = 0
        for p in prompts:
            out = sol["speculative_greedy"](target, draft, p[None], 48, k)
            if not torch.equal(out["tokens"], greedy_generate(target, p[None], 48)):
                raise SystemExit("benchmarks/m5_moe.py: speculative output differs from the target's greedy output")
            acc, rej, steps = acc + out["accepted"], rej + out["rejected"], steps + out["steps"]
        a = acceptance_rate_from_counts(acc, rej)
        print(f"| {k} | {acc} | {rej} | {a:.2f} | {48 * len(prompts) / steps:.2f} | {speedup(a, k, 0.05):.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    device = pick_device(verbose=False, prefer=args.device)
    sol = solution_namespace(SOLUTION)
    dispatch_table(sol, device)
    acceptance_table(sol, device)


if __name__ == "__main__":
    main()
