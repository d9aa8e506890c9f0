"""Paged KV cache bookkeeping: a block allocator with reference counts, and a prefix index.

A block holds the keys and values of `block_size` consecutive positions of one sequence (Kwon et al.
2023, PagedAttention). A request's block table lists its blocks in position order; blocks are shared
between requests whose prompts start with the same full blocks, so each block counts its holders and
returns to the free list only when the last one lets go.
"""
from __future__ import annotations


class OutOfBlocks(RuntimeError):
    """No free block: the scheduler must preempt someone (or not admit)."""


class BlockAllocator:
    def __init__(self, num_blocks: int):
        self.num_blocks = num_blocks
        self.refcount = [0] * num_blocks
        # LIFO free list: a just-freed block is reused first, so tests see reuse early
        self._free = list(range(num_blocks - 1, -1, -1))
        self.peak_used = 0

    @property
    def num_free(self) -> int:
        return len(self._free)

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self._free)

    def allocate(self) -> int:
        if not self._free:
            raise OutOfBlocks("no free KV block")
        block = self._free.pop()
        self.refcount[block] = 1
        self.peak_used = max(self.peak_used, self.num_used)
        return block

    def share(self, block: int) -> int:
        if self.refcount[block] <= 0:
            raise ValueError(f"block {block} is free; only a live block can be shared")
        self.refcount[block] += 1
        return block

    def release(self, block: int) -> bool:
        """Drop one holder; True when the block went back to the free list."""
        if self.refcount[block] <= 0:
            raise ValueError(f"block {block} released more often than held")
        self.refcount[block] -= 1
        if self.refcount[block] == 0:
            self._free.append(block)
            return True
        return False


class PrefixIndex:
    """Live full blocks by the exact token prefix they end: (tokens[0:(i+1)*B]) -> block id.

    The key is the whole prefix, not the block's own tokens, because a block's keys and values depend on
    every earlier token. Only live blocks are indexed (an entry goes when its block is freed); keeping
    freed blocks as an evictable cache, as vLLM and SGLang do, is a later milestone's refinement.
    """

    def __init__(self, block_size: int):
        self.block_size = block_size
        self._by_prefix: dict[tuple[int, ...], int] = {}
        self._prefix_of: dict[int, tuple[int, ...]] = {}

    def lookup(self, tokens: list[int]) -> list[int]:
        """Blocks for the longest run of full leading blocks of `tokens` that are live here."""
        found = []
        for end in range(self.block_size, len(tokens) + 1, self.block_size):
            block = self._by_prefix.get(tuple(tokens[:end]))
            if block is None:
                break
            found.append(block)
        return found

    def register(self, tokens: list[int], index: int, block: int) -> None:
        key = tuple(tokens[:(index + 1) * self.block_size])
        if key not in self._by_prefix and block not in self._prefix_of:
            self._by_prefix[key] = block
            self._prefix_of[block] = key

    def forget(self, block: int) -> None:
        key = self._prefix_of.pop(block, None)
        if key is not None:
            del self._by_prefix[key]

    def __contains__(self, block: int) -> bool:
        return block in self._prefix_of
