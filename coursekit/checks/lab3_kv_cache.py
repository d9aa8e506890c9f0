"""Lab 3 (KV cache): how a visible or hidden case becomes a model and a prompt, and how the cache
tasks' answers become plain data. Used by the student's visible checks and by the grader alike."""
from __future__ import annotations

from .cases import Case, encode


def model_and_prompt(case: Case):
    import torch

    from coursekit.nn.decoder import DecoderConfig, build_model

    config, seed, batch, prompt_len = case.args[:4]
    model = build_model(DecoderConfig(**config), seed=seed)
    generator = torch.Generator().manual_seed(seed + 1)
    prompt = torch.randint(0, config["vocab_size"], (batch, prompt_len), generator=generator)
    return model, prompt


def prepare_prefill(case: Case):
    return model_and_prompt(case), {}


def prepare_generate(case: Case):
    model, prompt = model_and_prompt(case)
    return (model, prompt, case.args[4]), {}


def encode_prefill(output):
    """(logits, cache) -> plain data; a wrong shape of answer gets a message saying what is expected."""
    try:
        logits, cache = output
        keys, values, length = list(cache.keys), list(cache.values), int(cache.length)
    except (TypeError, ValueError, AttributeError) as error:
        raise TypeError("prefill must return (logits, cache) where cache has .keys and .values "
                        f"(one tensor per layer) and .length ({error})") from None
    return {"logits": encode(logits), "length": length,
            "keys": [encode(k) for k in keys], "values": [encode(v) for v in values]}


def encode_generate(output):
    try:
        tokens, logits = output
    except (TypeError, ValueError) as error:
        raise TypeError(f"generate_with_cache must return (tokens, logits) ({error})") from None
    return {"tokens": encode(tokens), "logits": encode(logits)}
