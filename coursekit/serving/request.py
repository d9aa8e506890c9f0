"""The one interface every engine in Module 6 implements, and a request's state inside an engine."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence


@dataclass
class StepOutput:
    """What one step() produced: the tokens each request gained (in order) and who finished.

    Engines report tokens, never times: the harness (or the grader) stamps its own clock when step()
    returns, so an engine cannot improve its latency numbers by what it says.
    """
    new_tokens: dict[int, list[int]] = field(default_factory=dict)
    finished: list[int] = field(default_factory=list)


class Engine(Protocol):
    def add_request(self, prompt_tokens: Sequence[int], max_new_tokens: int, arrival_time: float = 0.0) -> int:
        """Queue a request; returns its id. Greedy decoding; exactly max_new_tokens are generated."""

    def step(self) -> StepOutput:
        """Run one iteration of the model over whatever the scheduler picks."""

    def has_unfinished(self) -> bool: ...

    @property
    def kv_blocks_in_use(self) -> int:
        """KV blocks held right now (the naive engine counts its contiguous cache in block units)."""


@dataclass(eq=False)   # identity: the scheduler looks requests up in its lists
class Request:
    """A request inside an engine. `tokens` is prompt + output so far; the KV cache holds positions
    0..num_computed-1, and the last token is always still to be run (its successor is what we want)."""
    rid: int
    prompt: list[int]
    max_new_tokens: int
    arrival_time: float
    output: list[int] = field(default_factory=list)
    num_computed: int = 0          # positions whose keys/values are in the target model's cache
    draft_computed: int = 0        # the same for the draft model (speculative decoding)
    blocks: list[int] = field(default_factory=list)
    preemptions: int = 0
    indexed_blocks: int = 0        # full blocks offered to the prefix index (the lab; the reference keeps a chain)
    logits: list = field(default_factory=list)   # rows that chose each output token, when recorded

    @property
    def tokens(self) -> list[int]:
        return self.prompt + self.output

    @property
    def done(self) -> bool:
        return len(self.output) >= self.max_new_tokens

    @property
    def remaining(self) -> int:
        return self.max_new_tokens - len(self.output)


def check_request(prompt_tokens: Sequence[int], max_new_tokens: int, vocab_size: int, max_seq_len: int) -> list[int]:
    prompt = [int(t) for t in prompt_tokens]
    if not prompt:
        raise ValueError("a request needs at least one prompt token")
    if max_new_tokens < 1:
        raise ValueError(f"max_new_tokens must be at least 1, got {max_new_tokens}")
    if min(prompt) < 0 or max(prompt) >= vocab_size:
        raise ValueError(f"prompt tokens must lie in 0..{vocab_size - 1}")
    if len(prompt) + max_new_tokens > max_seq_len:
        raise ValueError(f"prompt ({len(prompt)}) + max_new_tokens ({max_new_tokens}) exceeds the model's "
                         f"max_seq_len ({max_seq_len})")
    return prompt
