"""The baseline: one request at a time, first come first served, with Lab 3's contiguous KV cache.

This is what a learner has after Module 3: a correct cached decoder, and requests served in turn.
Every later milestone is measured as a throughput ratio to this engine on the same requests.
"""
from __future__ import annotations

import math
from collections import deque
from typing import Sequence

import torch

from .request import Request, StepOutput, check_request


class NaiveEngine:
    def __init__(self, model, block_size: int = 16, record_logits: bool = False):
        self.model = model
        self.block_size = block_size            # only to report memory in the paged engines' unit
        self.record_logits = record_logits
        self.waiting: deque[Request] = deque()
        self.current: Request | None = None
        self._keys: list[torch.Tensor] = []
        self._values: list[torch.Tensor] = []
        self.finished_requests: list[Request] = []
        self._next_id = 0

    def add_request(self, prompt_tokens: Sequence[int], max_new_tokens: int, arrival_time: float = 0.0) -> int:
        cfg = self.model.config
        prompt = check_request(prompt_tokens, max_new_tokens, cfg.vocab_size, cfg.max_seq_len)
        self.waiting.append(Request(self._next_id, prompt, max_new_tokens, arrival_time))
        self._next_id += 1
        return self._next_id - 1

    def has_unfinished(self) -> bool:
        return self.current is not None or bool(self.waiting)

    @property
    def kv_blocks_in_use(self) -> int:
        """A contiguous cache reserves room for the whole request up front (prompt + max_new_tokens):
        the reservation PagedAttention avoids (Kwon et al. 2023, section 3)."""
        if self.current is None:
            return 0
        return math.ceil((len(self.current.prompt) + self.current.max_new_tokens) / self.block_size)

    @torch.no_grad()
    def step(self) -> StepOutput:
        out = StepOutput()
        if self.current is None:
            if not self.waiting:
                return out
            self.current = self.waiting.popleft()
            self._reserve(self.current)
        req = self.current
        todo = req.tokens[req.num_computed:]                   # the whole prompt, then one token
        logits = self._forward(todo, req.num_computed)
        req.num_computed += len(todo)
        token = int(logits.argmax())
        if self.record_logits:
            req.logits.append(logits)
        req.output.append(token)
        out.new_tokens[req.rid] = [token]
        if req.done:
            out.finished.append(req.rid)
            self.finished_requests.append(req)
            self.current = None
        return out

    def _reserve(self, req: Request) -> None:
        cfg, weight = self.model.config, self.model.embed.weight
        shape = (1, cfg.n_kv_heads, len(req.prompt) + req.max_new_tokens, cfg.head_dim)
        self._keys = [weight.new_zeros(shape) for _ in self.model.layers]
        self._values = [weight.new_zeros(shape) for _ in self.model.layers]

    def _forward(self, tokens: list[int], start: int) -> torch.Tensor:
        """Lab 3's forward_with_cache, writing into the reserved cache instead of concatenating."""
        model = self.model
        device = model.embed.weight.device
        end = start + len(tokens)
        positions = torch.arange(start, end, device=device)
        x = model.embed(torch.tensor([tokens], device=device))
        for index, layer in enumerate(model.layers):
            q, k, v = layer.self_attn.project_qkv(layer.input_layernorm(x), positions)
            self._keys[index][:, :, start:end] = k
            self._values[index][:, :, start:end] = v
            x = x + layer.self_attn.attend(q, self._keys[index][:, :, :end], self._values[index][:, :, :end],
                                           q_start=start)
            x = x + layer.mlp(layer.post_attention_layernorm(x))
        return model.lm_head(model.norm(x[:, -1]))[0]
