"""Lab 3 (KV cache), what only this lab has: the cache reproduces recomputation, the checks reject
broken caches, and the course's decoder with the solution's cache agrees with Hugging Face's Llama
and its own cache. The contract every lab keeps is in tests/content/test_labs_contract.py."""
from __future__ import annotations

import pytest
import torch


LAB = "lab3-kv-cache"


def test_cached_generation_is_well_inside_the_stated_tolerance(solution):
    """The stated tolerance is meaningful: the cache reproduces recomputation far inside it."""
    from coursekit.nn.decoder import DecoderConfig, build_model, greedy_generate

    model = build_model(DecoderConfig(vocab_size=64, d_model=32, n_layers=2, n_heads=4, n_kv_heads=2,
                                      d_ff=64, max_seq_len=64), seed=5)
    prompt = torch.randint(0, 64, (2, 6), generator=torch.Generator().manual_seed(0))
    tokens, logits = solution["generate_with_cache"](model, prompt, 12)
    ref_tokens, ref_logits = greedy_generate(model, prompt, 12, return_logits=True)
    assert torch.equal(tokens, ref_tokens)
    assert (logits - ref_logits).abs().max() < 1e-5


def test_grader_rejects_a_cache_that_forgets_the_position(solution):
    """A classic bug: decoding every step at q_start=0 (so RoPE and the mask are wrong)."""
    from autograder.release.visible_cases import run_visible

    def buggy(model, prompt, n_new):
        cache = solution["KVCache"](len(model.layers))
        logits = solution["forward_with_cache"](model, prompt, cache)[:, -1]
        tokens, out = [], []
        for _ in range(n_new):
            nxt = logits.argmax(-1)
            tokens.append(nxt)
            out.append(logits)
            x = model.embed(nxt[:, None])
            positions = torch.zeros(1, dtype=torch.long)     # wrong: should be cache.length
            for i, layer in enumerate(model.layers):
                q, k, v = layer.self_attn.project_qkv(layer.input_layernorm(x), positions)
                k_all, v_all = cache.append(i, k, v)
                x = x + layer.self_attn.attend(q, k_all, v_all, q_start=cache.length - 1)
                x = x + layer.mlp(layer.post_attention_layernorm(x))
            logits = model.lm_head(model.norm(x))[:, -1]
        return torch.stack(tokens, 1), torch.stack(out, 1)

    with torch.no_grad(), pytest.raises(AssertionError, match="cached greedy generation"):
        run_visible(LAB, "test_generate", buggy)


def test_grader_rejects_allocator_that_reserves_per_token(solution):
    from autograder.release.visible_cases import run_visible

    def one_block_per_append(n_blocks, block_size, ops):
        return [[op[0], n_blocks, 0, 0, True] for op in ops]

    with pytest.raises(AssertionError, match="paged block allocator"):
        run_visible(LAB, "test_allocator", one_block_per_append)


@pytest.mark.slow
def test_course_decoder_and_cache_agree_with_hugging_face_llama(solution):
    """Reference check: our model + the solution's cache vs transformers' Llama + its own cache."""
    from hf_models import hf_llama_with_weights_of

    from coursekit.nn.decoder import DecoderConfig, build_model

    model = build_model(DecoderConfig(vocab_size=101, d_model=64, n_layers=3, n_heads=8, n_kv_heads=2,
                                      d_ff=128, max_seq_len=128), seed=11)
    hf = hf_llama_with_weights_of(model)
    prompt = torch.randint(0, 101, (2, 9), generator=torch.Generator().manual_seed(11))
    with torch.no_grad():
        ours, cache = solution["prefill"](model, prompt)
        out = hf(prompt, use_cache=True)
        torch.testing.assert_close(ours, out.logits, rtol=1e-5, atol=1e-5)
        # one cached decode step on each side, fed the same token
        nxt = ours[:, -1].argmax(-1)
        step_ours = solution["decode_step"](model, nxt, cache)
        step_hf = hf(nxt[:, None], past_key_values=out.past_key_values, use_cache=True).logits[:, -1]
        torch.testing.assert_close(step_ours, step_hf, rtol=1e-5, atol=1e-5)
    tokens, logits = solution["generate_with_cache"](model, prompt, 10)
    theirs = hf.generate(prompt, max_new_tokens=10, min_new_tokens=10, do_sample=False, use_cache=True,
                         attention_mask=torch.ones_like(prompt), pad_token_id=0, output_logits=True,
                         return_dict_in_generate=True)
    assert torch.equal(tokens, theirs.sequences[:, 9:])
    torch.testing.assert_close(logits, torch.stack(theirs.logits, dim=1), rtol=1e-4, atol=1e-4)
