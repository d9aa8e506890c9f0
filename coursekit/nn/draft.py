"""A target decoder and an early-exit draft of it, for speculative decoding (Lab 5)."""
from __future__ import annotations

import copy


def build_draft_pair(seed: int, n_layers: int = 4, draft_layers: int = 2, damp: float = 0.3,
                     vocab_size: int = 256, d_model: int = 128):
    """A target decoder whose upper layers only refine the residual stream (their output projections
    are scaled by `damp`) and a draft that is the target's first `draft_layers` layers, so the two
    agree often, as a trained early-exit draft does (Elhoushi et al. 2024, LayerSkip)."""
    import torch

    from coursekit.nn.decoder import DecoderConfig, build_model

    target = build_model(DecoderConfig(vocab_size=vocab_size, d_model=d_model, n_layers=n_layers), seed=seed)
    with torch.no_grad():
        for layer in target.layers[draft_layers:]:
            layer.self_attn.o_proj.weight.mul_(damp)
            layer.mlp.down_proj.weight.mul_(damp)
    draft = copy.deepcopy(target)
    draft.layers = draft.layers[:draft_layers]
    return target, draft
