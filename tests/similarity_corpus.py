"""Lab 3 submissions for the similarity report (tests/grading/similarity/test_similarity.py, benchmarks/bench_similarity.py):
four honest students who solved the tasks independently, each in their own way; renamed copies of two
of them; and two who pasted the course's reference code under other names.

A student's answer is a list of bodies per answer cell: each replaces, in order, one
`# YOUR CODE HERE` / `raise NotImplementedError()` stub of the released cell, at the stub's indent.
"""
from __future__ import annotations

import copy
import inspect
import json
import re
import shutil
import textwrap
from pathlib import Path

from paths import ROOT

LAB = "lab3-kv-cache"
NB = f"{LAB}.ipynb"
STUB = re.compile(r"^( *)# YOUR CODE HERE\n\1raise NotImplementedError\(\)", re.M)

HONEST = {
    "hana": {
        "impl_kv_size": ["""
kv_heads_bytes = 2 * n_layers * n_kv_heads * head_dim * bytes_per_elem
full_bytes = 2 * n_layers * n_heads * head_dim * bytes_per_elem
return {"per_token": kv_heads_bytes, "per_session": kv_heads_bytes * seq_len,
        "per_token_mha": full_bytes, "per_session_mha": full_bytes * seq_len}"""],
        "impl_prefill": ["""
old_k, old_v = self.keys[layer], self.values[layer]
if old_k is not None:
    k = torch.cat((old_k, k), dim=2)
    v = torch.cat((old_v, v), dim=2)
self.keys[layer] = k
self.values[layer] = v
return k, v""", """
offset = cache.length
n = tokens.shape[1]
pos = torch.arange(offset, offset + n, device=tokens.device)
h = model.embed(tokens)
for i in range(len(model.layers)):
    blk = model.layers[i]
    normed = blk.input_layernorm(h)
    q, k, v = blk.self_attn.project_qkv(normed, pos)
    keys, vals = cache.append(i, k, v)
    h = h + blk.self_attn.attend(q, keys, vals, q_start=offset)
    h = h + blk.mlp(blk.post_attention_layernorm(h))
h = model.norm(h)
return model.lm_head(h)"""],
        "impl_generate": ["""
logits, cache = prefill(model, prompt)
step_logits = logits[:, -1, :]
out_tokens = []
out_logits = []
while len(out_tokens) < n_new:
    token = torch.argmax(step_logits, dim=-1)
    out_tokens.append(token)
    out_logits.append(step_logits)
    if len(out_tokens) == n_new:
        break
    step_logits = decode_step(model, token, cache)
if n_new == 0:
    return prompt[:, :0], logits[:, :0]
return torch.stack(out_tokens, 1), torch.stack(out_logits, 1)"""],
        "impl_allocator": ["""
if rid in self.tables:
    raise ValueError("duplicate request")
self.tables[rid] = []
self.lengths[rid] = 0""", """
have = len(self.tables[rid]) * self.block_size
want = self.lengths[rid] + n_tokens
extra = 0
while have + extra * self.block_size < want:
    extra += 1
if extra > len(self.free_blocks):
    raise MemoryError("out of blocks")
for _ in range(extra):
    self.tables[rid].append(self.free_blocks.pop(0))
self.lengths[rid] = want""", """
for block in self.tables[rid]:
    self.free_blocks.append(block)
del self.tables[rid]
del self.lengths[rid]"""],
        "impl_fragmentation": ["""
if not lengths:
    return {"paged_waste_frac": 0.0, "contiguous_waste_frac": 0.0}
used = 0
paged = 0
for n in lengths:
    used += n
    blocks = -(-n // block_size)
    paged += blocks * block_size
contiguous = reserve_len * len(lengths)
return {"paged_waste_frac": 1 - used / paged if paged else 0.0,
        "contiguous_waste_frac": 1 - used / contiguous}"""],
    },
    "ivan": {
        "impl_kv_size": ["""
def per(heads):
    return 2 * n_layers * heads * head_dim * bytes_per_elem
gqa, mha = per(n_kv_heads), per(n_heads)
return dict(per_token=gqa, per_session=gqa * seq_len, per_token_mha=mha, per_session_mha=mha * seq_len)"""],
        "impl_prefill": ["""
def grow(store, new):
    old = store[layer]
    store[layer] = new if old is None else torch.cat([old, new], dim=-2)
    return store[layer]
return grow(self.keys, k), grow(self.values, v)""", """
start = cache.length
length = tokens.size(1)
positions = start + torch.arange(length, device=tokens.device)
hidden = model.embed(tokens)
for layer_index, layer in enumerate(model.layers):
    attn = layer.self_attn
    q, k, v = attn.project_qkv(layer.input_layernorm(hidden), positions)
    all_k, all_v = cache.append(layer_index, k, v)
    attended = attn.attend(q, all_k, all_v, q_start=start)
    hidden = hidden + attended
    mlp_out = layer.mlp(layer.post_attention_layernorm(hidden))
    hidden = hidden + mlp_out
return model.lm_head(model.norm(hidden))"""],
        "impl_generate": ["""
logits, cache = prefill(model, prompt)
nxt_logits = logits[:, -1]
picked, scores = [], []
for _ in range(n_new):
    scores.append(nxt_logits)
    picked.append(nxt_logits.argmax(-1))
    if len(picked) < n_new:
        nxt_logits = decode_step(model, picked[-1], cache)
tokens = torch.stack(picked, dim=1) if picked else prompt[:, :0]
all_logits = torch.stack(scores, dim=1) if scores else logits[:, :0]
return tokens, all_logits"""],
        "impl_allocator": ["""
assert rid not in self.tables, f"{rid} exists"
self.tables.setdefault(rid, [])
self.lengths.setdefault(rid, 0)""", """
total = self.lengths[rid] + n_tokens
blocks_wanted = math.ceil(total / self.block_size)
missing = blocks_wanted - len(self.tables[rid])
if missing > len(self.free_blocks):
    raise MemoryError(rid)
taken, self.free_blocks = self.free_blocks[:missing], self.free_blocks[missing:]
self.tables[rid] += taken
self.lengths[rid] = total""", """
self.free_blocks = self.tables.pop(rid) + self.free_blocks
self.lengths.pop(rid)"""],
        "impl_fragmentation": ["""
n = len(lengths)
if n == 0:
    return {"paged_waste_frac": 0.0, "contiguous_waste_frac": 0.0}
real = sum(lengths)
paged_slots = sum(math.ceil(x / block_size) for x in lengths) * block_size
contiguous_slots = n * reserve_len
paged_frac = (paged_slots - real) / paged_slots
contig_frac = (contiguous_slots - real) / contiguous_slots
return {"paged_waste_frac": paged_frac, "contiguous_waste_frac": contig_frac}"""],
    },
    "jo": {
        "impl_kv_size": ["""
elems_per_head = 2 * head_dim * bytes_per_elem * n_layers
result = {}
for suffix, heads in (("", n_kv_heads), ("_mha", n_heads)):
    result["per_token" + suffix] = elems_per_head * heads
    result["per_session" + suffix] = elems_per_head * heads * seq_len
return result"""],
        "impl_prefill": ["""
for store, new in ((self.keys, k), (self.values, v)):
    store[layer] = new if store[layer] is None else torch.cat((store[layer], new), dim=2)
return self.keys[layer], self.values[layer]""", """
first = cache.length
B, T = tokens.shape
where = torch.arange(T, device=tokens.device) + first
x = model.embed(tokens)
for i, block in enumerate(model.layers):
    residual = x
    q, k, v = block.self_attn.project_qkv(block.input_layernorm(x), where)
    k, v = cache.append(i, k, v)
    x = residual + block.self_attn.attend(q, k, v, q_start=first)
    residual = x
    x = residual + block.mlp(block.post_attention_layernorm(x))
out = model.lm_head(model.norm(x))
return out"""],
        "impl_generate": ["""
if n_new <= 0:
    logits = prefill(model, prompt)[0]
    return prompt[:, :0], logits[:, :0]
all_logits, cache = prefill(model, prompt)
current = all_logits[:, -1]
toks = torch.empty(prompt.shape[0], n_new, dtype=torch.long, device=prompt.device)
logs = torch.empty(prompt.shape[0], n_new, current.shape[-1], dtype=current.dtype, device=current.device)
for t in range(n_new):
    logs[:, t] = current
    toks[:, t] = current.argmax(dim=-1)
    if t < n_new - 1:
        current = decode_step(model, toks[:, t], cache)
return toks, logs"""],
        "impl_allocator": ["""
if rid in self.lengths:
    raise ValueError(rid)
self.lengths[rid] = 0
self.tables[rid] = list()""", """
size = self.block_size
now = self.lengths[rid] + n_tokens
need = (now + size - 1) // size
short = need - len(self.tables[rid])
if short > 0:
    if short > len(self.free_blocks):
        raise MemoryError("no room")
    grabbed = [self.free_blocks.pop() for _ in range(short)]
    self.tables[rid].extend(grabbed)
self.lengths[rid] = now""", """
blocks = self.tables.pop(rid)
self.lengths.pop(rid, None)
self.free_blocks += blocks"""],
        "impl_fragmentation": ["""
lengths = list(lengths)
used = sum(lengths)
paged = sum(((n + block_size - 1) // block_size) * block_size for n in lengths)
contig = reserve_len * len(lengths)
def frac(total):
    return (total - used) / total if total else 0.0
return {"paged_waste_frac": frac(paged), "contiguous_waste_frac": frac(contig)}"""],
    },
    "kai": {
        "impl_kv_size": ["""
import numpy as np
heads = np.array([n_kv_heads, n_heads])
per_tok = 2 * n_layers * head_dim * bytes_per_elem * heads
gqa_token, mha_token = (int(x) for x in per_tok)
return {"per_token": gqa_token, "per_token_mha": mha_token,
        "per_session": gqa_token * seq_len, "per_session_mha": mha_token * seq_len}"""],
        "impl_prefill": ["""
prev_k = self.keys[layer]
prev_v = self.values[layer]
self.keys[layer] = k if prev_k is None else torch.cat([prev_k, k], dim=2)
self.values[layer] = v if prev_v is None else torch.cat([prev_v, v], dim=2)
return self.keys[layer], self.values[layer]""", """
t0 = cache.length
pos = torch.arange(tokens.shape[-1], device=tokens.device).add(t0)
stream = model.embed(tokens)
layer_no = 0
for lyr in model.layers:
    a_in = lyr.input_layernorm(stream)
    qq, kk, vv = lyr.self_attn.project_qkv(a_in, pos)
    kk, vv = cache.append(layer_no, kk, vv)
    stream = stream + lyr.self_attn.attend(qq, kk, vv, q_start=t0)
    m_in = lyr.post_attention_layernorm(stream)
    stream = stream + lyr.mlp(m_in)
    layer_no += 1
normed = model.norm(stream)
return model.lm_head(normed)"""],
        "impl_generate": ["""
out, cache = prefill(model, prompt)
if n_new == 0:
    return prompt[:, :0], out[:, :0]
logit_rows = [out[:, -1]]
chosen = [logit_rows[0].argmax(dim=-1)]
while len(chosen) < n_new:
    logit_rows.append(decode_step(model, chosen[-1], cache))
    chosen.append(logit_rows[-1].argmax(dim=-1))
return torch.stack(chosen, dim=1), torch.stack(logit_rows, dim=1)"""],
        "impl_allocator": ["""
if rid in self.tables:
    raise ValueError(f"{rid} already there")
self.tables[rid] = []
self.lengths[rid] = 0""", """
free_count = len(self.free_blocks)
target = self.lengths[rid] + n_tokens
blocks_now = len(self.tables[rid])
import numpy as np
blocks_target = int(np.ceil(target / self.block_size))
if blocks_target - blocks_now > free_count:
    raise MemoryError
while len(self.tables[rid]) < blocks_target:
    self.tables[rid].append(self.free_blocks.pop())
self.lengths[rid] = target""", """
while self.tables[rid]:
    self.free_blocks.append(self.tables[rid].pop())
self.tables.pop(rid)
self.lengths.pop(rid)"""],
        "impl_fragmentation": ["""
import numpy as np
arr = np.asarray(lengths, dtype=float)
if arr.size == 0:
    return {"paged_waste_frac": 0.0, "contiguous_waste_frac": 0.0}
alloc_paged = np.ceil(arr / block_size) * block_size
paged = float((alloc_paged.sum() - arr.sum()) / alloc_paged.sum())
contiguous = float((reserve_len * arr.size - arr.sum()) / (reserve_len * arr.size))
return {"paged_waste_frac": paged, "contiguous_waste_frac": contiguous}"""],
    },
}


def renamed(answers: dict[str, list[str]], names: dict[str, str], note: str) -> dict[str, list[str]]:
    """A disguised copy: names replaced, a comment on every other line, spaces around operators changed,
    blank lines added."""
    out = {}
    for grade_id, bodies in answers.items():
        new = []
        for body in bodies:
            for old, name in names.items():
                body = re.sub(rf"\b{old}\b", name, body)
            lines = []
            for n, line in enumerate(body.split("\n")):
                line = line.replace(" = ", "  =  ").replace(", ", " , ")
                lines.append(f"{line}   # {note} {n}" if n % 2 and line.strip() and "\"" not in line else line)
                if n % 3 == 2:
                    lines.append("")
            new.append("\n".join(lines))
        out[grade_id] = new
    return out


COPIES = {
    "hana_copy": renamed(HONEST["hana"], {"kv_heads_bytes": "gqa_b", "full_bytes": "mha_b", "old_k": "prevK",
                                          "old_v": "prevV", "offset": "base", "pos": "where", "blk": "L",
                                          "normed": "hn", "h": "state", "step_logits": "lg", "out_tokens": "ts",
                                          "out_logits": "ls", "have": "cap", "want": "goal", "extra": "more",
                                          "used": "total_used", "paged": "alloc", "blocks": "nb"}, "step"),
    "jo_copy": renamed(HONEST["jo"], {"elems_per_head": "unit", "result": "answer", "store": "bucket",
                                      "first": "p0", "where": "idx", "residual": "skip", "block": "lay",
                                      "current": "cur", "toks": "ids", "logs": "scores", "size": "bs",
                                      "now": "after", "need": "required", "short": "lack", "grabbed": "got",
                                      "frac": "waste"}, "note"),
}
REORDERED = {"jo_copy"}                    # answer cells moved (fragmentation first, kv_size last)


def _library(*functions) -> str:
    return "\n\n".join(textwrap.dedent(inspect.getsource(f)) for f in functions)


def pasted() -> dict[str, dict[str, list[str]]]:
    """lee: the course library's fragmentation functions under new names; max: the solution notebook's
    allocator and generation, variables renamed."""
    from coursekit.calc import kvcache

    lib = _library(kvcache.blocks_needed, kvcache.contiguous_waste_tokens, kvcache.fragmentation_summary)
    for old, new in (("fragmentation_summary", "_summary"), ("blocks_needed", "_nblocks"),
                     ("contiguous_waste_tokens", "_contig"), ("paged_alloc", "pa"), ("contig_alloc", "ca")):
        lib = lib.replace(old, new)
    lee = {"impl_fragmentation": [lib + "\n\nreturn {key: value for key, value in "
                                  "_summary(lengths, block_size, reserve_len).items() if key.endswith('frac')}"]}
    solution = solution_bodies()
    max_ = renamed({k: solution[k] for k in ("impl_allocator", "impl_generate")},
                   {"new_length": "grown", "needed": "count", "last": "prev", "chosen_logits": "ls",
                    "nxt": "pick"}, "mine")
    return {"lee": lee, "max": max_}


def solution_bodies() -> dict[str, list[str]]:
    """The solution's code between each pair of markers, dedented (a student who pasted the solution)."""
    nb = json.loads((ROOT / "solutions" / LAB / NB).read_text())
    out = {}
    for cell in nb["cells"]:
        grade_id = (cell["metadata"].get("nbgrader") or {}).get("grade_id")
        source = "".join(cell["source"])
        found = re.findall(r"### BEGIN SOLUTION\n(.*?)\n *### END SOLUTION", source, re.S)
        if found and grade_id:
            out[grade_id] = [textwrap.dedent(body) for body in found]
    return out


def fill(starter: str, bodies: list[str]) -> str:
    """The released cell with its stubs replaced, in order, by `bodies` (extra stubs stay as released)."""
    left = list(bodies)

    def put(match):
        if not left:
            return match.group(0)
        return textwrap.indent(left.pop(0).strip("\n"), match.group(1))
    return STUB.sub(put, starter)


def notebook(release: dict, answers: dict[str, list[str]], reorder: bool = False) -> dict:
    nb = copy.deepcopy(release)
    for cell in nb["cells"]:
        grade_id = (cell["metadata"].get("nbgrader") or {}).get("grade_id")
        if grade_id in answers:
            cell["source"] = fill("".join(cell["source"]), answers[grade_id])
    if reorder:
        cells = nb["cells"]
        index = {(c["metadata"].get("nbgrader") or {}).get("grade_id"): i for i, c in enumerate(cells)}
        a, b = index["impl_kv_size"], index["impl_fragmentation"]
        cells[a], cells[b] = cells[b], cells[a]
    return nb


def everyone() -> dict[str, dict[str, list[str]]]:
    return {**HONEST, **COPIES, **pasted()}


def make_course(folder: Path, students: dict[str, dict] | None = None) -> Path:
    """A course root with Lab 3's solution and release, and submitted/<student>/<lab>/<lab>.ipynb."""
    course = folder / "course"
    (course / "solutions").mkdir(parents=True)
    shutil.copy(ROOT / "nbgrader_config.py", course)
    shutil.copytree(ROOT / "solutions" / LAB, course / "solutions" / LAB)
    shutil.copytree(ROOT / "labs" / LAB, course / "labs" / LAB)
    release = json.loads((course / "labs" / LAB / NB).read_text())
    for student, answers in (everyone() if students is None else students).items():
        path = course / "submitted" / student / LAB / NB
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps(notebook(release, answers, reorder=student in REORDERED)))
    return course
