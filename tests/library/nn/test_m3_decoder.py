"""TinyDecoder (coursekit/nn/decoder.py): shapes, determinism, causality, and agreement with
Hugging Face's Llama built offline from a config with the same random weights."""
import pytest
import torch

from coursekit.nn.decoder import DecoderConfig, build_model, greedy_generate
from hf_models import hf_llama_with_weights_of

pytestmark = pytest.mark.float_sensitive   # run again under other kernels and threads (test_portable_floats.py)

SMALL = DecoderConfig(vocab_size=97, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, d_ff=96, max_seq_len=64)


def test_shapes_and_determinism():
    a, b = build_model(SMALL, seed=3), build_model(SMALL, seed=3)
    tokens = torch.randint(0, 97, (2, 7), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        la, lb = a(tokens), b(tokens)
    assert la.shape == (2, 7, 97)
    assert torch.equal(la, lb)
    assert not a.training
    c = build_model(SMALL, seed=4)
    with torch.no_grad():
        assert not torch.allclose(c(tokens), la)


def test_causal_future_tokens_do_not_change_the_past():
    model = build_model(SMALL, seed=0)
    tokens = torch.randint(0, 97, (1, 12), generator=torch.Generator().manual_seed(1))
    changed = tokens.clone()
    changed[0, 8:] = (changed[0, 8:] + 1) % 97
    with torch.no_grad():
        torch.testing.assert_close(model(tokens)[:, :8], model(changed)[:, :8])
        assert not torch.allclose(model(tokens)[:, 8:], model(changed)[:, 8:])


def test_pieces_compose_to_forward():
    """The public per-layer pieces reproduce forward(): what students build the cache from."""
    model = build_model(SMALL, seed=2)
    tokens = torch.randint(0, 97, (2, 9), generator=torch.Generator().manual_seed(2))
    positions = torch.arange(9)
    with torch.no_grad():
        x = model.embed(tokens)
        for layer in model.layers:
            q, k, v = layer.self_attn.project_qkv(layer.input_layernorm(x), positions)
            assert k.shape == (2, SMALL.n_kv_heads, 9, SMALL.head_dim)
            x = x + layer.self_attn.attend(q, k, v, q_start=0)
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        torch.testing.assert_close(model.lm_head(model.norm(x)), model(tokens))


def test_greedy_generate_matches_argmax_of_forward():
    model = build_model(SMALL, seed=5)
    prompt = torch.randint(0, 97, (1, 5), generator=torch.Generator().manual_seed(5))
    new, logits = greedy_generate(model, prompt, 4, return_logits=True)
    assert new.shape == (1, 4) and logits.shape == (1, 4, 97)
    with torch.no_grad():
        full = model(torch.cat([prompt, new], dim=1))
    torch.testing.assert_close(full[:, 4:8], logits)
    assert torch.equal(full[:, 4:8].argmax(-1), new)


def test_bad_config_names_the_file():
    with pytest.raises(ValueError, match="decoder.py.*n_kv_heads"):
        DecoderConfig(n_heads=4, n_kv_heads=3)


@pytest.mark.slow
def test_agrees_with_hugging_face_llama():
    model = build_model(SMALL, seed=7)
    hf = hf_llama_with_weights_of(model)
    tokens = torch.randint(0, 97, (2, 10), generator=torch.Generator().manual_seed(7))
    with torch.no_grad():
        torch.testing.assert_close(model(tokens), hf(tokens).logits, rtol=1e-5, atol=1e-5)
    ours = greedy_generate(model, tokens, 8)
    theirs = hf.generate(tokens, max_new_tokens=8, min_new_tokens=8, do_sample=False,
                         attention_mask=torch.ones_like(tokens), pad_token_id=0)[:, 10:]
    assert torch.equal(ours, theirs)
