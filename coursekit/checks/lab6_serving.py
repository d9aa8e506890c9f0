"""Lab 6 (the serving engine): how a case becomes a model, a grader-sized KV cache and a workload; how
the course drives a learner's engine through it; and how the run is judged. Used by the student's
visible checks and by the grader alike (docs/SERVING.md, "How grading works").

A case is plain data: (milestone, model shape, seed, requests, num_blocks, block_size, token_budget,
limits), each request [prompt tokens, max_new_tokens, the step it arrives at]. `prepare` builds the
model (and the draft at milestone 4) and the KV storage itself, so the engine cannot hold more blocks
than the grader chose; the learner's `make_engine` gets them; `encode` drives the engine step by step
(the course's loop, not the learner's) and records what it observed from outside the engine: the
tokens, the blocks held after every step, how many tokens the model ran per step (a hook on the
embedding), who got a first token when. `compare` judges that record against the trusted side's
greedy decode of each request alone, by the identical-tokens rule (coursekit/serving/identical.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .cases import Case

SLACK_TOKENS = 4       # positions an engine may hold beyond a request's tokens so far (a speculative step)
MARGIN = 1e-3          # coursekit.serving.identical.MARGIN, restated so the checks import no torch early

_PENDING: list = []    # the case `prepare` built last: `encode` drives the engine through its workload


@dataclass
class Plan:
    requests: list
    limits: dict
    num_blocks: int
    block_size: int
    token_budget: int | None
    model: Any
    draft: Any


@dataclass
class TrustedDecode:
    """The trusted side's answer for one case: each request's greedy tokens decoded alone, and where a
    step was a near-tie, the other token the rule also accepts (-1 where there was none)."""
    data: dict = field(default_factory=dict)


def build_models(shape: dict, seed: int):
    """Target and early-exit draft (coursekit.nn.draft): random weights, tiny, no downloads."""
    from coursekit.nn.draft import build_draft_pair

    return build_draft_pair(seed=seed, n_layers=shape["n_layers"], draft_layers=shape.get("draft_layers", 1),
                            damp=shape.get("damp", 0.3), vocab_size=shape["vocab_size"], d_model=shape["d_model"])


def prepare(case: Case):
    from coursekit.serving.paged import PagedKVCache

    milestone, shape, seed, requests, num_blocks, block_size, token_budget, limits = case.args
    model, draft = build_models(shape, seed)
    cache = PagedKVCache.for_model(model, num_blocks, block_size)
    use_draft = milestone == 4
    draft_cache = PagedKVCache.for_model(draft, num_blocks, block_size) if use_draft else None
    _PENDING[:] = [Plan(requests, dict(limits), num_blocks, block_size, token_budget, model, draft)]
    return (milestone, model, cache), {"draft": draft if use_draft else None, "draft_cache": draft_cache,
                                       "token_budget": token_budget}


def _counter(module, into: list):
    """Count the token positions each forward of `module` (a model's embedding) is given."""
    return module.register_forward_pre_hook(lambda _m, inputs: into.append(int(inputs[0].numel())))


def _counting(plan: Plan, hooks: list) -> bool:
    """Whether both counters still hang on the plan's models' embeddings (an engine can clear them)."""
    return all(hook.id in getattr(getattr(model, "embed", None), "_forward_pre_hooks", {})
               for hook, model in zip(hooks, (plan.model, plan.draft)))


def drive(engine, plan: Plan) -> dict:
    """Step the engine through the plan's requests; record what is seen from outside it."""
    record = {"tokens": [[] for _ in plan.requests], "first_step": [None] * len(plan.requests), "error": None,
              "steps": 0, "peak_blocks": 0, "final_blocks": None, "over_need": None, "max_step_tokens": 0,
              "target_tokens": 0, "target_passes": 0, "draft_passes": 0, "returned": [], "counters": None}
    max_steps = int(plan.limits["max_steps"])
    target_calls, draft_calls = [], []
    hooks = [_counter(plan.model.embed, target_calls), _counter(plan.draft.embed, draft_calls)]
    order = sorted(range(len(plan.requests)), key=lambda i: plan.requests[i][2])
    ids, added, live = {}, 0, set()
    try:
        while added < len(order) or engine.has_unfinished():
            step = record["steps"]
            if step >= max_steps:
                record["error"] = (f"not finished after {max_steps} steps ({sum(map(len, record['tokens']))} of "
                                   f"{sum(r[1] for r in plan.requests)} tokens): a request is starved or stuck")
                break
            while added < len(order) and plan.requests[order[added]][2] <= step:
                i = order[added]
                prompt, max_new, _ = plan.requests[i]
                ids[engine.add_request(list(prompt), int(max_new), float(plan.requests[i][2]))] = i
                live.add(i)
                added += 1
            if not engine.has_unfinished():
                record["steps"] += 1                       # idle until the next arrival
                continue
            before = len(target_calls)
            out = engine.step()
            record["steps"] += 1
            step_tokens = sum(target_calls[before:])
            record["max_step_tokens"] = max(record["max_step_tokens"], step_tokens)
            if record["counters"] is None and not _counting(plan, hooks):
                record["counters"] = f"step {step}"
            record["returned"].append([sum(len(new) for new in out.new_tokens.values()),
                                       max((len(new) for new in out.new_tokens.values()), default=0)])
            for rid, new in out.new_tokens.items():
                i = ids[rid]
                if record["first_step"][i] is None and new:
                    record["first_step"][i] = step - plan.requests[i][2]
                record["tokens"][i] += [int(t) for t in new]
            for rid in out.finished:
                live.discard(ids[rid])
            used = int(engine.kv_blocks_in_use)
            record["peak_blocks"] = max(record["peak_blocks"], used)
            need = sum(math.ceil((len(plan.requests[i][0]) + len(record["tokens"][i]) + SLACK_TOKENS)
                                 / plan.block_size) for i in live)
            if record["over_need"] is None and used > need:
                record["over_need"] = (f"step {step}: {used} blocks held, but the unfinished requests' tokens "
                                       f"need at most {need}")
    except Exception as error:                           # noqa: BLE001 - the engine's failure is the record
        record["error"] = f"step {record['steps']}: {type(error).__name__}: {str(error)[:200]}"
    finally:
        for hook in hooks:
            hook.remove()
    record["final_blocks"] = int(engine.kv_blocks_in_use) if record["error"] is None else None
    record["target_tokens"], record["target_passes"] = sum(target_calls), len(target_calls)
    record["draft_passes"] = len(draft_calls)
    return record


def encode(output) -> dict:
    """The learner's engine, driven through the pending case's workload. A decode record is refused
    here: only the trusted side's own reference may hand one in (`encode_trusted`)."""
    if isinstance(output, (TrustedDecode, dict)):
        raise TypeError("make_engine must return an engine (add_request, step, has_unfinished, kv_blocks_in_use), "
                        "not a decode record")
    if not all(hasattr(output, name) for name in ("add_request", "step", "has_unfinished", "kv_blocks_in_use")):
        raise TypeError("make_engine must return an engine with add_request, step, has_unfinished and "
                        f"kv_blocks_in_use (got {type(output).__name__})")
    if not _PENDING:
        raise TypeError("no case is pending: call prepare(case) first")
    return drive(output, _PENDING.pop())


def encode_trusted(output) -> dict:
    """The trusted side's reference (Task.encode_reference, never run in the learner's process)."""
    if isinstance(output, TrustedDecode):
        _PENDING.clear()
        return output.data
    return encode(output)


def trusted_decode(milestone, model, cache, draft=None, draft_cache=None, token_budget=None) -> TrustedDecode:
    """Each request of the pending case decoded alone by the course decoder (full recomputation)."""
    import torch

    plan = _PENDING[-1]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)          # the tiny models' matrices: threads cost more than they save
    try:
        decoded = [_decode_alone(model, prompt, max_new) for prompt, max_new, _ in plan.requests]
    finally:
        torch.set_num_threads(threads)
    return TrustedDecode({"reference": True, "tokens": [t for t, _ in decoded], "ties": [t for _, t in decoded],
                          "limits": dict(plan.limits), "num_blocks": plan.num_blocks, "token_budget": plan.token_budget})


def _decode_alone(model, prompt, max_new) -> tuple[list, list]:
    """(greedy tokens, per step the near-tie alternative or -1) for one request decoded alone."""
    import torch

    from coursekit.serving.identical import reference_decode

    tokens, logits = reference_decode(model, list(prompt), int(max_new))
    ties = []
    for step, token in enumerate(tokens):
        top = torch.topk(logits[step].double(), 2)
        other = [int(i) for i in top.indices.tolist() if int(i) != token]
        ties.append(other[0] if float(top.values[0] - top.values[1]) < MARGIN and other else -1)
    return tokens, ties


def _token_problem(got: list, want: list, ties: list) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} tokens, expected exactly max_new_tokens = {len(want)}"
    for step, (g, w, tie) in enumerate(zip(got, want, ties)):
        if g == w:
            continue
        if g == tie:
            return None                  # a near-tie: either token is right; compared no further
        return f"token {step} is {g}, the reference's greedy choice is {w} (not a near-tie)"
    return None


@dataclass(frozen=True)
class serving_match:  # noqa: N801 - used like approx: compare=serving_match()
    """Judge an engine's run record against the trusted decode and the case's limits, in this order:
    it ran to the end; every request's tokens are identical (the rule); blocks stayed within the budget,
    within what the requests need, and all came back; then each milestone's own limits."""

    def as_data(self) -> dict:
        return {"call": f"{__name__}:serving_match", "kwargs": {}}

    def __call__(self, got: Any, want: Any, path: str = "output") -> str | None:
        if isinstance(got, dict) and got.get("reference"):       # the trusted decode checked against itself
            return None if got == want else "make_engine must return an engine, not a decode record"
        if not isinstance(got, dict) or "first_step" not in got:
            return "no run record: make_engine must return an engine the course's loop can drive"
        if got.get("error"):
            return f"the engine failed: {got['error']}"
        for i, (g, w, t) in enumerate(zip(got["tokens"], want["tokens"], want["ties"])):
            problem = _token_problem(g, w, t)
            if problem:
                return f"request {i}: {problem}"
        if len(got["tokens"]) != len(want["tokens"]):
            return f"{len(got['tokens'])} requests reported, expected {len(want['tokens'])}"
        if got["peak_blocks"] > want["num_blocks"]:
            return f"held {got['peak_blocks']} KV blocks, more than the {want['num_blocks']} the cache has"
        if got["over_need"]:
            return f"holds more blocks than the requests need: {got['over_need']}"
        if got["final_blocks"]:
            return f"{got['final_blocks']} blocks still held after every request finished: blocks leak"
        return _limits_problem(got, want["limits"], want.get("token_budget"))


def _overtaken(first_step: list, arrivals: list, allowed: int) -> str | None:
    """A request passed over: more than `allowed` later arrivals got a first token before it did."""
    at = [None if f is None else a + f for f, a in zip(first_step, arrivals)]
    for i, mine in enumerate(at):
        ahead = sum(1 for j, theirs in enumerate(at) if arrivals[j] > arrivals[i] and theirs is not None
                    and (mine is None or theirs < mine))
        if ahead > allowed:
            return (f"request {i} (arrived at step {arrivals[i]}) got its first token after {ahead} requests that "
                    f"arrived later: a scheduler that keeps serving newer requests first starves the oldest")
    return None


def _returned_problem(got: dict, limits: dict, token_budget) -> str | None:
    """The milestone limits that rest on what each step() returned (issue 51), which the trusted side checks
    against the verified tokens: the model-pass counters are hooks in the learner's process, which an
    engine can clear. Every returned token cost at least one position through the target model that step,
    and an engine that does not speculate returns at most one token per request per step."""
    returned = got.get("returned")
    if not isinstance(returned, list) or not all(isinstance(r, list) and len(r) == 2 and all(
            isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in r) for r in returned):
        return "no per-step record of the tokens step() returned (the course's loop was changed?)"
    if sum(total for total, _ in returned) != sum(map(len, got["tokens"])):
        return "the per-step record does not add up to the tokens returned (the course's loop was changed?)"
    most = max((total for total, _ in returned), default=0)
    if token_budget and most > token_budget:
        return (f"one step returned {most} tokens, each needing at least one position through the model; "
                f"the token budget is {token_budget}")
    stepped = sum(1 for total, _ in returned if total)
    if limits.get("speculate") and stepped >= limits["speculate"]:
        return (f"{stepped} steps returned the {limits['speculate']} new tokens, at most "
                f"{max((one for _, one in returned), default=0)} at a time: speculation must verify several "
                "drafted tokens per target pass")
    return None


def _limits_problem(got: dict, limits: dict, token_budget) -> str | None:
    problem = _returned_problem(got, limits, token_budget)
    if problem:
        return problem
    if "batch_steps" in limits and got["steps"] > limits["batch_steps"]:
        return (f"took {got['steps']} steps where a batching engine needs at most {limits['batch_steps']}: "
                "requests must join the running batch at every step, not wait for one another")
    if "overtaken" in limits:
        problem = _overtaken(got["first_step"], limits["arrivals"], limits["overtaken"])
        if problem:
            return problem
    if token_budget and got["max_step_tokens"] > token_budget:
        return f"one step ran {got['max_step_tokens']} tokens through the model; the token budget is {token_budget}"
    if "max_target_tokens" in limits and got.get("counters", "unknown") is not None:
        # the positions prefix sharing saved are known only from the hook: removed, nothing is measured
        return (f"the course's count of the positions the model ran was removed ({got.get('counters')}): "
                "prefix sharing cannot be measured; leave the models' forward hooks in place")
    if "max_target_tokens" in limits and got["target_tokens"] > limits["max_target_tokens"]:
        return (f"the model ran {got['target_tokens']} token positions; sharing the common prompt prefixes "
                f"needs at most {limits['max_target_tokens']}")
    if limits.get("speculate") and (got["draft_passes"] == 0 or got["target_passes"] >= limits["speculate"]):
        return (f"the target model ran {got['target_passes']} passes and the draft {got['draft_passes']} for "
                f"{limits['speculate']} new tokens: speculation must verify several drafted tokens per target pass")
    return None
