"""Lab 2 (plan the cluster for a 100B-parameter run): what each task is graded on.

Every task is arithmetic on plain numbers, so cases are argument tuples. The trusted reference is the
solution notebook solutions/lab2-cluster/lab2-cluster.ipynb; visible `expected` values were produced
by it and are re-checked against it, and against coursekit.calc, by tests/content/m2/test_m2_lab.py.
"""
from __future__ import annotations

import random

from autograder.spec import Case, LabSpec, Task, approx, as_number, pick_keys

LAB = "lab2-cluster"



def _zero_case(rng: random.Random) -> Case:
    return Case("random model, GPU count and stage", args=(
        rng.choice([1.3e9, 7.5e9, 70e9, 100e9, 175e9]), rng.choice([1, 2, 8, 64, 512, 1024]), rng.randint(0, 3)))


def _activation_case(rng: random.Random) -> Case:
    heads = rng.choice([16, 32, 64, 96])
    return Case("random layer shape", args=(
        rng.choice([512, 2048, 4096, 8192]), rng.choice([1, 2, 4, 8]), heads * rng.choice([64, 128]), heads,
        rng.choice([24, 48, 80, 96]), rng.random() < 0.5))


def _ring_case(rng: random.Random) -> Case:
    return Case("random message, ring and link", args=(
        rng.choice([8, 4096, 2**20, 2**27, 2e9]), rng.choice([1, 2, 8, 64, 1024]),
        rng.choice([1e-6, 5e-6, 2e-5]), rng.choice([25e9, 50e9, 450e9])))


def _tp_case(rng: random.Random) -> Case:
    return Case("random batch, layer and TP group", args=(
        rng.choice([1, 2, 4]), rng.choice([2048, 4096, 8192]), rng.choice([4096, 8192, 12288]),
        rng.choice([1, 2, 4, 8, 16]), rng.choice([3e-6, 5e-6]), rng.choice([25e9, 50e9, 450e9])))


def _bubble_case(rng: random.Random) -> Case:
    return Case("random pipeline", args=(rng.randint(1, 32), rng.randint(1, 256)))


def _time_case(rng: random.Random) -> Case:
    return Case("random run", args=(
        rng.choice([7e9, 70e9, 100e9, 405e9]), rng.choice([1e12, 2e12, 15e12]), rng.choice([2**21, 2**22, 2**24]),
        rng.choice([64, 1024, 4096, 16384]), rng.choice([312e12, 989e12, 2250e12]), rng.choice([0.3, 0.4, 0.55])))


def _ckpt_case(rng: random.Random) -> Case:
    return Case("random checkpoint cost and cluster", args=(
        rng.choice([5.0, 30.0, 120.0, 600.0]), rng.choice([2e4, 5e4, 1e5, 2e5]), rng.choice([512, 4096, 16384])))


SPEC = LabSpec(
    lab_id=LAB,
    notebook="lab2-cluster.ipynb",
    tasks=(
        Task('test_zero', 'Task (ZeRO memory per GPU)', 3, 'zero_memory_per_gpu',
             visible=(
            Case('ZeRO paper, 7.5B on 64 GPUs, plain data parallelism', args=(7.5e9, 64, 0),
                 hint='without sharding every GPU holds 2 bytes of weights, 2 of gradients and 12 of Adam state per parameter',
                 expected={'weights': 15e9, 'grads': 15e9, 'optimizer': 90e9, 'total': 120e9}),
            Case('ZeRO paper, 7.5B on 64 GPUs, stage 1', args=(7.5e9, 64, 1),
                 hint='stage 1 divides only the 12 bytes of optimizer state by the number of GPUs',
                 expected={'weights': 15e9, 'grads': 15e9, 'optimizer': 1406250000.0, 'total': 31406250000.0}),
            Case('ZeRO paper, 7.5B on 64 GPUs, stage 2', args=(7.5e9, 64, 2),
                 hint='stage 2 also shards the gradients; the weights stay whole on every GPU',
                 expected={'weights': 15e9, 'grads': 234375000.0, 'optimizer': 1406250000.0, 'total': 16640625000.0}),
            Case('100B on 1,024 GPUs, stage 3 (FSDP full shard)', args=(100e9, 1024, 3),
                 hint='stage 3 divides all 16 bytes per parameter by the number of GPUs',
                 expected={'weights': 195312500.0, 'grads': 195312500.0, 'optimizer': 1171875000.0, 'total': 1562500000.0}),
             ),
             hidden=_zero_case, n_hidden=6, encode=pick_keys(('weights', 'grads', 'optimizer', 'total')), compare=approx(rel=1e-9)),
        Task('test_activations', 'Task (activation memory)', 2, 'activation_memory',
             visible=(
            Case('GPT-3 175B layer shape, 2,048 tokens, no checkpointing', args=(2048, 1, 12288, 96, 96, False),
                 hint='per layer s*b*h*(34 + 5*a*s/h) bytes; multiply by the number of layers',
                 expected=275414777856.0),
            Case('the same with full activation checkpointing', args=(2048, 1, 12288, 96, 96, True),
                 hint='with full recomputation each layer keeps only its 16-bit input: 2*s*b*h bytes',
                 expected=4831838208.0),
             ),
             hidden=_activation_case, n_hidden=6, encode=as_number, compare=approx(rel=1e-9)),
        Task('test_ring', 'Task (ring all-reduce time)', 2, 'ring_allreduce_time',
             visible=(
            Case('1 GB among 8 GPUs on NVLink 4 (450 GB/s one way)', args=(1e9, 8, 3e-6, 450e9),
                 hint='2(n-1) latency terms plus 2(n-1)/n of the message over the one-way bandwidth',
                 expected=0.003930888888888889),
            Case('a 4 KB message among 64 nodes on InfiniBand NDR', args=(4096, 64, 5e-6, 50e9),
                 hint='for small messages the 2(n-1) alpha latency term dominates',
                 expected=0.00063016128),
            Case('one GPU: nothing to reduce', args=(1e9, 1, 5e-6, 50e9),
                 hint='with n = 1 there is no communication at all: return 0',
                 expected=0.0),
             ),
             hidden=_ring_case, n_hidden=6, encode=as_number, compare=approx(rel=1e-9, abs_=1e-15)),
        Task('test_tp', 'Task (tensor-parallel communication per layer)', 2, 'tp_comm_per_layer',
             visible=(
            Case('TP 8 on NVLink 4, 4,096 tokens, d_model 12,288', args=(1, 4096, 12288, 8, 3e-6, 450e9),
                 hint='4 ring all-reduces (2 forward, 2 backward) of batch*seq*d_model BF16 values (2 bytes each)',
                 expected=0.0017338734933333333),
            Case('the same TP group stretched over InfiniBand NDR', args=(1, 4096, 12288, 8, 5e-6, 50e9),
                 hint='same message, a link 9x slower per direction: each all-reduce takes 2(tp-1)/tp * bytes / bandwidth plus latency',
                 expected=0.01437286144),
             ),
             hidden=_tp_case, n_hidden=6, encode=as_number, compare=approx(rel=1e-9, abs_=1e-15)),
        Task('test_bubble', 'Task (pipeline bubble)', 1, 'pipeline_bubble',
             visible=(
            Case('4 stages, 4 micro-batches', args=(4, 4),
                 hint='(p - 1) idle slots out of (m + p - 1) for each GPU',
                 expected=0.42857142857142855),
            Case('16 stages, 128 micro-batches', args=(16, 128),
                 hint='many micro-batches per step shrink the bubble',
                 expected=0.10489510489510490),
            Case('no pipeline', args=(1, 8), hint='one stage never waits', expected=0.0),
             ),
             hidden=_bubble_case, n_hidden=6, encode=as_number, compare=approx(rel=1e-9, abs_=1e-12)),
        Task('test_time', 'Task (step time and days)', 2, 'training_time',
             visible=(
            Case('100B on 2T tokens, 4M-token steps, 2,048 H100s at 40% MFU', args=(100e9, 2e12, 2**22, 2048, 989e12, 0.4),
                 hint='6 * N * tokens FLOPs, divided by (GPUs * peak * MFU); days = total seconds / 86,400',
                 expected={'step_seconds': 3.1061678463094036, 'days': 17.14278065666779}),
            Case('Llama 2 70B on 2T tokens, 2,048 A100s at 43% MFU', args=(70e9, 2e12, 2**22, 2048, 312e12, 0.43),
                 hint='the step covers tokens_per_step tokens; the run covers n_tokens',
                 expected={'step_seconds': 6.411449016100179, 'days': 35.384457509275826}),
             ),
             hidden=_time_case, n_hidden=6, encode=pick_keys(('step_seconds', 'days')), compare=approx(rel=1e-8)),
        Task('test_ckpt', 'Task (checkpoint interval)', 2, 'checkpoint_interval',
             visible=(
            Case('60 s checkpoints, 50,000 h per-GPU MTBF, 16,384 GPUs', args=(60.0, 5e4, 16384),
                 hint='cluster MTBF = GPU MTBF / GPUs (in seconds); Young: sqrt(2 * C * MTBF)',
                 expected={'cluster_mtbf_s': 10986.328125, 'interval_s': 1148.1983169296147, 'waste': 0.10451156235874894}),
            Case('10 s in-memory checkpoints on the same cluster', args=(10.0, 5e4, 16384),
                 hint='waste = C / interval + interval / (2 * MTBF): writing checkpoints plus work redone after a failure',
                 expected={'cluster_mtbf_s': 10986.328125, 'interval_s': 468.75, 'waste': 0.042666666666666665}),
             ),
             hidden=_ckpt_case, n_hidden=6, encode=pick_keys(('cluster_mtbf_s', 'interval_s', 'waste')), compare=approx(rel=1e-5)),
    ),
)
