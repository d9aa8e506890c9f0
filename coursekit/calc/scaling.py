"""Inference-aware scaling: which (model size N, training tokens D) reach a target loss for the
fewest total FLOPs once a lifetime of inference is counted.

Loss law (Hoffmann et al. 2022, "Training Compute-Optimal Large Language Models", arXiv:2203.15556,
Approach 3, eq. 10):  L(N, D) = E + A / N**alpha + B / D**beta.
Cost model (Kaplan et al. 2020 and Sardana et al. 2024, arXiv:2401.00448, section 2):
training ~ 6 N D FLOPs, inference ~ 2 N FLOPs per token (prompt and generated tokens alike).
Sardana et al.'s question: for a target loss and a lifetime inference demand D_inf tokens, minimise
6 N D + 2 N D_inf subject to L(N, D) = target. With D_inf = 0 this is Chinchilla's question.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class LossLaw:
    E: float
    A: float
    B: float
    alpha: float
    beta: float
    source: str = ""

    def loss(self, n_params: float, n_tokens: float) -> float:
        return self.E + self.A / n_params ** self.alpha + self.B / n_tokens ** self.beta


HOFFMANN_2022 = LossLaw(
    E=1.69, A=406.4, B=410.7, alpha=0.34, beta=0.28,
    source="Hoffmann et al. 2022 (arXiv:2203.15556), eq. 10, Approach 3 fit; the constants Sardana et al. 2024 use",
)
# Besiroglu et al. 2024 ("Chinchilla Scaling: A replication attempt", arXiv:2404.10102) refit
# Hoffmann's own data and found Approach 3's published constants inconsistent with Approaches 1-2;
# their refit is what makes Approach 3 agree with the ~20 tokens/parameter rule.
BESIROGLU_2024 = LossLaw(
    E=1.8172, A=482.01, B=2085.43, alpha=0.3478, beta=0.3658,
    source="Besiroglu et al. 2024 (arXiv:2404.10102), Table 1 / eq. 4: replication of Chinchilla Approach 3",
)


def chinchilla_loss(n_params: float, n_tokens: float, law: LossLaw = HOFFMANN_2022) -> float:
    """Predicted pre-training loss (nats/token) of N parameters trained on D tokens."""
    if n_params <= 0 or n_tokens <= 0:
        raise ValueError(f"coursekit/calc/scaling.py: N and D must be positive, got N={n_params}, D={n_tokens}")
    return law.loss(n_params, n_tokens)


def training_flops(n_params: float, n_tokens: float) -> float:
    """Forward + backward: 2 FLOPs per parameter per token forward, twice that backward."""
    return 6.0 * n_params * n_tokens


def inference_flops(n_params: float, n_tokens: float) -> float:
    """Forward only: one multiply and one add per parameter per token."""
    return 2.0 * n_params * n_tokens


def min_params_for_loss(target_loss: float, law: LossLaw = HOFFMANN_2022) -> float:
    """Smallest N that can reach target_loss even with infinite data (A/N^alpha = L - E)."""
    gap = target_loss - law.E
    if gap <= 0:
        raise ValueError(f"coursekit/calc/scaling.py: target loss {target_loss} is at or below the "
                         f"irreducible loss E={law.E}; no model reaches it")
    return (law.A / gap) ** (1.0 / law.alpha)


def tokens_for_loss(n_params: float, target_loss: float, law: LossLaw = HOFFMANN_2022) -> float:
    """Training tokens D at which an N-parameter model reaches target_loss (inf if it never does)."""
    gap = target_loss - law.E - law.A / n_params ** law.alpha
    if gap <= 0:
        return math.inf
    return (law.B / gap) ** (1.0 / law.beta)


def total_flops(n_params: float, target_loss: float, inference_tokens: float,
                law: LossLaw = HOFFMANN_2022) -> float:
    """Training to target_loss plus serving inference_tokens over the model's lifetime."""
    d = tokens_for_loss(n_params, target_loss, law)
    return training_flops(n_params, d) + inference_flops(n_params, inference_tokens)


def optimal_model(target_loss: float, inference_tokens: float = 0.0,
                  law: LossLaw = HOFFMANN_2022) -> dict:
    """The (N, D) reaching target_loss with the fewest training + lifetime-inference FLOPs.

    Golden-section search over log N: total FLOPs blow up as N falls to the smallest model that can
    reach the loss (D -> inf) and grow again for huge N, with one minimum between (Sardana et al. 2024).
    """
    if inference_tokens < 0:
        raise ValueError(f"coursekit/calc/scaling.py: inference demand must be >= 0 tokens, got {inference_tokens}")
    n_min = min_params_for_loss(target_loss, law)
    lo, hi = math.log(n_min) + 1e-9, math.log(n_min) + math.log(1e6)
    cost = lambda log_n: math.log(total_flops(math.exp(log_n), target_loss, inference_tokens, law))
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = cost(a), cost(b)
    for _ in range(200):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = cost(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = cost(b)
        if hi - lo < 1e-10:
            break
    n = math.exp((lo + hi) / 2)
    d = tokens_for_loss(n, target_loss, law)
    return {
        "n_params": n,
        "n_tokens": d,
        "tokens_per_param": d / n,
        "training_flops": training_flops(n, d),
        "inference_flops": inference_flops(n, inference_tokens),
        "total_flops": training_flops(n, d) + inference_flops(n, inference_tokens),
    }


def compute_optimal(compute_flops: float, law: LossLaw = HOFFMANN_2022) -> dict:
    """Chinchilla's closed form: the (N, D) minimising loss for a training budget C = 6 N D.

    N_opt = G (C/6)^(beta/(alpha+beta)), D_opt = (C/6)^(alpha/(alpha+beta)) / G,
    G = (alpha A / (beta B))^(1/(alpha+beta))  (Hoffmann et al. 2022, eq. 4 and appendix D.2).
    """
    a, b = law.alpha, law.beta
    g = (a * law.A / (b * law.B)) ** (1.0 / (a + b))
    n = g * (compute_flops / 6.0) ** (b / (a + b))
    d = (compute_flops / 6.0) ** (a / (a + b)) / g
    return {"n_params": n, "n_tokens": d, "tokens_per_param": d / n, "loss": law.loss(n, d)}


LAWS = {"hoffmann": HOFFMANN_2022, "besiroglu": BESIROGLU_2024}


def optimal_tokens_per_param(target_loss: float, inference_tokens: float = 0.0, law: str = "hoffmann") -> float:
    """D/N at the inference-aware optimum (quiz-friendly scalar; law: 'hoffmann' or 'besiroglu')."""
    return optimal_model(target_loss, inference_tokens, LAWS[law])["tokens_per_param"]


def optimal_params(target_loss: float, inference_tokens: float = 0.0, law: str = "hoffmann") -> float:
    """N at the inference-aware optimum."""
    return optimal_model(target_loss, inference_tokens, LAWS[law])["n_params"]


def compute_optimal_tokens_per_param(compute_flops: float, law: str = "hoffmann") -> float:
    """D/N that minimises loss for a training budget (the zero-demand limit)."""
    return compute_optimal(compute_flops, LAWS[law])["tokens_per_param"]


def tokens_per_param(n_tokens: float, n_params: float) -> float:
    return n_tokens / n_params


# Published training runs (parameters, training tokens) for the tokens-per-parameter comparison.
TRAINING_RUNS = [
    ("Chinchilla 70B", 70e9, 1.4e12, "Hoffmann et al. 2022 (arXiv:2203.15556), Table 3 / section 4"),
    ("Llama 3 8B", 8.03e9, 15e12, "Meta Llama 3 model card (2024): 'over 15T tokens'; Grattafiori et al. 2024 (arXiv:2407.21783)"),
    ("SmolLM2-360M", 0.36e9, 4e12, "Allal et al. 2025, SmolLM2 (arXiv:2502.02737): 360M trained on 4T tokens"),
    ("Qwen3-0.6B", 0.6e9, 36e12, "Qwen Team 2025, Qwen3 Technical Report (arXiv:2505.09388): all sizes pre-trained on ~36T tokens"),
    ("LFM2.5-350M", 0.35e9, 28e12, "the co-design textbook section (Liquid AI release figures: 28T tokens); ratio recomputed here"),
]


def run_tokens_per_param(name: str) -> float:
    """Tokens per parameter of a published run in TRAINING_RUNS, by name."""
    for run_name, n, d, _ in TRAINING_RUNS:
        if run_name == name:
            return d / n
    raise KeyError(f"coursekit/calc/scaling.py: no training run named {name!r}; "
                   f"known: {', '.join(r[0] for r in TRAINING_RUNS)}")
