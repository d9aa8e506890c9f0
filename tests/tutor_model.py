"""A tiny language model the tests build themselves (random weights, nothing downloaded), served by a
real OpenAI-compatible server: Hugging Face's `transformers serve` (FastAPI + uvicorn, from the
`transformers[serving]` wheels the test extra installs), run offline on the CPU.

`build_model(folder, says=None)`: a 2-layer Llama with random weights and a byte-level BPE tokenizer
trained here on a few course words, with a chat template. With `says`, its generation config carries a
sequence bias that makes greedy decoding spell out exactly that text whatever the prompt (each prefix of
the reply biases its next token by more than all shorter prefixes together): a model that, for
instance, answers with a solution's code, so the tests can watch the tutor's reply guard on a real stream.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from conftest import free_port
from waiting import wait_for

CHAT_TEMPLATE = ("{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>\n{% endfor %}"
                 "{% if add_generation_prompt %}<s>assistant: {% endif %}")
CORPUS = ["the tutor asks which case fails and what your function returns", "roofline bandwidth FLOP/s bytes",
          "KV cache tokens per second ridge point", "def return import print"]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}


def build_model(folder: Path, says: str | None = None) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=600, special_tokens=["<s>", "</s>", "<pad>"], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator((CORPUS + [says or ""]) * 20, trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>")
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(folder)
    torch.manual_seed(29)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=16384,
                         bos_token_id=0, eos_token_id=1, pad_token_id=2)
    LlamaForCausalLM(config).save_pretrained(folder)
    generation = GenerationConfig(do_sample=False, bos_token_id=0, eos_token_id=1, pad_token_id=2)
    if says:
        ids = tokenizer.encode(says, add_special_tokens=False) + [tokenizer.eos_token_id]
        assert tokenizer.decode(ids[:-1]) == says, "the tokenizer must spell the reply back exactly"
        assert len(ids) < 120, "float32 logits hold a bias of 2**k only for k < 127"
        generation.sequence_bias = [[ids[:k + 1], float(2 ** (k + 8))] for k in range(len(ids))]
    generation.save_pretrained(folder)
    return folder


@contextlib.contextmanager
def model_server(log: Path):
    """`transformers serve` on a free port, offline; yields its base URL (append /v1 for the API).
    Models are named by their folder's path in each request and loaded on first use."""
    port = free_port()
    env = dict(os.environ, **OFFLINE, OMP_NUM_THREADS="1")
    command = [str(Path(sys.executable).parent / "transformers"), "serve", "--host", "127.0.0.1",
               "--port", str(port), "--device", "cpu", "--log-level", "warning"]
    with open(log, "w") as handle:
        process = subprocess.Popen(command, env=env, stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"transformers serve exited; log:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    try:
        wait_for(up, 120, "transformers serve to answer /health")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
