"""Lab 5 (MoE routing, speculative decoding, inference-aware scaling): what each task is graded on.

Cases are plain data (seeds and shapes); `prepare` turns them into tensors and models the same way
in the student's process and the grader's. The trusted reference is the solution notebook
solutions/lab5-moe/lab5-moe.ipynb. Visible `expected` values were produced by that reference and
are re-checked against it by tests/content/m5/test_m5_lab.py.
"""
from __future__ import annotations

import random

from autograder.spec import Case, LabSpec, Task, approx, pick_keys
from coursekit.checks.lab5_moe import (aux_args, capacity_args, encode_capacity, encode_no_grad, encode_tokens,
                                       layer_args, router_args, spec_args)

LAB = "lab5-moe"



# ---- MoE -------------------------------------------------------------------------------------

def _router_case(rng: random.Random) -> Case:
    experts = rng.choice([4, 8, 16, 64])
    return Case("random router logits", kwargs=dict(
        seed=rng.randrange(2**31), tokens=rng.randint(1, 40), experts=experts,
        k=rng.randint(1, min(8, experts)), renormalize=rng.random() < 0.6, scale=rng.choice([0.5, 1.0, 3.0])))



def _dispatch_case(rng: random.Random) -> Case:
    experts = rng.choice([2, 4, 8, 16])
    return Case("random layer and tokens", kwargs=dict(
        seed=rng.randrange(2**31), tokens=rng.randint(1, 64), d_model=rng.choice([8, 16, 32]),
        d_ff=rng.choice([8, 24, 48]), experts=experts, k=rng.randint(1, min(4, experts)),
        renormalize=rng.random() < 0.7))



def _aux_case(rng: random.Random) -> Case:
    experts = rng.choice([4, 8, 16])
    return Case("random router logits", kwargs=dict(
        seed=rng.randrange(2**31), tokens=rng.randint(8, 256), experts=experts,
        k=rng.randint(1, min(4, experts)), skew=rng.choice([0.0, 1.0, 4.0])))



def _capacity_case(rng: random.Random) -> Case:
    experts = rng.choice([4, 8])
    return Case("random routing", kwargs=dict(
        seed=rng.randrange(2**31), tokens=rng.randint(4, 64), experts=experts, k=rng.randint(1, 2),
        capacity_factor=rng.choice([0.5, 1.0, 1.25, 2.0]), skew=rng.choice([0.0, 2.0])))


def _counts_case(rng: random.Random) -> Case:
    experts = rng.choice([8, 16, 64, 128, 256])
    return Case("random MoE shape", kwargs=dict(
        n_layers=rng.randint(1, 96), d_model=rng.choice([512, 2048, 4096, 7168]),
        d_ff=rng.choice([1024, 1536, 2048, 14336]), n_experts=experts, top_k=rng.randint(1, 8),
        n_shared=rng.choice([0, 0, 1, 2]), dense_params=rng.choice([0, 1e9, 1.2e10])))


# ---- speculative decoding ------------------------------------------------------------------------

def _spec_case(rng: random.Random) -> Case:
    return Case("random target/draft pair", kwargs=dict(
        seed=rng.randrange(2**31), n_layers=rng.choice([2, 3, 4]), draft_layers=1,
        damp=rng.choice([0.2, 0.5, 1.0]), prompt_len=rng.randint(1, 12), n_new=rng.randint(1, 20),
        k=rng.randint(1, 5)))


def _gain_case(rng: random.Random) -> Case:
    return Case("random a, k, c", args=(rng.choice([0.0, 1.0, round(rng.random(), 3)]), rng.randint(0, 10),
                                        round(rng.uniform(0.0, 1.0), 3)))


def _scaling_case(rng: random.Random) -> Case:
    return Case("random target loss and demand", args=(round(rng.uniform(1.85, 2.6), 3),
                                                       rng.choice([0.0, 10 ** rng.uniform(9, 14)])))


SPEC = LabSpec(
    lab_id=LAB,
    notebook="lab5-moe.ipynb",
    tasks=(
        Task('test_router', 'Task (top-k router)', 2, 'top_k_route',
             visible=(
            Case('6 experts, top-2, renormalized', kwargs={'seed': 0, 'tokens': 4, 'experts': 6, 'k': 2, 'renormalize': True},
                 hint='softmax over all experts, torch.topk, then divide the kept weights by their sum so each row sums to 1',
                 expected=[{'shape': [4, 2], 'data': [0.539095342159, 0.460904657841, 0.726227104664, 0.273772925138, 0.581073760986, 0.418926298618, 0.800100743771, 0.199899286032]}, {'shape': [4, 2], 'data': [4, 5, 4, 2, 5, 4, 0, 2]}]),
            Case('6 experts, top-2, raw softmax weights', kwargs={'seed': 0, 'tokens': 4, 'experts': 6, 'k': 2, 'renormalize': False},
                 hint='without renormalization the weights are the softmax probabilities themselves; rows sum to less than 1',
                 expected=[{'shape': [4, 2], 'data': [0.365043461323, 0.312097370625, 0.479114234447, 0.180616378784, 0.308932751417, 0.222725689411, 0.64415615797, 0.160937681794]}, {'shape': [4, 2], 'data': [4, 5, 4, 2, 5, 4, 0, 2]}]),
            Case('top-1 routing, renormalized', kwargs={'seed': 3, 'tokens': 3, 'experts': 4, 'k': 1, 'renormalize': True},
                 hint='with k = 1 and renormalization every weight is exactly 1',
                 expected=[{'shape': [3, 1], 'data': [1.0, 1.0, 1.0]}, {'shape': [3, 1], 'data': [0, 3, 3]}]),
             ),
             hidden=_router_case, n_hidden=5, prepare=router_args, compare=approx(rel=1e-5, abs_=1e-7)),
        Task('test_dispatch', 'Task (vectorized dispatch and combine)', 3, 'moe_forward',
             visible=(
            Case('5 tokens, 4 experts, top-2', kwargs={'seed': 0, 'tokens': 5, 'd_model': 8, 'd_ff': 16, 'experts': 4, 'k': 2, 'renormalize': True},
                 hint="each token's output is the weighted sum of its k experts' SwiGLU outputs: down(silu(gate x) * up x)",
                 expected={'shape': [5, 8], 'data': [0.0678692311049, 0.377089560032, -0.0464272461832, -0.224044293165, 0.297609180212, -0.395669966936, -0.283537179232, 0.142175719142, -0.146702721715, -0.0707966759801, -0.177582323551, -0.0171097572893, 0.142196565866, -0.064517468214, 0.190454974771, 0.0393590144813, 0.201151296496, -0.123022593558, -0.0840954035521, -0.163505315781, 0.211790591478, -0.363960325718, -0.126267209649, -0.114176303148, 0.454486310482, 0.0145355537534, 0.1274189502, -0.28118044138, 0.48713055253, -0.545367956161, 0.155700176954, -0.454062044621, -0.358929038048, -0.298426747322, -1.04145121574, 0.764431416988, 0.224443539977, -0.23996552825, 0.599067687988, 0.0903433263302]}),
            Case('7 tokens, 3 experts, top-1, raw weights', kwargs={'seed': 1, 'tokens': 7, 'd_model': 8, 'd_ff': 8, 'experts': 3, 'k': 1, 'renormalize': False},
                 hint='read top_k and renormalize from layer.config; with raw weights the output is scaled by the softmax probability',
                 expected={'shape': [7, 8], 'data': [0.0687362551689, -0.0808462202549, 0.58314794302, -0.254331022501, -0.120514556766, -0.338050752878, 0.131432399154, 0.244139268994, 0.150773644447, 0.0650720968843, -0.0250497777015, -0.0969351679087, 0.00168536172714, 0.157831043005, 0.0637255907059, 0.0602250695229, -0.0875462368131, 0.234275087714, -0.0951258987188, 0.190875634551, 0.286613106728, -0.296220213175, 0.0390786156058, -0.246140956879, 0.45912194252, 0.0986191853881, -0.43552750349, 0.427290976048, -0.330725491047, 0.104714944959, 0.712648451328, -0.192080125213, -0.0415908098221, 0.125684514642, -0.0887387394905, 0.0436399765313, -0.0476065203547, -0.20693513751, 0.074670560658, 0.00109690777026, 1.80284929276, 1.278013587, -0.511544466019, -1.11212515831, 0.128415331244, 3.25893998146, 1.40148818493, 0.736242234707, -0.431314647198, -0.702109456062, 0.369699925184, 0.209926396608, -0.312180936337, -0.140822961926, 0.402944505215, -0.0853407606483]}),
             ),
             hidden=_dispatch_case, n_hidden=5, prepare=layer_args, encode=encode_no_grad, compare=approx(rel=1e-4, abs_=1e-5)),
        Task('test_aux', 'Task (load-balancing loss)', 2, 'load_balancing_loss',
             visible=(
            Case('unskewed router, top-1', kwargs={'seed': 0, 'tokens': 64, 'experts': 4, 'k': 1, 'skew': 0.0},
                 hint='f_i = (top-k assignments to expert i) / T, P_i = mean softmax probability of expert i; loss = E * sum f_i P_i',
                 expected={'shape': [], 'data': [1.00671887398]}),
            Case('router favouring expert 0, top-2', kwargs={'seed': 1, 'tokens': 64, 'experts': 4, 'k': 2, 'skew': 4.0},
                 hint='count every top-k slot in f (so f sums to k), and use the full softmax (before top-k) for P',
                 expected={'shape': [], 'data': [3.75306653976]}),
             ),
             hidden=_aux_case, n_hidden=5, prepare=aux_args, encode=encode_no_grad, compare=approx(rel=1e-5, abs_=1e-7)),
        Task('test_capacity', 'Task (expert capacity)', 2, 'apply_capacity',
             visible=(
            Case('12 tokens, 4 experts, top-1, factor 1.0', kwargs={'seed': 0, 'tokens': 12, 'experts': 4, 'k': 1, 'capacity_factor': 1.0, 'skew': 2.0},
                 hint="capacity = int(factor * T * k / E), truncated as in Switch; serve each expert's first `capacity` assignments in token order",
                 expected={'capacity': 3, 'dropped': 8, 'load': [3, 0, 0, 1], 'keep': [[True], [True], [True], [False], [True], [False], [False], [False], [False], [False], [False], [False]]}),
            Case('12 tokens, 4 experts, top-2, factor 1.0, skewed router', kwargs={'seed': 2, 'tokens': 12, 'experts': 4, 'k': 2, 'capacity_factor': 1.0, 'skew': 2.0},
                 hint='serve all first choices (slot 0, token order) before any second choice (slot 1)',
                 expected={'capacity': 6, 'dropped': 6, 'load': [6, 6, 2, 4], 'keep': [[True, True], [True, False], [True, True], [True, True], [True, False], [True, True], [True, False], [True, True], [True, False], [True, True], [False, True], [False, True]]}),
             ),
             hidden=_capacity_case, n_hidden=5, prepare=capacity_args, encode=encode_capacity, compare=approx()),
        Task('test_counts', 'Task (total vs active parameters)', 1, 'moe_counts',
             visible=(
            Case('Mixtral 8x7B expert layers only', kwargs={'n_layers': 32, 'd_model': 4096, 'd_ff': 14336, 'n_experts': 8, 'top_k': 2},
                 hint='each expert has 3 * d_model * d_ff weights; the router has d_model * n_experts; active counts only top_k experts',
                 expected={'total_params': 45098205184.0, 'active_params': 11275337728.0, 'flops_per_token': 22550675456.0}),
            Case('one layer, a shared expert and dense parameters', kwargs={'n_layers': 1, 'd_model': 16, 'd_ff': 32, 'n_experts': 8, 'top_k': 2, 'n_shared': 1, 'dense_params': 1000},
                 hint='shared experts and dense_params count in both total and active; FLOPs per token = 2 * active',
                 expected={'total_params': 14952.0, 'active_params': 5736.0, 'flops_per_token': 11472.0}),
             ),
             hidden=_counts_case, n_hidden=5, encode=pick_keys(("total_params", "active_params", "flops_per_token")), compare=approx(rel=1e-9)),
        Task('test_gain', 'Task (speculation gain)', 1, 'speculation_gain',
             visible=(
            Case('a = 0.8, k = 4, c = 0.05', args=(0.8, 4, 0.05),
                 hint='tokens per step = (1 - a^(k+1)) / (1 - a); speedup = that / (k c + 1)',
                 expected={'tokens_per_step': 3.3616, 'speedup': 2.80133333333}),
            Case('every draft token accepted', args=(1.0, 3, 0.1),
                 hint='at a = 1 the formula is 0/0: the limit is k + 1 tokens',
                 expected={'tokens_per_step': 4.0, 'speedup': 3.07692307692}),
            Case('no speculation', args=(0.7, 0, 0.3),
                 hint='k = 0 means one target token per step and no draft cost',
                 expected={'tokens_per_step': 1.0, 'speedup': 1.0}),
             ),
             hidden=_gain_case, n_hidden=5, encode=pick_keys(("tokens_per_step", "speedup")), compare=approx(rel=1e-9, abs_=1e-12)),
        Task('test_speculative', 'Task (greedy speculative decoding)', 3, 'speculative_greedy',
             visible=(
            Case('4-layer target, 2-layer draft, k = 4', kwargs={'seed': 0, 'n_layers': 4, 'draft_layers': 2, 'damp': 0.3, 'prompt_len': 6, 'n_new': 12, 'k': 4},
                 hint="the output must equal the target's own greedy tokens: keep draft tokens only while they equal the target's argmax",
                 expected={'shape': [1, 12], 'data': [52, 55, 167, 88, 249, 161, 150, 53, 88, 249, 161, 150]}),
            Case('k = 1, a draft that disagrees more', kwargs={'seed': 5, 'n_layers': 3, 'draft_layers': 1, 'damp': 1.0, 'prompt_len': 3, 'n_new': 7, 'k': 1},
                 hint="after the first disagreement append the target's token and discard the rest of the draft",
                 expected={'shape': [1, 7], 'data': [254, 58, 178, 122, 18, 64, 0]}),
             ),
             hidden=_spec_case, n_hidden=3, prepare=spec_args, encode=encode_tokens, compare=approx()),
        Task('test_scaling', 'Task (inference-aware optimum)', 2, 'optimal_n_d',
             visible=(
            Case("no inference demand (Chinchilla's question)", args=(1.9307, 0.0),
                 hint='with no demand you minimise 6 N D(N) alone; check that L(N, D) equals the target at your answer',
                 expected={'n_params': 32208783236.9, 'n_tokens': 2984434734800.0, 'total_flops': 5.76750068748e+23}),
            Case('10^13 lifetime tokens', args=(2.0, 10000000000000.0),
                 hint='add 2 N x inference_tokens to the training FLOPs before minimising over N',
                 expected={'n_params': 6487107026.34, 'n_tokens': 3889391648480.0, 'total_flops': 2.81127539873e+23}),
             ),
             hidden=_scaling_case, n_hidden=5, encode=pick_keys(("n_params", "n_tokens", "total_flops")), compare=approx(rel=2e-2)),
    ),
    # the dispatch task's prepare builds its MoE layer with the course's builder (the layer's routing and
    # forward stay stand-ins while grading)
    setup_uses=("coursekit.nn.moe.MoEConfig", "coursekit.nn.moe.MoELayer.__init__", "coursekit.nn.moe.build_moe"),
)
