"""Paged KV cache bookkeeping: a block allocator with reference counts, and a prefix index keyed by block hash.

A block holds the keys and values of `block_size` consecutive positions of one sequence (Kwon et al.
2023, PagedAttention). A request's block table lists its blocks in position order; blocks are shared
between requests whose prompts start with the same full blocks, so each block counts its holders and
returns to the free list only when the last one lets go. `block_manager.py` puts the two together.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Sequence

ROOT_HASH = 0      # the "parent hash" of a sequence's first block


class OutOfBlocks(RuntimeError):
    """No free block: the scheduler must preempt someone (or not admit)."""


class BlockAllocator:
    """Free blocks in hand-out order: `allocate` takes the last. A block released plainly goes to the end
    (LIFO: a just-freed block is reused first, so tests see reuse early); one released with `keep=True`
    still holds cached keys and values and goes to the front, so the free blocks handed out first are the
    empty ones, then the cached ones least recently used first (the prefix cache's eviction order)."""

    def __init__(self, num_blocks: int):
        self.num_blocks = num_blocks
        self.refcount = [0] * num_blocks
        self._free: OrderedDict[int, None] = OrderedDict.fromkeys(range(num_blocks - 1, -1, -1))
        self.peak_used = 0

    @property
    def num_free(self) -> int:
        return len(self._free)

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self._free)

    def is_free(self, block: int) -> bool:
        return self.refcount[block] == 0

    def allocate(self) -> int:
        if not self._free:
            raise OutOfBlocks("no free KV block")
        block, _ = self._free.popitem()
        return self._hold(block)

    def revive(self, block: int) -> int:
        """Hold a free block again, by id: a prefix-cache hit on a block no request holds."""
        if block not in self._free:
            raise ValueError(f"block {block} is not free")
        del self._free[block]
        return self._hold(block)

    def share(self, block: int) -> int:
        if self.refcount[block] <= 0:
            raise ValueError(f"block {block} is free; only a live block can be shared")
        self.refcount[block] += 1
        return block

    def release(self, block: int, keep: bool = False) -> bool:
        """Drop one holder; True when the block went back to the free list."""
        if self.refcount[block] <= 0:
            raise ValueError(f"block {block} released more often than held")
        self.refcount[block] -= 1
        if self.refcount[block] > 0:
            return False
        self._free[block] = None
        if keep:
            self._free.move_to_end(block, last=False)
        return True

    def _hold(self, block: int) -> int:
        self.refcount[block] = 1
        self.peak_used = max(self.peak_used, self.num_used)
        return block


def block_hash(parent_hash: int, tokens: Sequence[int]) -> int:
    """The key of a full block: its parent's key and its own tokens.

    A block's keys and values depend on every earlier token, not only its own, so the key must name the
    whole prefix. Chaining names it in O(block_size) per block (the parent's key stands for all earlier
    tokens), where a whole-prefix tuple costs O(prefix) per block, O(prompt^2 / block_size) per prompt. vLLM keys
    its prefix cache the same way; it uses SHA-256, we use Python's 64-bit tuple hash and check tokens
    on every hit (`PrefixIndex.lookup`), so a collision costs a miss, never a wrong block."""
    return hash((parent_hash, tuple(tokens)))


@dataclass(eq=False)   # identity: a child names its parent's entry, not an equal-looking one
class Entry:
    block: int
    key: int
    tokens: tuple[int, ...]
    parent: "Entry | None"


class PrefixIndex:
    """Full blocks by block hash. Each entry keeps the block's tokens and its parent's entry, and a hit
    counts only when both match: the tokens of this block, and the parent entry the walk accepted one
    block earlier. By induction the whole prefix is then equal, whatever the hash did."""

    def __init__(self, block_size: int):
        self.block_size = block_size
        self._by_key: dict[int, Entry] = {}
        self._by_block: dict[int, Entry] = {}

    def lookup(self, tokens: Sequence[int]) -> list[Entry]:
        """Entries for the longest run of full leading blocks of `tokens` held here."""
        found: list[Entry] = []
        parent, key = None, ROOT_HASH
        for start in range(0, len(tokens) - self.block_size + 1, self.block_size):
            entry = self.match(parent, key, tokens[start:start + self.block_size])
            if entry is None:
                break
            found.append(entry)
            parent, key = entry, entry.key
        return found

    def match(self, parent: Entry | None, parent_key: int, block_tokens: Sequence[int]) -> Entry | None:
        """The entry for this block after `parent` (None: the first block), or None."""
        entry = self._by_key.get(block_hash(parent_key, block_tokens))
        if entry is None or entry.parent is not parent or entry.tokens != tuple(block_tokens):
            return None          # absent, or a hash collision
        return entry

    def register(self, block: int, parent: Entry | None, block_tokens: Sequence[int]) -> Entry | None:
        """Index `block`, holding these tokens after `parent`'s; returns the entry a later lookup will
        accept for them (this one, or an equal one indexed earlier), or None on a collision."""
        parent_key = ROOT_HASH if parent is None else parent.key
        key = block_hash(parent_key, block_tokens)
        if key in self._by_key:
            if (found := self.match(parent, parent_key, block_tokens)) or self._live(self._by_key[key]):
                return found
            self.forget(self._by_key[key].block)     # an entry under a forgotten parent: no walk reaches it
        if block in self._by_block:
            return None          # this block is indexed already under another prefix
        entry = Entry(block, key, tuple(block_tokens), parent)
        self._by_key[key] = self._by_block[block] = entry
        return entry

    def _live(self, entry: Entry | None) -> bool:
        """Whether a walk can still reach this entry: it and every ancestor are still indexed."""
        while entry is not None:
            if self._by_block.get(entry.block) is not entry:
                return False
            entry = entry.parent
        return True

    def forget(self, block: int) -> bool:
        entry = self._by_block.pop(block, None)
        if entry is not None:
            del self._by_key[entry.key]
        return entry is not None

    def __contains__(self, block: int) -> bool:
        return block in self._by_block

    def __len__(self) -> int:
        return len(self._by_block)
