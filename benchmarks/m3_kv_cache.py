"""Decode tokens/s with and without a KV cache, across context lengths (Module 3, Lab 3).

Uses the course's TinyDecoder and the cache from the Lab 3 solution notebook (loaded the way the
autograder loads its reference). Prints a markdown table for benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/m3_kv_cache.py [--device cpu|cuda] [--size auto|small|gpu] [--steps 16]

The two sizes are the lab's measurement cell: on a CPU the small 3.3M-parameter model at batch 1
already shows the cache's saving, but on a GPU each of its tiny kernels finishes in microseconds and a
step's time is kernel-launch overhead, cached or not (1.1x-1.5x on an H100, flat across contexts). `--size auto` (the default) uses the
lab's larger GPU model and a batch of 8 on CUDA, so the measurement shows the arithmetic the cache saves.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from autograder.judge.reference import solution_namespace
from coursekit.device import describe_device, pick_device, synchronize
from coursekit.nn.decoder import DecoderConfig, build_model, greedy_generate

SOLUTION = Path(__file__).resolve().parent.parent / "solutions" / "lab3-kv-cache" / "lab3-kv-cache.ipynb"
# Same models, batches and contexts as the lab's measurement cell (CPU / GPU branch).
SIZES = {
    "small": (DecoderConfig(vocab_size=512, d_model=256, n_layers=4, n_heads=8, n_kv_heads=2, d_ff=768, max_seq_len=2048),
              1, "64,128,256,512,1024"),
    "gpu": (DecoderConfig(vocab_size=512, d_model=1024, n_layers=8, n_heads=16, n_kv_heads=4, d_ff=2816,
                          max_seq_len=4096 + 64),
            8, "256,512,1024,2048,4096"),
}


def tokens_per_s(generate, model, batch: int, context: int, steps: int, device, repeats: int = 3) -> float:
    vocab = model.config.vocab_size
    prompt = torch.randint(0, vocab, (batch, context), generator=torch.Generator().manual_seed(context)).to(device)
    generate(model, prompt, 2)
    best = float("inf")
    for _ in range(repeats):           # best of a few: the machine is shared, noise only adds time
        synchronize(device)
        start = time.perf_counter()
        generate(model, prompt, steps)
        synchronize(device)
        best = min(best, time.perf_counter() - start)
    return batch * steps / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default=None)
    parser.add_argument("--size", choices=("auto", "small", "gpu"), default="auto",
                        help="auto: the lab's GPU size on CUDA, the small model elsewhere")
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--contexts", default=None, help="comma-separated context lengths (default per size)")
    args = parser.parse_args()
    device = pick_device(verbose=False, prefer=args.device)
    size = args.size if args.size != "auto" else ("gpu" if device.type == "cuda" else "small")
    config, batch, default_contexts = SIZES[size]
    generate_with_cache = solution_namespace(SOLUTION)["generate_with_cache"]
    model = build_model(config, seed=0, device=device)
    print(f"device: {describe_device(device)}; model ({size}): {model.num_params() / 1e6:.1f}M parameters "
          f"(d_model {config.d_model}, {config.n_layers} layers, {config.n_heads} query / {config.n_kv_heads} KV heads, "
          f"d_ff {config.d_ff}), batch {batch}, {args.steps} greedy steps after a prompt of the given length, best of 3")
    print("| context | no cache tok/s | KV cache tok/s | speedup |")
    print("|---:|---:|---:|---:|")
    for context in map(int, (args.contexts or default_contexts).split(",")):
        slow = tokens_per_s(greedy_generate, model, batch, context, args.steps, device)
        fast = tokens_per_s(generate_with_cache, model, batch, context, args.steps, device)
        print(f"| {context} | {slow:.1f} | {fast:.1f} | {fast / slow:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
