"""What "identical tokens" means in Module 6, and the check every milestone is graded by.

Batching changes the order of floating-point sums (a row of a matrix product is summed differently when
the matrix has 1 row or 40; a chunked prefill sums attention in pieces), so a correct engine's float32
logits differ from decoding the request alone by about 1e-6 of their size. Greedy decoding turns that
into a different token only where the reference's two best logits are that close. The rule:

  An engine's tokens for a request are identical to the reference (the course decoder, greedy, the
  request alone: `reference_decode`) when they are equal at every step, except that at a step where the
  reference's best two logits differ by less than MARGIN, the engine may choose the other one of those
  two; the request is then compared no further (its continuation conditions on a different token).

MARGIN = 1e-3 is about a thousand times the float32 drift measured on the course's engines (tests/
test_serving_engine.py keeps that drift below MARGIN / 10, so the margin hides no bug) and far smaller than
what a real bug does: a wrong position, a stale block or a missing mask moves logits by 1e-2 to 1.
In float64 the drift is ~1e-15 and the same check demands plain equality in practice; the grader may
rerun a disputed request in float64 (Lab 3 uses the same near-tie rule: coursekit/checks/lab3_kv_cache.py).
"""
from __future__ import annotations

import torch

MARGIN = 1e-3


@torch.no_grad()
def reference_decode(model, prompt: list[int], n_new: int) -> tuple[list[int], torch.Tensor]:
    """Greedy tokens and the logits that chose them [n_new, vocab], the request alone, by the course
    decoder's full recomputation (coursekit.nn.decoder.greedy_generate). Small models only."""
    from coursekit.nn.decoder import greedy_generate

    device = model.embed.weight.device
    tokens, logits = greedy_generate(model, torch.tensor([prompt], device=device), n_new, return_logits=True)
    return tokens[0].tolist(), logits[0].cpu()


def check_identical(got: list[int], want: list[int], want_logits: torch.Tensor, margin: float = MARGIN) -> str | None:
    """None when `got` is identical to `want` by the rule above, else a message naming the step."""
    if len(got) != len(want):
        return f"{len(got)} tokens, expected {len(want)}"
    for step, (g, w) in enumerate(zip(got, want)):
        if g == w:
            continue
        row = want_logits[step].double()
        best = float(row[w])
        if 0 <= g < row.numel() and best - float(row[g]) < margin:
            top2 = torch.topk(row, 2).values
            if float(top2[0] - top2[1]) < margin:
                return None            # a near-tie: either token is a right greedy choice
        return (f"step {step}: token {g}, expected {w} (reference logits {best:.6f} vs "
                f"{float(row[g]) if 0 <= g < row.numel() else float('nan'):.6f}; not a near-tie)")
    return None
