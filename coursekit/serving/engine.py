"""The course's reference engine: one class, switched milestone by milestone (docs/SERVING.md).

Each step the scheduler picks, under a token budget, a chunk of work for each running request
(Yu et al. 2022, iteration-level scheduling): one token for a request that is decoding, or k+1 for
speculative verification; the next piece of the prompt for one that is prefilling (Agrawal et al.
2024, chunked prefill). Then it admits waiting requests first come first served while the KV block
budget allows. When a decoding request needs a block and none is free, the youngest running request is
preempted and later recomputed (Kwon et al. 2023, section 4.5). Prompts that begin with the same
full blocks share them, with reference counts and copy-on-write.

Why nobody starves: running requests are kept in arrival order, only younger requests are ever
preempted for an older one, and admission never skips the head of the queue; so the oldest request
always makes progress, and every request becomes the oldest in time.
"""
from __future__ import annotations

import bisect
import math
from collections import deque
from dataclasses import dataclass
from typing import Sequence

import torch

from .blocks import BlockAllocator, OutOfBlocks, PrefixIndex
from .paged import Chunk, PagedKVCache, forward_packed
from .request import Request, StepOutput, check_request
from .speculative import accept, propose


@dataclass(frozen=True)
class EngineConfig:
    num_blocks: int = 256            # the KV budget, in blocks
    block_size: int = 16
    max_running: int = 64            # 1: one request at a time (milestone 1)
    token_budget: int | None = None  # tokens per step; None: a prompt is prefilled whole (no chunking)
    prefix_sharing: bool = False
    speculate: int = 0               # draft tokens proposed per decoding request per step
    # Speculate only while the decoding batch is small: a big batch already fills the chip, and
    # verifying k+1 tokens per request then costs more than the draft saves (production engines have
    # the same switch, e.g. vLLM's option to disable speculation above a batch size).
    speculate_max_batch: int = 8
    record_logits: bool = False      # keep the logits row behind each output token (for the checks)


MILESTONES = {
    1: dict(max_running=1),
    2: dict(),
    3: dict(token_budget=256, prefix_sharing=True),
    4: dict(token_budget=256, prefix_sharing=True, speculate=3),
}


def milestone_engine(milestone: int, model, draft=None, **overrides) -> "ServingEngine":
    """The reference engine as it stands at the end of a milestone (overrides: EngineConfig fields)."""
    return ServingEngine(model, EngineConfig(**{**MILESTONES[milestone], **overrides}), draft=draft)


class ServingEngine:
    def __init__(self, model, config: EngineConfig = EngineConfig(), draft=None):
        if config.speculate and draft is None:
            raise ValueError("speculative decoding needs a draft model (coursekit.nn.draft.build_draft_pair)")
        self.model, self.draft, self.config = model, draft, config
        self.allocator = BlockAllocator(config.num_blocks)
        self.cache = PagedKVCache.for_model(model, config.num_blocks, config.block_size)
        # the draft's keys and values live at the same positions, so they use the same block tables
        self.draft_cache = PagedKVCache.for_model(draft, config.num_blocks, config.block_size) if config.speculate else None
        self.index = PrefixIndex(config.block_size) if config.prefix_sharing else None
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []          # kept in arrival order: the preemption order
        self.finished_requests: list[Request] = []
        self.stats = dict(steps=0, preemptions=0, shared_blocks=0, cow_copies=0, proposed=0, accepted=0, rounds=0)
        self._next_id = 0

    # ---- the interface -------------------------------------------------------------------------

    def add_request(self, prompt_tokens: Sequence[int], max_new_tokens: int, arrival_time: float = 0.0) -> int:
        cfg = self.model.config
        prompt = check_request(prompt_tokens, max_new_tokens, cfg.vocab_size, cfg.max_seq_len)
        need = self._blocks_for(len(prompt) + max_new_tokens + self.config.speculate)
        if need > self.config.num_blocks:
            raise ValueError(f"this request needs {need} KV blocks and the engine has {self.config.num_blocks}")
        self.waiting.append(Request(self._next_id, prompt, max_new_tokens, arrival_time))
        self._next_id += 1
        return self._next_id - 1

    def has_unfinished(self) -> bool:
        return bool(self.waiting or self.running)

    @property
    def kv_blocks_in_use(self) -> int:
        return self.allocator.num_used

    @torch.no_grad()
    def step(self) -> StepOutput:
        self.stats["steps"] += 1
        plan = self._schedule()
        out = StepOutput()
        spec = [(req, n) for req, n in plan.values() if self.config.speculate and n > 1 and self._decoding(req)]
        drafts = {}
        if spec:
            proposals = propose(self.draft, self.draft_cache, [r for r, _ in spec], [n - 1 for _, n in spec])
            drafts = {req.rid: p for (req, _), p in zip(spec, proposals)}
        chunks, reqs = [], []
        for req, n in plan.values():
            start = req.num_computed
            if req.rid in drafts:
                chunks.append(Chunk(req.tokens[start:] + drafts[req.rid], start, req.blocks, logits=n))
            else:
                ends = start + n == len(req.tokens)
                chunks.append(Chunk(req.tokens[start:start + n], start, req.blocks, logits=int(ends)))
            reqs.append(req)
        for req, chunk, logits in zip(reqs, chunks, forward_packed(self.model, self.cache, chunks)):
            if req.rid in drafts:
                new, accepted = accept(drafts[req.rid], logits)
                self.stats["proposed"] += len(drafts[req.rid])
                self.stats["accepted"] += accepted
                self.stats["rounds"] += 1
                req.num_computed += accepted + 1
                req.draft_computed = min(chunk.start + len(drafts[req.rid]), req.num_computed)
                self._trim(req)
                rows = logits[:len(new)]
            else:
                req.num_computed += len(chunk.tokens)
                new = [int(logits[-1].argmax())] if chunk.logits else []
                rows = logits
            if not new:
                self._index_full_blocks(req)
                continue
            req.output += new
            if self.config.record_logits:
                req.logits += list(rows)
            out.new_tokens[req.rid] = new
            self._index_full_blocks(req)
            if req.done:
                out.finished.append(req.rid)
                self._finish(req)
        return out

    # ---- scheduling ----------------------------------------------------------------------------

    def _schedule(self) -> dict[int, tuple[Request, int]]:
        budget = self.config.token_budget or 1 << 40     # no budget: prompts run whole
        plan: dict[int, tuple[Request, int]] = {}

        def refund(victim: Request):
            nonlocal budget
            if victim.rid in plan:
                budget += plan.pop(victim.rid)[1]

        # decoding requests first, so a long prompt arriving never stalls the tokens already flowing
        decoding = [r for r in self.running if self._decoding(r)]
        k = self.config.speculate if len(decoding) <= self.config.speculate_max_batch and self._speculation_pays() else 0
        for req in decoding:
            if req not in self.running or budget < 1:
                continue
            n = 1 + min(k, req.remaining - 1, int(budget) - 1)
            if not self._grow(req, req.num_computed + n, refund):
                self._preempt(req)
                continue
            plan[req.rid] = (req, n)
            budget -= n
        for req in [r for r in self.running if not self._decoding(r)]:
            if req not in self.running or budget < 1:
                continue
            n = min(len(req.tokens) - req.num_computed, budget)
            self._grow(req, req.num_computed + n, refund)
            n = min(n, len(req.blocks) * self.config.block_size - req.num_computed)
            if n > 0:
                plan[req.rid] = (req, int(n))
                budget -= n
        while self.waiting and budget >= 1 and len(self.running) < self.config.max_running:
            req = self.waiting[0]
            if not self._admit(req):
                break                                 # never skip the head of the queue
            self.waiting.popleft()
            bisect.insort(self.running, req, key=lambda r: (r.arrival_time, r.rid))
            n = min(len(req.tokens) - req.num_computed, budget)
            self._grow(req, req.num_computed + n, refund)
            plan[req.rid] = (req, int(n))
            budget -= n
        return plan

    def _speculation_pays(self) -> bool:
        """Whether drafting gains throughput: target tokens per verification (1 + accepted / rounds,
        measured so far) against the work of one round, k draft steps at c each plus the target's one
        (c: the draft's share of the target's layers), as in Leviathan et al. 2023's speed-up analysis.
        The course's early-exit draft costs half the target (c = 0.5), where speculation rarely pays
        (Lab 5); the engine then stops drafting rather than lose throughput. The first 16 rounds are
        always drafted, to measure."""
        rounds = self.stats["rounds"]
        if rounds < 16:
            return True
        c = len(self.draft.layers) / len(self.model.layers)
        return 1 + self.stats["accepted"] / rounds > self.config.speculate * c + 1

    def _admit(self, req: Request) -> bool:
        """Take the request's shared prefix blocks; admit it only if the rest of its current tokens
        fit in the free blocks now (plus one for copy-on-write when its last shared block is written)."""
        tokens, bs = req.tokens, self.config.block_size
        shared = self.index.lookup(tokens) if self.index else []
        computed = min(len(shared) * bs, len(tokens) - 1)   # the last token is always run: we need its logits
        cow = int(computed < len(shared) * bs)
        if self._blocks_for(len(tokens)) - len(shared) + cow > self.allocator.num_free:
            return False
        req.blocks = [self.allocator.share(b) for b in shared]
        # The draft catches up lazily (speculative.propose), from position 0: shared blocks may not hold
        # its K/V yet. Its rewrite of them is the same tokens at the same positions, so the same values.
        req.num_computed, req.draft_computed = computed, 0
        self.stats["shared_blocks"] += len(shared)
        if cow:
            self._copy_on_write(req, len(shared) - 1)
        return True

    def _grow(self, req: Request, positions: int, refund) -> bool:
        """Give req blocks for `positions` positions, preempting younger requests when none are free."""
        while len(req.blocks) < self._blocks_for(positions):
            try:
                req.blocks.append(self.allocator.allocate())
            except OutOfBlocks:
                younger = self.running[-1]
                if younger is req:
                    return False
                refund(younger)
                self._preempt(younger)
        return True

    def _preempt(self, req: Request) -> None:
        """Recompute preemption: drop the request's cache and queue it again ahead of later arrivals."""
        self._release(req)
        self.running.remove(req)
        req.num_computed = req.draft_computed = req.indexed_blocks = 0
        req.preemptions += 1
        self.stats["preemptions"] += 1
        self.waiting.appendleft(req)

    # ---- blocks --------------------------------------------------------------------------------

    def _blocks_for(self, positions: int) -> int:
        return math.ceil(positions / self.config.block_size)

    def _copy_on_write(self, req: Request, index: int) -> None:
        old = req.blocks[index]
        new = self.allocator.allocate()
        self.cache.copy_block(old, new)
        if self.draft_cache is not None:
            self.draft_cache.copy_block(old, new)
        req.blocks[index] = new
        self._drop(old)
        self.stats["cow_copies"] += 1

    def _index_full_blocks(self, req: Request) -> None:
        if self.index is None:
            return
        full = req.num_computed // self.config.block_size
        for i in range(req.indexed_blocks, full):
            self.index.register(req.tokens, i, req.blocks[i])
        req.indexed_blocks = max(req.indexed_blocks, full)

    def _trim(self, req: Request) -> None:
        """After verification, give back blocks that only held rejected draft positions."""
        keep = self._blocks_for(req.num_computed)
        while len(req.blocks) > keep:
            self._drop(req.blocks.pop())

    def _drop(self, block: int) -> None:
        if self.allocator.release(block) and self.index is not None:
            self.index.forget(block)

    def _release(self, req: Request) -> None:
        for block in req.blocks:
            self._drop(block)
        req.blocks = []

    def _finish(self, req: Request) -> None:
        self._release(req)
        self.running.remove(req)
        self.finished_requests.append(req)

    def _decoding(self, req: Request) -> bool:
        return req.num_computed == len(req.tokens) - 1
