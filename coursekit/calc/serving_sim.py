"""A serving engine's scheduler, simulated step by step on a trace (Module 6, Lessons 1 and 3).

Not the engine learners build in Lab 6 (that runs a real model); this runs only the bookkeeping, with
each step's time from a cost model, so a lesson can replay hundreds of requests in a fraction of a second.

Each step (an *iteration*, Orca: Yu et al., OSDI 2022) every running request that has its prompt done
decodes one token, and prompt tokens are prefilled beside them. The step costs
`base_s + per_seq_s * decodes + prefill_token_s * prefill tokens` (coursekit.calc.batching.StepCost;
`step_cost_for` derives the three terms from a chip's roofline). The sum is a simplification: the roofline
takes the larger of a step's memory time and compute time, so decodes sharing a step with a compute-bound
prompt chunk cost almost nothing (where Sarathi-Serve's capacity gain comes from); `mixed_step_seconds`
gives both. Policies:

- whole prompts (`token_budget=None`): a newly admitted request's whole prompt is prefilled in one
  step, so every decode in that step waits for it (the generation stall Sarathi-Serve measures);
- chunked prefill (`token_budget=T`, Sarathi-Serve: Agrawal et al., OSDI 2024): decodes first, then
  prompt chunks fill what is left of T tokens per step;
- a KV block budget (`kv_blocks`, PagedAttention: Kwon et al., SOSP 2023): a request is admitted only if
  its prompt's blocks are free; when a decode needs a block and none is free, the most recently admitted
  request is preempted by recomputation (its blocks freed, its prompt and generated tokens prefilled again
  later), as vLLM does by default.

`simulate_disaggregated` runs prefill and decode on separate instances (DistServe, Zhong et al., OSDI
2024; Splitwise, Patel et al., ISCA 2024), shipping each prompt's KV cache between them.
"""
from __future__ import annotations

from dataclasses import dataclass

from coursekit.calc import roofline
from coursekit.calc.batching import Request, StepCost, make_trace
from coursekit.calc.kvcache import blocks_needed
from coursekit.calc.serving import tpot

__all__ = ["Request", "StepCost", "make_trace", "step_cost_for", "simulate", "simulate_disaggregated", "split_trace",
           "prefill_stall_seconds", "mixed_step_seconds"]


def step_cost_for(model: str, chip: str, context: int, n_chips: int = 1, prefill_mfu: float = 0.5,
                  bytes_per_element: float = 2) -> StepCost:
    """A step's cost terms from the roofline: reading the weights once (base), one sequence's KV cache at
    `context` tokens (per sequence), and one prompt token's 2N FLOPs at `prefill_mfu` of peak (per prefill token)."""
    peak, bandwidth = roofline.chip_ceilings(chip)
    peak, bandwidth = n_chips * peak, n_chips * bandwidth
    n = roofline.matmul_params(model)
    return StepCost(base_s=n * bytes_per_element / bandwidth,
                    per_seq_s=context * roofline.kv_bytes_per_token(model, bytes_per_element) / bandwidth,
                    prefill_token_s=2.0 * n / (peak * prefill_mfu))


def mixed_step_seconds(cost: StepCost, decodes: int, prefill_tokens: int, roofline_max: bool = False) -> float:
    """One step with `decodes` decoding sequences and `prefill_tokens` prompt tokens: as the simulator adds the
    terms (cost.iteration), or by the roofline, the larger of the memory time (weights once, each decode's KV
    reads) and the prefill's compute time. Decode FLOPs are left out of both (small beside a chunk's)."""
    if not roofline_max:
        return cost.iteration(decodes, prefill_tokens)
    return max(cost.base_s + cost.per_seq_s * decodes, cost.prefill_token_s * prefill_tokens)


def prefill_stall_seconds(model: str, chip: str, prompt_tokens: int, n_chips: int = 1, prefill_mfu: float = 0.5) -> float:
    """What a whole-prompt prefill adds to the step every running decode waits for."""
    return step_cost_for(model, chip, 1, n_chips, prefill_mfu).prefill_token_s * prompt_tokens


@dataclass
class _Live:
    req: Request
    to_prefill: int                 # prompt tokens (plus regenerated ones after a preemption) still to prefill
    generated: int = 0
    blocks: int = 0
    active: bool = False            # admitted and holding its blocks
    ttft: float | None = None
    last_token: float | None = None
    worst_gap: float = 0.0

    @property
    def length(self) -> int:        # tokens whose KV the request holds once its prefill is done
        return self.req.prompt_tokens + self.generated


def simulate(trace: list[Request], cost: StepCost = StepCost(), max_batch: int = 32, token_budget: int | None = None,
             kv_blocks: int | None = None, block_tokens: int = 16) -> dict:
    """Replay `trace`; per-request records (ttft_s, tpot_s, e2e_s, worst_gap_s) and totals."""
    if token_budget is not None and token_budget <= max_batch:
        raise ValueError(f"coursekit/calc/serving_sim.py: token_budget {token_budget} leaves no room for prefill "
                         f"beside {max_batch} decodes")
    if kv_blocks is not None:
        too_big = [r for r in trace if blocks_needed(r.prompt_tokens + r.output_tokens, block_tokens) > kv_blocks]
        if too_big:
            raise ValueError(f"coursekit/calc/serving_sim.py: request {too_big[0].rid} needs more than all "
                             f"{kv_blocks} blocks")
    pending = sorted(trace, key=lambda r: r.arrival_s)
    waiting: list[_Live] = []
    running: list[_Live] = []       # in admission order: the newest is preempted first
    done: dict[int, dict] = {}
    now, i, steps, preemptions, free = 0.0, 0, 0, 0, kv_blocks
    peak_blocks = 0
    while len(done) < len(trace):
        while i < len(pending) and pending[i].arrival_s <= now:
            waiting.append(_Live(pending[i], pending[i].prompt_tokens))
            i += 1
        while waiting and len(running) < max_batch:
            need = blocks_needed(waiting[0].length, block_tokens)
            if free is not None and need > free:
                break                                   # FIFO admission: no overtaking
            live = waiting.pop(0)
            live.blocks, live.active = need, True
            free = None if free is None else free - need
            running.append(live)
        if not running:
            now = max(now, pending[i].arrival_s)
            continue
        decoders = [r for r in running if r.to_prefill == 0]
        if free is not None:                            # each decode may need one more block
            for r in decoders:
                if not r.active:
                    continue
                need = blocks_needed(r.length + 1, block_tokens) > r.blocks
                while need and free == 0:
                    victim = running.pop()              # newest first; may be r itself
                    free += victim.blocks
                    victim.blocks, victim.to_prefill, victim.active = 0, victim.length, False
                    waiting.insert(0, victim)
                    preemptions += 1
                    if victim is r:
                        break
                if r.active and need:
                    r.blocks += 1
                    free -= 1
            decoders = [r for r in decoders if r.active]
        budget = None if token_budget is None else token_budget - len(decoders)
        chunks = {}
        for r in running:
            if r.to_prefill > 0 and (budget is None or budget > 0):
                take = r.to_prefill if budget is None else min(r.to_prefill, budget)
                chunks[id(r)] = take
                budget = None if budget is None else budget - take
        now += cost.iteration(len(decoders), sum(chunks.values()))
        steps += 1
        emitted = list(decoders)
        for r in running:
            if id(r) in chunks:
                r.to_prefill -= chunks[id(r)]
                if r.to_prefill == 0:
                    emitted.append(r)                   # the prefill's last position yields the next token
        for r in emitted:
            r.generated += 1
            if r.ttft is None:
                r.ttft = now
            else:
                r.worst_gap = max(r.worst_gap, now - r.last_token)
            r.last_token = now
            if r.generated == r.req.output_tokens:
                running.remove(r)
                r.active = False
                free = None if free is None else free + r.blocks
                e2e = now - r.req.arrival_s
                ttft = r.ttft - r.req.arrival_s
                done[r.req.rid] = {"rid": r.req.rid, "ttft_s": ttft, "e2e_s": e2e,
                                   "tpot_s": tpot(e2e, ttft, r.req.output_tokens), "worst_gap_s": r.worst_gap}
        if kv_blocks is not None:
            peak_blocks = max(peak_blocks, kv_blocks - free)
    records = [done[r.rid] for r in trace]
    makespan = max(r.arrival_s + done[r.rid]["e2e_s"] for r in trace) - min(r.arrival_s for r in trace)
    return {"records": records, "steps": steps, "preemptions": preemptions, "peak_blocks": peak_blocks,
            "makespan_s": makespan, "tokens_per_s": sum(r.output_tokens for r in trace) / makespan}


def split_trace(trace: list[Request], parts: int) -> list[list[Request]]:
    """Round-robin load balancing of one trace over `parts` identical instances."""
    return [trace[k::parts] for k in range(parts)]


def simulate_disaggregated(trace: list[Request], cost: StepCost, max_batch: int = 32,
                           transfer_s_per_token: float = 0.0) -> dict:
    """One prefill instance (prompts one after another, first come first served) and one decode
    instance (continuous batching with no prefill in its steps); each prompt's KV cache crosses
    between them at `transfer_s_per_token`, which delays the second token, not the first."""
    ready, prefill_free, first = [], 0.0, {}
    for r in sorted(trace, key=lambda r: r.arrival_s):
        start = max(prefill_free, r.arrival_s)
        prefill_free = start + cost.iteration(0, r.prompt_tokens)
        first[r.rid] = prefill_free
        if r.output_tokens > 1:
            ready.append(Request(r.rid, prefill_free + transfer_s_per_token * r.prompt_tokens, 0, r.output_tokens - 1))
    decoded = {d["rid"]: d for d in simulate(ready, cost, max_batch)["records"]} if ready else {}
    joined = {q.rid: q.arrival_s for q in ready}
    records = []
    for r in trace:
        ttft = first[r.rid] - r.arrival_s
        e2e = ttft if r.rid not in decoded else joined[r.rid] + decoded[r.rid]["e2e_s"] - r.arrival_s
        records.append({"rid": r.rid, "ttft_s": ttft, "e2e_s": e2e, "tpot_s": tpot(e2e, ttft, r.output_tokens),
                        "worst_gap_s": decoded.get(r.rid, {}).get("worst_gap_s", 0.0)})
    makespan = max(r.arrival_s + rec["e2e_s"] for r, rec in zip(trace, records)) - min(r.arrival_s for r in trace)
    return {"records": records, "makespan_s": makespan, "tokens_per_s": sum(r.output_tokens for r in trace) / makespan}
