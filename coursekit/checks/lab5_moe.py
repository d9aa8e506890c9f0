"""Lab 5 (MoE, speculative decoding): how a case's seeds and shapes become tensors and models, and how
answers become plain data, the same way in the student's process and the grader's."""
from __future__ import annotations

from coursekit.nn.draft import build_draft_pair

from .cases import Case, encode


def gen(seed: int):
    import torch

    return torch.Generator().manual_seed(seed)


def router_args(case: Case):
    import torch

    c = case.kwargs
    logits = torch.randn(c["tokens"], c["experts"], generator=gen(c["seed"])) * c.get("scale", 1.0)
    return (logits, c["k"]), {"renormalize": c["renormalize"]}


def layer_args(case: Case):
    import torch

    from coursekit.nn.moe import MoEConfig, build_moe

    c = case.kwargs
    layer = build_moe(MoEConfig(d_model=c["d_model"], d_ff=c["d_ff"], n_experts=c["experts"], top_k=c["k"],
                                renormalize=c["renormalize"]), seed=c["seed"])
    x = torch.randn(c["tokens"], c["d_model"], generator=gen(c["seed"] + 1))
    return (x, layer), {}


def encode_no_grad(value):
    return encode(value.detach() if hasattr(value, "detach") else value)


def aux_args(case: Case):
    import torch

    c = case.kwargs
    logits = torch.randn(c["tokens"], c["experts"], generator=gen(c["seed"]))
    logits[:, 0] += c["skew"]   # a router that favours expert 0, as an unbalanced one does
    return (logits, c["k"]), {}


def capacity_args(case: Case):
    import torch

    c = case.kwargs
    logits = torch.randn(c["tokens"], c["experts"], generator=gen(c["seed"]))
    logits[:, 0] += c.get("skew", 0.0)
    indices = logits.topk(c["k"], dim=-1).indices
    return (indices, c["experts"], c["capacity_factor"]), {}


def encode_capacity(out):
    if not isinstance(out, dict) or not {"capacity", "keep", "load", "dropped"} <= set(out):
        raise TypeError("apply_capacity must return a dict with keys capacity, keep, load, dropped")
    keep = out["keep"].tolist() if hasattr(out["keep"], "tolist") else out["keep"]
    load = out["load"].tolist() if hasattr(out["load"], "tolist") else out["load"]
    return {"capacity": int(out["capacity"]), "dropped": int(out["dropped"]),
            "load": [int(v) for v in load], "keep": [[bool(b) for b in row] for row in keep]}


def spec_args(case: Case):
    import torch

    c = case.kwargs
    target, draft = build_draft_pair(c["seed"], c["n_layers"], c["draft_layers"], c["damp"])
    prompt = torch.randint(0, 256, (1, c["prompt_len"]), generator=gen(c["seed"] + 7))
    return (target, draft, prompt, c["n_new"], c["k"]), {}


def encode_tokens(out):
    if not isinstance(out, dict) or "tokens" not in out:
        raise TypeError("speculative_greedy must return a dict with at least the key 'tokens'")
    return encode(out["tokens"])
