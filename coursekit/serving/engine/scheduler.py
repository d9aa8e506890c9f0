"""The scheduler: who runs this step, and how many tokens each.

Each step it picks, under a token budget, a chunk of work for each running request (Yu et al. 2022,
iteration-level scheduling): one token for a request that is decoding, or k+1 for speculative
verification; the next piece of the prompt for one that is prefilling (Agrawal et al. 2024, chunked
prefill). Then it admits waiting requests first come first served while the KV block budget allows.
When a request needs a block and none is free, the youngest running request is preempted and later
recomputed (Kwon et al. 2023, section 4.5). Blocks themselves are the block manager's business.

Why nobody starves: running requests are kept in arrival order, only younger requests are ever
preempted for an older one, and admission never skips the head of the queue; so the oldest request
always makes progress, and every request becomes the oldest in time.
"""
from __future__ import annotations

import bisect
from collections import deque

from ..blocks import OutOfBlocks
from ..request import Request
from .block_manager import BlockManager

Plan = dict[int, tuple[Request, int]]     # rid -> (request, tokens to run this step)


def decoding(req: Request) -> bool:
    """Prefill done: only the last token (the newest output) is still to run."""
    return req.num_computed == len(req.tokens) - 1


class Scheduler:
    def __init__(self, block_manager: BlockManager, max_running: int = 64, token_budget: int | None = None,
                 speculate_max_batch: int = 8):
        self.block_manager = block_manager
        self.max_running, self.token_budget, self.speculate_max_batch = max_running, token_budget, speculate_max_batch
        self.waiting: deque[Request] = deque()
        self.running: list[Request] = []          # kept in arrival order: the preemption order
        self.preemptions = 0

    def add(self, req: Request) -> None:
        self.waiting.append(req)

    def has_unfinished(self) -> bool:
        return bool(self.waiting or self.running)

    def schedule(self, speculate: int = 0) -> Plan:
        """This step's plan; `speculate`: draft tokens per decoding request, if the batch is small enough."""
        budget = self.token_budget or 1 << 40     # no budget: prompts run whole
        plan: Plan = {}

        def refund(victim: Request):
            nonlocal budget
            if victim.rid in plan:
                budget += plan.pop(victim.rid)[1]

        # decoding requests first, so a long prompt arriving never stalls the tokens already flowing
        decoders = [r for r in self.running if decoding(r)]
        k = speculate if len(decoders) <= self.speculate_max_batch else 0
        for req in decoders:
            if req not in self.running or budget < 1:
                continue
            n = 1 + min(k, req.remaining - 1, int(budget) - 1)
            if not self._grow(req, req.num_computed + n, refund):
                self.preempt(req)
                continue
            plan[req.rid] = (req, n)
            budget -= n
        for req in [r for r in self.running if not decoding(r)]:
            if req not in self.running or budget < 1:
                continue
            n = min(len(req.tokens) - req.num_computed, budget)
            self._grow(req, req.num_computed + n, refund)
            n = min(n, len(req.blocks) * self.block_manager.block_size - req.num_computed)
            if n > 0:
                plan[req.rid] = (req, int(n))
                budget -= n
        while self.waiting and budget >= 1 and len(self.running) < self.max_running:
            req = self.waiting[0]
            if not self.block_manager.admit(req):
                break                                 # never skip the head of the queue
            self.waiting.popleft()
            bisect.insort(self.running, req, key=lambda r: (r.arrival_time, r.rid))
            n = min(len(req.tokens) - req.num_computed, budget)
            self._grow(req, req.num_computed + n, refund)
            plan[req.rid] = (req, int(n))
            budget -= n
        return plan

    def _grow(self, req: Request, positions: int, refund) -> bool:
        """Give req blocks for `positions` positions, preempting younger requests when none are free."""
        while len(req.blocks) < self.block_manager.blocks_for(positions):
            try:
                req.blocks.append(self.block_manager.allocate())
            except OutOfBlocks:
                younger = self.running[-1]
                if younger is req:
                    return False
                refund(younger)
                self.preempt(younger)
        return True

    def preempt(self, req: Request) -> None:
        """Recompute preemption: drop the request's cache and queue it again ahead of later arrivals."""
        self.block_manager.release(req)
        self.running.remove(req)
        req.num_computed = req.draft_computed = 0
        req.preemptions += 1
        self.preemptions += 1
        self.waiting.appendleft(req)

    def finish(self, req: Request) -> None:
        self.block_manager.release(req)
        self.running.remove(req)
