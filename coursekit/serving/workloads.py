"""Request streams for the engine benchmarks: Poisson arrivals, long-tailed lengths, shared prefixes.

Shapes, not sizes, come from published traces; sizes are scaled to the course's tiny models and a
60-second CPU budget, and each generator says how:
- Chat (Kwon et al. 2023, section 6.1 and Fig. 11): the ShareGPT conversations vLLM was evaluated on
  have long-tailed lengths, mean prompt 161 and mean output 338 tokens (8.4x and 5.8x the Alpaca
  instructions'); outputs run about twice as long as prompts. We draw log-normal lengths with those
  means divided by `scale` (default 4), sigma 0.8 (our choice for the long tail, not fitted to the trace).
- Long prompts (Patel et al. 2024, Splitwise): in Azure's production coding trace the median prompt is
  about 1500 tokens and the median output about 13, so prefill dominates; this is the stream where
  chunked prefill (Agrawal et al. 2024) protects the decoders' time per token.
- Shared prefix (Zheng et al. 2024, RadixAttention): many requests open with one of a few long system
  prompts, as in few-shot and agent workloads; only prefix sharing avoids recomputing them.
Arrivals are a Poisson process (exponential gaps) at `rate` requests/s, as in all three papers'
synthetic loads; rate=None puts every request at time 0 (a closed burst, the throughput test).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass

SHAREGPT_MEAN_PROMPT, SHAREGPT_MEAN_OUTPUT = 161, 338       # Kwon et al. 2023, Fig. 11
SPLITWISE_CODING_MEDIAN_PROMPT, SPLITWISE_CODING_MEDIAN_OUTPUT = 1500, 13   # Patel et al. 2024


@dataclass(frozen=True)
class Item:
    prompt: tuple[int, ...]
    max_new_tokens: int
    arrival: float


@dataclass(frozen=True)
class Workload:
    name: str
    items: tuple[Item, ...]
    about: str

    @property
    def output_tokens(self) -> int:
        return sum(item.max_new_tokens for item in self.items)


def _lognormal(rng: random.Random, mean: float, sigma: float, low: int, high: int) -> int:
    mu = math.log(mean) - sigma ** 2 / 2                  # so that the mean, not the median, is `mean`
    return max(low, min(high, round(rng.lognormvariate(mu, sigma))))


def _arrivals(rng: random.Random, n: int, rate: float | None) -> list[float]:
    if rate is None:
        return [0.0] * n
    t, times = 0.0, []
    for _ in range(n):
        t += rng.expovariate(rate)
        times.append(t)
    return times


def _tokens(rng: random.Random, n: int, vocab: int) -> tuple[int, ...]:
    return tuple(rng.randrange(vocab) for _ in range(n))


def chat(n: int, rate: float | None, seed: int, vocab: int = 256, scale: float = 4.0, max_len: int = 1024) -> Workload:
    rng = random.Random(seed)
    items = []
    for t in _arrivals(rng, n, rate):
        p = _lognormal(rng, SHAREGPT_MEAN_PROMPT / scale, 0.8, 4, max_len // 2)
        o = _lognormal(rng, SHAREGPT_MEAN_OUTPUT / scale, 0.8, 2, max_len // 2)
        items.append(Item(_tokens(rng, p, vocab), o, t))
    return Workload("chat", tuple(items), f"ShareGPT-like lengths / {scale:g}, "
                    + ("all at t=0" if rate is None else f"Poisson {rate:g} req/s"))


def long_prompt(n: int, rate: float | None, seed: int, vocab: int = 256, scale: float = 4.0,
                share: float = 0.25) -> Workload:
    """A chat stream in which a `share` of the requests carry coding-trace prompts (long in, short out)."""
    rng = random.Random(seed)
    items = []
    for t in _arrivals(rng, n, rate):
        if rng.random() < share:
            p = _lognormal(rng, SPLITWISE_CODING_MEDIAN_PROMPT / scale, 0.3, 64, 600)
            o = _lognormal(rng, SPLITWISE_CODING_MEDIAN_OUTPUT, 0.5, 2, 64)
        else:
            p = _lognormal(rng, SHAREGPT_MEAN_PROMPT / scale, 0.8, 4, 256)
            o = _lognormal(rng, SHAREGPT_MEAN_OUTPUT / scale, 0.8, 2, 256)
        items.append(Item(_tokens(rng, p, vocab), o, t))
    return Workload("long-prompt", tuple(items), f"{share:.0%} Splitwise-coding-like prompts / {scale:g} among chat")


def shared_prefix(n: int, rate: float | None, seed: int, vocab: int = 256, n_prefixes: int = 2,
                  prefix_len: int = 192, scale: float = 4.0) -> Workload:
    rng = random.Random(seed)
    prefixes = [_tokens(rng, prefix_len, vocab) for _ in range(n_prefixes)]
    items = []
    for t in _arrivals(rng, n, rate):
        suffix = _tokens(rng, _lognormal(rng, 24, 0.6, 2, 128), vocab)
        o = _lognormal(rng, SHAREGPT_MEAN_OUTPUT / scale, 0.8, 2, 256)
        items.append(Item(rng.choice(prefixes) + suffix, o, t))
    return Workload("shared-prefix", tuple(items), f"{n_prefixes} system prompts of {prefix_len} tokens + short questions")
