"""The block manager: which KV blocks each request holds (its block table), who shares them, and which
full blocks are indexed by their block hash for reuse. It decides; the K/V tensors live in the cache,
and the one tensor operation it needs, copying a block for copy-on-write, is handed in by the engine.

Prefix *sharing* (milestone 3, `prefix_sharing`): a full block is indexed while some request holds it,
and forgotten when the last holder lets go; a later request reuses it only while another still runs.
Prefix *caching* (the optional fifth step, `prefix_cache`): a freed full block stays indexed, its K/V
intact, until the allocator needs room. Then the least recently used block that no request holds is
evicted (its index entry dropped when the allocator hands it out again), so hits happen across time:
a request arriving after the one that wrote the system prompt finished still skips its prefill. vLLM's
automatic prefix caching and SGLang's RadixAttention keep freed blocks the same way.
"""
from __future__ import annotations

import math
from typing import Callable

from ..blocks import BlockAllocator, Entry, PrefixIndex
from ..request import Request


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int, copy_block: Callable[[int, int], None],
                 prefix_sharing: bool = False, prefix_cache: bool = False):
        self.block_size = block_size
        self.allocator = BlockAllocator(num_blocks)
        self.copy_block = copy_block
        self.caching = prefix_cache
        self.index = PrefixIndex(block_size) if prefix_sharing or prefix_cache else None
        self.chains: dict[int, list[Entry | None]] = {}     # rid -> the index entry matching each full block
        self.stats = dict(shared_blocks=0, cow_copies=0, cache_hits=0, evictions=0)

    @property
    def num_used(self) -> int:
        return self.allocator.num_used

    @property
    def num_free(self) -> int:
        return self.allocator.num_free

    def blocks_for(self, positions: int) -> int:
        return math.ceil(positions / self.block_size)

    # ---- admission -------------------------------------------------------------------------------

    def admit(self, req: Request) -> bool:
        """Take the request's indexed prefix blocks; admit it only if the rest of its current tokens fit
        in the free blocks now (plus one for copy-on-write when its last shared block is written). A hit
        on a cached block that nobody holds takes that block out of the free list."""
        tokens, bs = req.tokens, self.block_size
        found = self.index.lookup(tokens) if self.index else []
        computed = min(len(found) * bs, len(tokens) - 1)   # the last token is always run: we need its logits
        cow = int(computed < len(found) * bs)
        revived = sum(self.allocator.is_free(e.block) for e in found)
        if self.blocks_for(len(tokens)) - len(found) + cow + revived > self.allocator.num_free:
            return False
        req.blocks = [self._take(e.block) for e in found]
        self.chains[req.rid] = list(found)
        # The draft catches up lazily (speculative.propose), from position 0: shared blocks may not hold
        # its K/V yet. Its rewrite of them is the same tokens at the same positions, so the same values.
        req.num_computed, req.draft_computed = computed, 0
        self.stats["shared_blocks"] += len(found) - revived
        self.stats["cache_hits"] += revived
        if cow:
            self._copy_on_write(req, len(found) - 1)
        return True

    def _take(self, block: int) -> int:
        return self.allocator.revive(block) if self.allocator.is_free(block) else self.allocator.share(block)

    def _copy_on_write(self, req: Request, index: int) -> None:
        old = req.blocks[index]
        new = self.allocate()
        self.copy_block(old, new)
        req.blocks[index] = new
        self._drop(old)
        self.stats["cow_copies"] += 1

    # ---- growth and release ----------------------------------------------------------------------

    def allocate(self) -> int:
        """A free block (OutOfBlocks when none). A cached block handed out is evicted from the index."""
        block = self.allocator.allocate()
        if self.caching and self.index.forget(block):
            self.stats["evictions"] += 1
        return block

    def trim(self, req: Request) -> None:
        """After verification, give back blocks that only held rejected draft positions."""
        keep = self.blocks_for(req.num_computed)
        while len(req.blocks) > keep:
            self._drop(req.blocks.pop())

    def release(self, req: Request) -> None:
        """Let go of all the request's blocks (finished or preempted). With the cache on, the last block
        goes first, so the least recently used block is a prefix's tail and its head stays findable."""
        for block in reversed(req.blocks) if self.caching else req.blocks:
            self._drop(block)
        req.blocks = []
        self.chains.pop(req.rid, None)

    def _drop(self, block: int) -> None:
        keep = self.caching and block in self.index
        if self.allocator.release(block, keep=keep) and self.index is not None and not keep:
            self.index.forget(block)

    # ---- the index -------------------------------------------------------------------------------

    def index_full_blocks(self, req: Request) -> None:
        """Offer the request's newly computed full blocks to the index, each under its parent's entry."""
        if self.index is None:
            return
        chain = self.chains.setdefault(req.rid, [])
        tokens, bs = req.tokens, self.block_size
        for i in range(len(chain), req.num_computed // bs):
            parent = chain[i - 1] if i else None
            if i and parent is None:
                chain.append(None)    # no indexed parent (a hash collision): nothing after it can be found
                continue
            chain.append(self.index.register(req.blocks[i], parent, tokens[i * bs:(i + 1) * bs]))
