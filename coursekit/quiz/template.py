"""`course quiz new BANK`: a lesson-quiz bank that `course quiz check` accepts, one item of every type.

The bank is a starting point to edit (docs/QUIZ-FORMAT.md is the reference of every field): single and
multi choice with feedback per option, a numeric item with values computed by coursekit, a mistake
with its own feedback and a relative tolerance, a param item drawn per student, and an absolute
tolerance. Item ids start with the bank id, so they stay unique across the course.
"""
from __future__ import annotations

import re
from pathlib import Path

BANK_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")

TEMPLATE = """\
# A lesson-quiz bank: edit every text, keep the structure (docs/QUIZ-FORMAT.md), then `course quiz check`.
id: {bank}
title: Training and inference, a first quiz (edit me)
module: {module}
kind: lesson-quiz            # lesson-quiz (show >= 3, pool >= 6) | module-test (show 15, pool >= 25, pass_mark)
show: 3                      # items drawn per attempt
items:
  - id: {bank}-kv-cache
    type: single             # exactly one option has correct: true
    stem: Why does a KV cache exist at inference time but not in training?
    options:
      - text: Generation makes one token per forward pass, so each pass would otherwise recompute the prefix's keys and values.
        correct: true
        feedback: Right. Caching earlier tokens' keys and values makes each decode pass work on one new token.
      - text: Training stores its keys and values on disk instead.
        feedback: Training keeps no KV cache anywhere; it processes whole sequences in one parallel pass.
      - text: The KV cache holds the optimizer's moments.
        feedback: Optimizer moments belong to training; inference has no optimizer.
    explanation: In training the whole sequence is present, so keys and values are computed together and discarded; decoding adds one token per pass and needs every earlier token's keys and values.
    source: Spuler's blog post (KV cache is inference-only)

  - id: {bank}-training-state
    type: multi              # one or more correct options, scored all-or-nothing
    stem: Which of these does mixed-precision AdamW training keep in memory that inference does not?
    options:
      - text: Gradients
        correct: true
        feedback: Yes, one per weight, produced by the backward pass.
      - text: Two optimizer moments per weight
        correct: true
        feedback: Yes, AdamW's first and second moments, usually in FP32.
      - text: The weights themselves
        feedback: Inference keeps the weights too; they are what it runs.
    explanation: Training adds gradients, optimizer states and (in mixed precision) an FP32 master copy to the weights.
    source: Rajbhandari et al. 2020 (ZeRO), section 3.1

  - id: {bank}-weights-7b
    type: numeric            # the answer is computed by a coursekit function, never typed
    stem: How many GB do the BF16 weights of a {{params_b:.0f}}-billion-parameter model take?
    values:                  # numbers shown in texts come from code too
      params_b: {{fn: "coursekit.calc.memory:weight_bytes", args: {{n_params: 7.0e9, bytes_per_param: 1}}, scale: 1.0e-9}}
    answer: {{fn: "coursekit.calc.memory:weight_bytes", args: {{n_params: 7.0e9, bytes_per_param: 2}}, scale: 1.0e-9}}
    tolerance: {{rel: 0.02}}   # or {{abs: x}}
    units: GB                # typed answers may carry them ("14 GB")
    mistakes:                # common wrong answers, each with its own feedback (outside the tolerance)
      - value: {{fn: "coursekit.calc.memory:weight_bytes", args: {{n_params: 7.0e9, bytes_per_param: 4}}, scale: 1.0e-9}}
        feedback: That is FP32, 4 bytes per parameter; BF16 takes 2.
    feedback: {{correct: "Right: 2 bytes per parameter.", incorrect: "Multiply the parameters by 2 bytes."}}
    explanation: 7e9 parameters x 2 bytes = {{answer:.0f}} GB.
    source: Micikevicius et al. 2018 (mixed-precision training)

  - id: {bank}-ridge
    type: param              # inputs drawn per student from a seeded generator
    stem: A chip does {{tflops}} TFLOP/s and {{tbs}} TB/s. Where is its ridge point, in FLOP per byte?
    params:
      tflops: {{choices: [197, 312, 362, 989]}}
      tbs: {{range: [0.8, 4.8], digits: 2}}
    answer: {{fn: "coursekit.calc.roofline:ridge_point", args: {{peak_flops: "{{tflops}}e12", bandwidth: "{{tbs}}e12"}}}}
    tolerance: {{rel: 0.01}}
    units: FLOP/byte
    feedback: {{correct: "Right.", incorrect: "Divide peak FLOP/s by bytes/s."}}
    explanation: Ridge = peak FLOP/s / bandwidth = {{answer:.0f}} FLOP/byte.
    source: Williams et al. 2009 (roofline model)

  - id: {bank}-bytes-per-param
    type: numeric
    stem: How many bytes per parameter does inference with BF16 weights need for the weights alone?
    answer: {{fn: "coursekit.calc.memory:bytes_per_param", args: {{phase: inference, weight_bytes: 2}}}}
    tolerance: {{abs: 0.1}}
    units: bytes
    feedback: {{correct: "Right.", incorrect: "BF16 is 16 bits."}}
    explanation: BF16 is 16 bits, {{answer:g}} bytes.
    source: Micikevicius et al. 2018 (mixed-precision training)

  - id: {bank}-decode-bound
    type: single
    shuffle: false           # keep the authored order (options are otherwise shuffled per learner)
    stem: Batch-1 decode on a datacenter GPU is usually limited by what?
    options:
      - text: Compute (FLOP/s)
        feedback: At one token per pass the arithmetic intensity is about 1 FLOP/byte, far below the ridge point.
      - text: Memory bandwidth
        correct: true
        feedback: Right. Every weight is read for one token's worth of work.
    explanation: Decode reads every weight once per token; its intensity sits far below the ridge point.
    source: Pope et al. 2022 (efficiently scaling transformer inference)
"""


def new_bank(root: Path, bank: str, module: str = "extra") -> Path:
    """Write <root>/<bank>.yaml; refuse an unsafe id or an existing file."""
    if not BANK_ID.match(bank):
        raise ValueError(f"invalid bank id {bank!r}: use lower-case letters, digits and '-' (at most 64)")
    if not BANK_ID.match(module):
        raise ValueError(f"invalid module {module!r}: use lower-case letters, digits and '-'")
    path = Path(root) / f"{bank}.yaml"
    if path.exists():
        raise ValueError(f"{path} already exists: pick another bank id or remove it first")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(TEMPLATE.format(bank=bank, module=module), encoding="utf-8")
    return path
