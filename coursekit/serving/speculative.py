"""Speculative decoding inside the engine: a draft proposes k tokens per request, the target checks
them all in one forward pass, and greedy acceptance keeps the target's own choices (Leviathan et al.
2023; Chen et al. 2023). With greedy decoding the output is the target's greedy output, whatever the
draft proposes; the draft only changes how many target passes it takes.
"""
from __future__ import annotations

from .paged import Chunk, PagedKVCache, forward_packed
from .request import Request


def propose(draft, cache: PagedKVCache, requests: list[Request], ks: list[int]) -> list[list[int]]:
    """k greedy draft tokens per request, batched across requests round by round.

    The first round also catches the draft's cache up on positions it has not run (the prompt, tokens
    decoded while the batch was too big to speculate, the target's bonus token), in one chunk: the draft
    never follows the target step by step, so it costs nothing while speculation is off.
    """
    proposals: list[list[int]] = [[] for _ in requests]
    fed = [req.draft_computed for req in requests]
    for round_ in range(max(ks, default=0)):
        active = [i for i, k in enumerate(ks) if round_ < k]
        chunks = []
        for i in active:
            req = requests[i]
            todo = (req.tokens + proposals[i])[fed[i]:]
            chunks.append(Chunk(todo, fed[i], req.blocks, logits=1))
        for i, chunk, logits in zip(active, chunks, forward_packed(draft, cache, chunks)):
            fed[i] += len(chunk.tokens)
            proposals[i].append(int(logits[-1].argmax()))
    return proposals


def accept(proposal: list[int], target_logits) -> tuple[list[int], int]:
    """Greedy verification: keep draft tokens while they equal the target's argmax, then add the
    target's own next token. Returns (new tokens, how many draft tokens were accepted)."""
    choices = target_logits.argmax(dim=-1).tolist()        # choice i follows the input at offset i
    accepted = 0
    while accepted < len(proposal) and proposal[accepted] == choices[accepted]:
        accepted += 1
    return proposal[:accepted] + [choices[accepted]], accepted
