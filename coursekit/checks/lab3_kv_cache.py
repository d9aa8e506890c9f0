"""Lab 3 (KV cache): how a visible or hidden case becomes a model and a prompt, and how the cache
tasks' answers become plain data. Used by the student's visible checks and by the grader alike."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .cases import Case, approx, encode


def model_and_prompt(case: Case):
    import torch

    from coursekit.nn.decoder import DecoderConfig, build_model

    config, seed, batch, prompt_len = case.args[:4]
    # float32 weights, the same bits on every CPU; a float64 caller (the committed visible
    # expectations, autograder.release.visible_cases) gets the same weights cast up exactly
    model = build_model(DecoderConfig(**config), seed=seed, dtype=torch.get_default_dtype())
    generator = torch.Generator().manual_seed(seed + 1)
    prompt = torch.randint(0, config["vocab_size"], (batch, prompt_len), generator=generator)
    return model, prompt


def prepare_prefill(case: Case):
    return model_and_prompt(case), {}


def prepare_generate(case: Case):
    model, prompt = model_and_prompt(case)
    return (model, prompt, case.args[4]), {}


def encode_prefill(output):
    """(logits, cache) -> plain data; a wrong shape of answer gets a message saying what is expected."""
    try:
        logits, cache = output
        keys, values, length = list(cache.keys), list(cache.values), int(cache.length)
    except (TypeError, ValueError, AttributeError) as error:
        raise TypeError("prefill must return (logits, cache) where cache has .keys and .values "
                        f"(one tensor per layer) and .length ({error})") from None
    return {"logits": encode(logits), "length": length,
            "keys": [encode(k) for k in keys], "values": [encode(v) for v in values]}


def encode_generate(output):
    try:
        tokens, logits = output
    except (TypeError, ValueError) as error:
        raise TypeError(f"generate_with_cache must return (tokens, logits) ({error})") from None
    return {"tokens": encode(tokens), "logits": encode(logits)}


@dataclass(frozen=True)
class greedy_match:  # noqa: N801 - used like approx: compare=greedy_match(rel=..., abs_=...)
    """Cached generation against full recomputation: tokens exactly and logits within tolerance, except
    at a near-tie. Two processes (a student's one-thread child and the grader, or two CPUs) round the
    logits differently in the last bits; where the reference's two best logits are closer than the
    tolerance, either token is a right greedy choice, and the rows part there. Such a row is judged up
    to and including that step (its logits came before the choice); what follows is not compared."""
    rel: float = 1e-4
    abs_: float = 1e-4

    def as_data(self) -> dict:
        return {"call": f"{__name__}:greedy_match", "kwargs": {"rel": self.rel, "abs_": self.abs_}}

    def __call__(self, got: Any, want: Any, path: str = "output") -> str | None:
        plain = approx(rel=self.rel, abs_=self.abs_)
        message = plain(got, want, path)
        if message is None:
            return None
        cut = self._cut_at_ties(got, want)
        return message if cut is None else plain(*cut, path)

    def _cut_at_ties(self, got: Any, want: Any):
        """(got, want) with each row truncated after a near-tie step where the tokens part; None when
        the shapes do not allow that or a parting is not at a near-tie."""
        try:
            (batch, steps), vocab = want["tokens"]["shape"], want["logits"]["shape"][2]
            if got["tokens"]["shape"] != [batch, steps] or got["logits"]["shape"] != [batch, steps, vocab]:
                return None
            rows = []
            for b in range(batch):
                got_row = got["tokens"]["data"][b * steps:(b + 1) * steps]
                want_row = want["tokens"]["data"][b * steps:(b + 1) * steps]
                parted = next((s for s in range(steps) if got_row[s] != want_row[s]), None)
                if parted is None:
                    rows.append(steps)
                    continue
                logits = want["logits"]["data"][(b * steps + parted) * vocab:(b * steps + parted + 1) * vocab]
                best = max(logits)
                if not math.isclose(logits[got_row[parted]], best, rel_tol=self.rel, abs_tol=self.abs_):
                    return None        # the student's token was not one of the reference's best
                rows.append(parted)
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        return tuple(_truncated(side, rows, steps, vocab) for side in (got, want))


def _truncated(encoded: dict, rows: list[int], steps: int, vocab: int) -> dict:
    """Each row's tokens before its parting step and logits up to and including it (the logits came
    before the choice); a row that never parted whole. Rows are concatenated, as [1, n] pieces."""
    keep_logits = [min(keep + 1, steps) for keep in rows]
    tokens = [t for b, keep in enumerate(rows) for t in encoded["tokens"]["data"][b * steps:b * steps + keep]]
    logits = [x for b, keep in enumerate(keep_logits)
              for x in encoded["logits"]["data"][b * steps * vocab:(b * steps + keep) * vocab]]
    return {"tokens": {"shape": [1, len(tokens)], "data": tokens},
            "logits": {"shape": [1, len(logits) // vocab, vocab], "data": logits}}
