"""Lab 3 (KV cache): what each graded task is checked against.

The cache tasks are judged against the model itself, not against another cache: prefill against
the model's own per-layer K/V projections, and cached generation against full recomputation
(`coursekit.nn.decoder.greedy_generate`). Tokens must match exactly; logits within LOGIT_TOL.
The sizing, allocator and fragmentation tasks use the solution notebook as the reference.
"""
from __future__ import annotations

import random

from autograder.spec import DEFAULT_FORBIDDEN, Case, LabSpec, Task, approx, encode
from coursekit.checks.lab3_kv_cache import (encode_generate, encode_prefill, greedy_match, prepare_generate,
                                            prepare_prefill)
from coursekit.calc import kvcache
from coursekit.model_configs import LLAMA2_70B

LAB = "lab3-kv-cache"
LOGIT_TOL = 1e-4      # float32 cached vs recomputed logits differ by ~1e-6; 1e-4 leaves headroom


# ---- task 1: KV bytes -------------------------------------------------------------------------

def _kv_expected(n_layers, n_heads, n_kv_heads, head_dim, bytes_per_elem, seq_len):
    per_token = kvcache.kv_bytes_per_token(n_layers, n_kv_heads, head_dim, bytes_per_elem)
    per_token_mha = kvcache.kv_bytes_per_token(n_layers, n_heads, head_dim, bytes_per_elem)
    return {"per_token": per_token, "per_session": per_token * seq_len,
            "per_token_mha": per_token_mha, "per_session_mha": per_token_mha * seq_len}


def _kv_case(name, args, hint=""):
    return Case(name, args=args, expected=encode(_kv_expected(*args)), hint=hint)


def _kv_hidden(rng: random.Random) -> Case:
    n_kv = rng.choice([1, 2, 4, 8, 16])
    args = (rng.randint(1, 128), n_kv * rng.choice([1, 2, 4, 8]), n_kv, rng.choice([64, 80, 96, 128, 256]),
            rng.choice([0.5, 1, 2, 4]), rng.randint(1, 262144))
    return Case("random model shape and context", args=args)


# ---- tasks 2 and 3: the cache ------------------------------------------------------------------


def prefill_reference(model, prompt):
    """Logits of the full forward pass and each layer's K (after RoPE) and V for every prompt position."""
    import torch

    class _Cache:  # the trusted side only needs the three attributes the encoder reads
        pass

    cache = _Cache()
    cache.keys, cache.values = [], []
    positions = torch.arange(prompt.shape[1])
    with torch.no_grad():
        x = model.embed(prompt)
        for layer in model.layers:
            q, k, v = layer.self_attn.project_qkv(layer.input_layernorm(x), positions)
            cache.keys.append(k)
            cache.values.append(v)
            x = x + layer.self_attn.attend(q, k, v, q_start=0)
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        logits = model.lm_head(model.norm(x))
    cache.length = prompt.shape[1]
    return logits, cache



def generate_reference(model, prompt, n_new):
    """Full recomputation: the answer a correct cache must reproduce."""
    from coursekit.nn.decoder import greedy_generate

    return greedy_generate(model, prompt, n_new, return_logits=True)


def _random_config(rng: random.Random) -> dict:
    n_kv = rng.choice([1, 2])
    n_heads = n_kv * rng.choice([1, 2, 4])
    head_dim = rng.choice([8, 16])
    return {"vocab_size": rng.randint(40, 120), "d_model": n_heads * head_dim, "n_layers": rng.randint(1, 3),
            "n_heads": n_heads, "n_kv_heads": n_kv, "d_ff": rng.choice([32, 64, 96]), "max_seq_len": 64}


def _prefill_hidden(rng: random.Random) -> Case:
    return Case("random small model and prompt",
                args=(_random_config(rng), rng.randrange(2**20), rng.randint(1, 3), rng.randint(1, 12)))


def _generate_hidden(rng: random.Random) -> Case:
    return Case("random small model, prompt and length",
                args=(_random_config(rng), rng.randrange(2**20), rng.randint(1, 2), rng.randint(1, 10),
                      rng.randint(1, 12)))


GQA = {"vocab_size": 64, "d_model": 32, "n_layers": 2, "n_heads": 4, "n_kv_heads": 2, "d_ff": 64, "max_seq_len": 64}
MHA = dict(GQA, n_kv_heads=4)
MQA = dict(GQA, n_kv_heads=1, n_layers=3)


# ---- task 4: paged allocator -------------------------------------------------------------------

ALLOC_BASIC = (8, 4, [["alloc", "a"], ["append", "a", 3], ["append", "a", 1], ["append", "a", 1],
                      ["alloc", "b"], ["append", "b", 9], ["free", "a"], ["append", "b", 1]])
# Columns per op: [op or "out_of_memory", free blocks after, tokens of that request, its blocks, tables valid]
ALLOC_BASIC_EXPECTED = [["alloc", 8, 0, 0, True], ["append", 7, 3, 1, True], ["append", 7, 4, 1, True],
                        ["append", 6, 5, 2, True], ["alloc", 6, 0, 0, True], ["append", 3, 9, 3, True],
                        ["free", 5, 0, 0, True], ["append", 5, 10, 3, True]]
ALLOC_OOM = (3, 2, [["alloc", "x"], ["append", "x", 4], ["alloc", "y"], ["append", "y", 3], ["append", "y", 2],
                    ["free", "x"], ["append", "y", 3]])
ALLOC_OOM_EXPECTED = [["alloc", 3, 0, 0, True], ["append", 1, 4, 2, True], ["alloc", 1, 0, 0, True],
                      ["out_of_memory", 1, 0, 0, True], ["append", 0, 2, 1, True], ["free", 2, 0, 0, True],
                      ["append", 0, 5, 3, True]]


def _alloc_hidden(rng: random.Random) -> Case:
    n_blocks, block_size = rng.randint(2, 24), rng.choice([1, 2, 4, 8, 16])
    live, ops, next_id = [], [], 0
    for _ in range(rng.randint(5, 30)):
        roll = rng.random()
        if not live or roll < 0.25:
            rid = f"r{next_id}"
            next_id += 1
            live.append(rid)
            ops.append(["alloc", rid])
        elif roll < 0.85:
            ops.append(["append", rng.choice(live), rng.randint(1, 3 * block_size)])
        else:
            rid = live.pop(rng.randrange(len(live)))
            ops.append(["free", rid])
    return Case("random alloc/append/free sequence", args=(n_blocks, block_size, ops))


# ---- task 5: fragmentation ---------------------------------------------------------------------

def _frag_expected(lengths, block_size, reserve_len):
    summary = kvcache.fragmentation_summary(lengths, block_size, reserve_len)
    return {"paged_waste_frac": summary["paged_waste_frac"], "contiguous_waste_frac": summary["contiguous_waste_frac"]}


def _frag_case(name, args, hint=""):
    return Case(name, args=args, expected=encode(_frag_expected(*args)), hint=hint)


def _frag_hidden(rng: random.Random) -> Case:
    reserve = rng.choice([256, 1024, 2048, 4096])
    lengths = [rng.randint(1, reserve) for _ in range(rng.randint(1, 40))]
    return Case("random request lengths", args=(lengths, rng.choice([1, 8, 16, 32]), reserve))


# Prefill and cached generation are built from the layer's pieces (project_qkv, attend, the MLP and
# norms); a whole layer's or the model's own forward would answer them without a cache.
WHOLE_LAYERS = DEFAULT_FORBIDDEN + ("coursekit.nn.decoder.TinyDecoder.forward",
                                    "coursekit.nn.decoder.DecoderLayer.forward",
                                    "coursekit.nn.decoder.Attention.forward")


SPEC = LabSpec(
    lab_id=LAB,
    notebook=f"{LAB}.ipynb",
    tasks=(
        Task("test_kv_size", "Task (KV bytes)", 2, "kv_cache_size",
             visible=(
                 _kv_case("tiny: 2 layers, 4 query heads, 2 KV heads, head 8, FP16, 16 tokens", (2, 4, 2, 8, 2, 16),
                          hint="per token = 2 (K and V) x layers x KV heads x head size x bytes; "
                               "the _mha variants use one KV head per query head"),
                 _kv_case("Llama 2 70B, BF16, 4,096 tokens",
                          (LLAMA2_70B.n_layers, LLAMA2_70B.n_heads, LLAMA2_70B.n_kv_heads, LLAMA2_70B.head_dim, 2, 4096),
                          hint="Llama 2 70B has 80 layers, 64 query heads but only 8 KV heads (GQA)"),
             ),
             hidden=_kv_hidden, n_hidden=6),
        Task("test_prefill", "Task (prefill fills the cache)", 3, "prefill",
             visible=(
                 Case("GQA model, batch 1, 5-token prompt", args=(GQA, 11, 1, 5),
                      hint="store each layer's k and v exactly as project_qkv returns them (RoPE applied), "
                           "shape [batch, KV heads, tokens, head size]"),
                 Case("multi-head model, batch 2, 7 tokens", args=(MHA, 12, 2, 7),
                      hint="logits must equal model(prompt): prefill is an ordinary causal forward pass"),
             ),
             hidden=_prefill_hidden, n_hidden=4, prepare=prepare_prefill, encode=encode_prefill,
             reference=prefill_reference, compare=approx(rel=LOGIT_TOL, abs_=LOGIT_TOL), forbidden=WHOLE_LAYERS,
             float64_expected=True),
        Task("test_generate", "Task (cached greedy generation)", 4, "generate_with_cache",
             visible=(
                 Case("GQA model, 6-token prompt, 8 new tokens", args=(GQA, 21, 1, 6, 8),
                      hint="each decode step feeds ONE token at position cache.length and attends over the "
                           "whole cache; q_start must be that position, or the causal mask hides keys"),
                 Case("multi-query model, batch 2, 1-token prompt, 10 new tokens", args=(MQA, 22, 2, 1, 10),
                      hint="with one KV head every query head reads the same cached K and V"),
             ),
             hidden=_generate_hidden, n_hidden=4, prepare=prepare_generate, encode=encode_generate,
             reference=generate_reference, compare=greedy_match(rel=LOGIT_TOL, abs_=LOGIT_TOL), forbidden=WHOLE_LAYERS,
             float64_expected=True),
        Task("test_allocator", "Task (paged block allocator)", 3, "replay_allocator",
             visible=(
                 Case("blocks of 4: grow, share the pool, free", args=ALLOC_BASIC, expected=ALLOC_BASIC_EXPECTED,
                      hint="a new block is taken only when the last block is full: ceil(tokens / block_size) blocks"),
                 Case("running out of blocks", args=ALLOC_OOM, expected=ALLOC_OOM_EXPECTED,
                      hint="an append that needs more blocks than are free raises MemoryError and changes nothing"),
             ),
             hidden=_alloc_hidden, n_hidden=6),
        Task("test_fragmentation", "Task (fragmentation)", 2, "fragmentation",
             visible=(
                 _frag_case("three requests, blocks of 16, reserve 2,048", ([100, 1000, 2048], 16, 2048),
                            hint="waste fraction = (allocated - used) / allocated, for each scheme"),
                 _frag_case("short chat answers, blocks of 32, reserve 4,096", ([37, 120, 64, 5, 300], 32, 4096)),
             ),
             hidden=_frag_hidden, n_hidden=6),
    ),
)
