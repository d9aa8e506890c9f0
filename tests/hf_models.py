"""Hugging Face's own models carrying the course's weights, for the tests that compare the two."""


def hf_llama_with_weights_of(model):
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = model.config
    hf_cfg = LlamaConfig(vocab_size=cfg.vocab_size, hidden_size=cfg.d_model, intermediate_size=cfg.d_ff,
                         num_hidden_layers=cfg.n_layers, num_attention_heads=cfg.n_heads,
                         num_key_value_heads=cfg.n_kv_heads, max_position_embeddings=cfg.max_seq_len,
                         rms_norm_eps=cfg.norm_eps, rope_theta=cfg.rope_theta, tie_word_embeddings=False,
                         attention_bias=False, mlp_bias=False, eos_token_id=None, bos_token_id=None,
                         pad_token_id=None)
    hf_cfg._attn_implementation = "eager"
    hf = LlamaForCausalLM(hf_cfg).eval()
    renamed = {}
    for key, value in model.state_dict().items():
        if key.startswith("lm_head"):
            renamed[key] = value
        else:
            renamed["model." + key.replace("embed.", "embed_tokens.", 1)] = value
    hf.load_state_dict(renamed, strict=True)
    return hf
