"""Serving-system arithmetic for Module 6's lessons: metrics, the two workloads on one chip, paged KV
memory, preemption, speculative decoding inside a batch, and cost at a latency objective.

Everything is built on the course's calculators so the numbers agree with Modules 1-5: the roofline
(`roofline.prefill`, `roofline.decode_step`), the KV cache (`kvcache`, `memory.users_per_replica`), the
speculative-decoding sum (`speculative`) and Module 4's price of a token (`serving_cost`). Chips come
from `coursekit.hardware`, each with its datasheet. The step-by-step scheduler the lessons run is
`coursekit.calc.serving_sim`.

Metrics follow the serving papers: time to first token (TTFT) and time per output token (TPOT) as
DistServe defines them (Zhong et al., OSDI 2024), goodput as the rate of requests that meet both
objectives (the same paper). Paging is PagedAttention's (Kwon et al., SOSP 2023).
"""
from __future__ import annotations

import math

from coursekit.calc import kvcache, memory, roofline, speculative
from coursekit.calc.serving_cost import cost_per_million_tokens

# source: Kwon et al. 2023 (SOSP, arXiv:2309.06180), Figure 2: in the earlier systems they profiled
# (Orca, reimplemented with three reservation policies) only 20.4% to 38.2% of the KV-cache memory held token states.
EARLIER_SYSTEMS_KV_USED = (0.204, 0.382)
# source: Kwon et al. 2023, Figure 2 (Orca (Max), the variant that reserves the maximum sequence length), with
# section 3.1's definitions: reserved = slots held for tokens the request will generate later (eventually used);
# internal fragmentation = over-provisioned slots never used; external fragmentation = gaps between allocations.
ORCA_MAX_KV_SHARES = {"token_states": 0.204, "reserved": 0.133, "internal_fragmentation": 0.573,
                      "external_fragmentation": 0.089}
# source: Kwon et al. 2023, section 1: existing systems waste "60% - 80%" of KV memory to "fragmentation and
# over-reservation" (the authors' own figure, which the source document quotes as fragmentation alone).
VLLM_AUTHORS_WASTE = (0.60, 0.80)
# source: Kwon et al. 2023, section 7.2 (the block-size ablation): vLLM's default block holds 16 tokens.
VLLM_BLOCK_TOKENS = 16


def _positive(name: str, value: float) -> float:
    if not value > 0:
        raise ValueError(f"coursekit/calc/serving.py: {name} must be positive, got {value!r}")
    return value


# ---- metrics ---------------------------------------------------------------------------------------

def tpot(e2e_s: float, ttft_s: float, output_tokens: int) -> float:
    """Time per output token after the first: the decode phase's pace (0 for a one-token answer)."""
    if output_tokens < 1 or e2e_s < ttft_s:
        raise ValueError(f"coursekit/calc/serving.py: need output_tokens >= 1 and e2e >= ttft, "
                         f"got {output_tokens}, {e2e_s}, {ttft_s}")
    return (e2e_s - ttft_s) / (output_tokens - 1) if output_tokens > 1 else 0.0


def meets_slo(record: dict, ttft_slo_s: float, tpot_slo_s: float) -> bool:
    return record["ttft_s"] <= ttft_slo_s and record["tpot_s"] <= tpot_slo_s


def slo_attainment(records: list[dict], ttft_slo_s: float, tpot_slo_s: float) -> float:
    """Share of requests that met both objectives."""
    return sum(meets_slo(r, ttft_slo_s, tpot_slo_s) for r in records) / len(records)


def goodput(records: list[dict], duration_s: float, ttft_slo_s: float, tpot_slo_s: float) -> float:
    """Requests per second that met both objectives: throughput that counts only satisfied users."""
    return sum(meets_slo(r, ttft_slo_s, tpot_slo_s) for r in records) / _positive("duration_s", duration_s)


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile, q in 0..100 (the value at least q% of the list is at or below)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, math.ceil(q / 100 * len(ordered)) - 1))]


# ---- two workloads on one chip ---------------------------------------------------------------------

def prefill_intensity(model: str, prompt_tokens: int, bytes_per_element: float = 2) -> float:
    """FLOP/byte of one prompt's prefill (independent of the chip)."""
    return roofline.prefill(model, 1, prompt_tokens, 1.0, 1.0, bytes_per_element)["intensity"]


def decode_intensity(model: str, batch: int, context: int, bytes_per_element: float = 2) -> float:
    """FLOP/byte of one decode step for `batch` sequences at `context` tokens (Module 1's roofline)."""
    return roofline.decode_intensity(model, batch, context, bytes_per_element)


def _smallest(predicate, hi: int) -> int | None:
    """Smallest n in 1..hi with predicate(n) true, for a predicate that stays true once it is (bisection)."""
    if not predicate(hi):
        return None
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if predicate(mid) else (mid + 1, hi)
    return lo


def prompt_at_ridge(model: str, chip: str, bytes_per_element: float = 2) -> int | None:
    """Shortest prompt whose prefill reaches the chip's ridge point (turns compute-bound)."""
    ridge = roofline.chip_ridge_point(chip)
    return _smallest(lambda p: prefill_intensity(model, p, bytes_per_element) >= ridge, 1 << 20)


def decode_batch_at_ridge(model: str, chip: str, context: int, bytes_per_element: float = 2) -> int | None:
    """Smallest decode batch that reaches the ridge point; None if no batch does, because each
    sequence's own KV reads cap the intensity (roofline.decode_intensity_limit) below the ridge."""
    ridge = roofline.chip_ridge_point(chip)
    if roofline.decode_intensity_limit(model, context, bytes_per_element) < ridge:
        return None
    return _smallest(lambda b: decode_intensity(model, b, context, bytes_per_element) >= ridge, 1 << 20)


# ---- memory: paged KV blocks ------------------------------------------------------------------------

def kv_block_bytes(model: str, block_tokens: int = VLLM_BLOCK_TOKENS, bytes_per_element: float = 2) -> float:
    return block_tokens * roofline.kv_bytes_per_token(model, bytes_per_element)


def kv_blocks_free(model: str, chip: str, n_chips: int = 1, block_tokens: int = VLLM_BLOCK_TOKENS,
                   bytes_per_param: float = 2, kv_bytes_per_element: float = 2,
                   usable_fraction: float = memory.DEFAULT_USABLE_FRACTION) -> int:
    """KV blocks that fit beside one copy of the weights on `n_chips` chips (0 if the weights do not fit)."""
    usable = n_chips * roofline.resolve_chip(chip).memory_gb * 1e9 * usable_fraction
    free = usable - memory.model_weight_bytes(model, bytes_per_param)
    return max(0, math.floor(free / kv_block_bytes(model, block_tokens, kv_bytes_per_element)))


def earlier_systems_waste() -> tuple[float, float]:
    """The share of KV memory Kwon et al. measured *not* holding token states in earlier systems."""
    lo, hi = EARLIER_SYSTEMS_KV_USED
    return 1 - hi, 1 - lo


def reservation_breakdown(prompt_lens: list[int], output_lens: list[int], max_len: int) -> dict:
    """Where contiguous max-length reservations go once every request has finished, as fractions of what is
    reserved: token states, and the tail never used, which Kwon et al. (section 3.1) call internal
    fragmentation (over-provisioning). External fragmentation comes on top, between reservations."""
    used = sum(p + o for p, o in zip(prompt_lens, output_lens))
    reserved = max_len * len(prompt_lens)
    if any(p + o > max_len for p, o in zip(prompt_lens, output_lens)):
        raise ValueError(f"coursekit/calc/serving.py: a request is longer than the reservation {max_len}")
    return {"used": used / reserved, "internal_fragmentation": 1 - used / reserved}


def reservation_over_time(prompt_lens: list[int], output_lens: list[int], max_len: int) -> dict:
    """Kwon et al.'s three shares inside contiguous max-length reservations, averaged over every decode step of
    every request: token states held so far, reserved slots (held for tokens generated later, so eventually
    used) and internal fragmentation (never used). External fragmentation, between reservations, is not here."""
    if any(p + o > max_len or o < 1 for p, o in zip(prompt_lens, output_lens)):
        raise ValueError(f"coursekit/calc/serving.py: need 1 <= output and prompt + output <= {max_len}")
    held = reserved = internal = 0.0
    for p, o in zip(prompt_lens, output_lens):
        held += o * p + o * (o + 1) / 2           # steps t = 1..o hold p + t tokens
        reserved += o * (o - 1) / 2               # and keep o - t slots for later tokens
        internal += o * (max_len - p - o)         # the tail past p + o is never used
    total = held + reserved + internal
    return {"token_states": held / total, "reserved": reserved / total, "internal_fragmentation": internal / total}


def reservation_used_fraction(prompt_tokens: int, output_tokens: int, max_len: int) -> float:
    """One request's share of its max-length reservation that ever holds a token (a flat signature for banks)."""
    return reservation_breakdown([prompt_tokens], [output_tokens], max_len)["used"]


def paged_waste_fraction(lengths: list[int], block_tokens: int = VLLM_BLOCK_TOKENS) -> float:
    """Share of allocated slots left empty under paging: only each request's last block is partial."""
    return kvcache.fragmentation_summary(lengths, block_tokens, max(lengths))["paged_waste_frac"]


def prefix_sharing_blocks(n_requests: int, prefix_tokens: int, suffix_tokens: int,
                          block_tokens: int = VLLM_BLOCK_TOKENS) -> dict:
    """Blocks for n requests that share a prompt prefix, with and without sharing. Only the prefix's
    *full* blocks can be shared (a partly filled block is written by each request: copy on write)."""
    alone = kvcache.blocks_needed(prefix_tokens + suffix_tokens, block_tokens)
    shared = prefix_tokens // block_tokens
    without = n_requests * alone
    with_sharing = shared + n_requests * (alone - shared)
    return {"without": without, "with": with_sharing, "saved_fraction": 1 - with_sharing / without}


def prefix_saved_fraction(n_requests: int, prefix_tokens: int, suffix_tokens: int,
                          block_tokens: int = VLLM_BLOCK_TOKENS) -> float:
    return prefix_sharing_blocks(n_requests, prefix_tokens, suffix_tokens, block_tokens)["saved_fraction"]


def runs_out_first(model: str, chip: str, context: int, n_chips: int = 1, bytes_per_param: float = 2,
                   usable_fraction: float = memory.DEFAULT_USABLE_FRACTION) -> dict:
    """On one replica, which limit a growing decode batch hits first: the weights do not fit at all,
    the KV blocks run out (sessions that fit, Module 3/4's users_per_replica), or the step turns
    compute-bound (the batch at the ridge point)."""
    sessions = memory.users_per_replica(model, chip, context, n_chips, bytes_per_param, 2, usable_fraction)
    at_ridge = decode_batch_at_ridge(model, chip, context, bytes_per_param)
    weights_fit = memory.model_weight_bytes(model, bytes_per_param) <= (
        n_chips * roofline.resolve_chip(chip).memory_gb * 1e9 * usable_fraction)
    if not weights_fit or sessions < 1:
        first = "weights"
    elif at_ridge is None or sessions < at_ridge:
        first = "KV blocks"
    else:
        first = "compute"
    return {"sessions": sessions, "batch_at_ridge": at_ridge, "first": first}


def decode_mfu(model: str, chip: str, batch: int, context: int, bytes_per_element: float = 2) -> float:
    """Share of the chip's peak FLOP/s a decode step uses at its roofline time: how busy a full batch keeps it."""
    peak, bandwidth = roofline.chip_ceilings(chip)
    step = roofline.decode_step(model, batch, context, peak, bandwidth, bytes_per_element)
    return roofline.model_flops_utilization(step["flops"], step["seconds"], peak)


# ---- preemption: recompute or swap ------------------------------------------------------------------

def recompute_seconds(model: str, chip: str, tokens: int, n_chips: int = 1, bytes_per_element: float = 2,
                      prefill_mfu: float = 1.0) -> float:
    """Roofline time to rebuild a preempted request's KV cache by prefilling its tokens again, at `prefill_mfu`
    of peak (1.0 is the roofline's lower bound; the course's simulator, serving_sim, prefills at 0.5)."""
    peak, bandwidth = roofline.chip_ceilings(chip)
    return roofline.prefill(model, 1, tokens, n_chips * peak * _positive("prefill_mfu", prefill_mfu),
                            n_chips * bandwidth, bytes_per_element)["seconds"]


def swap_seconds(model: str, tokens: int, link_gbs: float, bytes_per_element: float = 2) -> float:
    """Time to copy a request's KV cache to host memory and back over a link of link_gbs GB/s each way."""
    return 2 * roofline.kv_transfer_seconds(model, tokens, link_gbs, bytes_per_element)


# ---- one engine step, speculative decoding inside a batch -------------------------------------------

def step_seconds(model: str, chip: str, batch: int, context: int, tokens_per_seq: int = 1, n_chips: int = 1,
                 bytes_per_element: float = 2) -> float:
    """Roofline time of one step that runs `tokens_per_seq` query positions for each of `batch` sequences
    at `context`: weights read once, each sequence's KV read once, FLOPs per position. tokens_per_seq = 1
    is roofline.decode_step; k + 1 is a speculative verification step."""
    peak, bandwidth = roofline.chip_ceilings(chip)
    n = roofline.matmul_params(model)
    positions = batch * tokens_per_seq
    flops = positions * (2.0 * n + roofline.attention_flops_per_token(model, context))
    moved = (n * bytes_per_element + batch * context * roofline.kv_bytes_per_token(model, bytes_per_element)
             + positions * roofline.activation_bytes_per_token(model, bytes_per_element))
    return roofline.roofline_time(flops, moved, n_chips * peak, n_chips * bandwidth)


def speculative_sessions_that_fit(model: str, draft: str, chip: str, context: int, n_chips: int = 1,
                                  bytes_per_param: float = 2,
                                  usable_fraction: float = memory.DEFAULT_USABLE_FRACTION) -> int:
    """Sequences of `context` tokens whose KV caches, the target's and the draft's, fit beside both models'
    weights on `n_chips` chips (0 if the two sets of weights leave no room for one)."""
    usable = n_chips * roofline.resolve_chip(chip).memory_gb * 1e9 * usable_fraction
    free = usable - memory.model_weight_bytes(model, bytes_per_param) - memory.model_weight_bytes(draft, bytes_per_param)
    per_session = kvcache.model_kv_bytes_per_session(model, context) + kvcache.model_kv_bytes_per_session(draft, context)
    return max(0, math.floor(free / per_session))


def speculative_speedup_in_batch(model: str, draft: str, chip: str, batch: int, context: int, a: float, k: int,
                                 n_chips: int = 1) -> float:
    """Throughput gain of speculative decoding for a whole batch: tokens per step (Leviathan et al. 2023)
    times a plain step's time, over a verification step of k + 1 positions plus k draft steps. At batch 1
    it is Module 5's latency gain; as the batch grows the verification turns compute-bound and it shrinks.
    The batch must fit: both models' weights and both KV caches on the `n_chips` chips."""
    fits = speculative_sessions_that_fit(model, draft, chip, context, n_chips)
    if batch > fits:
        raise ValueError(f"coursekit/calc/serving.py: {batch} sequences of {context} tokens do not fit beside "
                         f"{model} and its draft {draft} on {n_chips} x {chip} (at most {fits})")
    plain = step_seconds(model, chip, batch, context, 1, n_chips)
    spec = step_seconds(model, chip, batch, context, k + 1, n_chips) + k * step_seconds(draft, chip, batch, context, 1, n_chips)
    return speculative.expected_tokens_per_step(a, k) * plain / spec


# ---- cost per million tokens at a latency objective -------------------------------------------------

def batch_for_tpot(model: str, chip: str, context: int, tpot_slo_s: float, n_chips: int = 1,
                   bytes_per_param: float = 2, usable_fraction: float = memory.DEFAULT_USABLE_FRACTION) -> int:
    """Largest decode batch whose step meets the time-per-token objective and whose KV cache fits
    (0 if not even one sequence does)."""
    fits = memory.users_per_replica(model, chip, context, n_chips, bytes_per_param, 2, usable_fraction)
    ok = lambda b: step_seconds(model, chip, b, context, 1, n_chips, bytes_per_param) <= tpot_slo_s
    if fits < 1 or not ok(1):
        return 0
    lo, hi = 1, fits
    while lo < hi:          # step time grows with the batch: the largest b that meets the objective
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid - 1)
    return lo


def cost_at_slo(model: str, chip: str, context: int, tpot_slo_s: float, price_per_chip_hour: float,
                utilization: float, n_chips: int = 1, bytes_per_param: float = 2) -> dict:
    """Module 4's price of a token for a replica run at the largest batch the objective allows."""
    batch = batch_for_tpot(model, chip, context, tpot_slo_s, n_chips, bytes_per_param)
    if batch == 0:
        raise ValueError(f"coursekit/calc/serving.py: {model} on {n_chips} x {chip} cannot meet "
                         f"{tpot_slo_s * 1e3:.0f} ms per token at context {context}")
    step = step_seconds(model, chip, batch, context, 1, n_chips, bytes_per_param)
    tokens_per_s = batch / step
    return {"batch": batch, "step_s": step, "tokens_per_s": tokens_per_s,
            "cost_per_million": cost_per_million_tokens(n_chips * price_per_chip_hour, tokens_per_s, utilization)}


def cost_per_million_at_slo(model: str, chip: str, context: int, tpot_slo_s: float, price_per_chip_hour: float,
                            utilization: float, n_chips: int = 1, bytes_per_param: float = 2) -> float:
    """The same, one number (a flat signature for quiz banks)."""
    return cost_at_slo(model, chip, context, tpot_slo_s, price_per_chip_hour, utilization, n_chips,
                       bytes_per_param)["cost_per_million"]
