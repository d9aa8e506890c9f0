"""Wrong-but-plausible engines for `autograder validate`: each redefines make_engine around one
mistake a learner makes, and each must fail its milestone's task (docs/AUTHORING.md, Task.wrong)."""

LEAK = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(PagedEngine):
        def release(self, req):
            req.blocks = []                      # forgets the blocks instead of freeing them
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

RESERVE = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(PagedEngine):
        def schedule(self):
            plan = super().schedule()
            for req, n in plan:                  # reserves prompt + max_new_tokens up front, like the naive engine
                self.grow(req, len(req.prompt) + req.max_new_tokens)
            return plan
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

POSITION = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(PagedEngine):
        def chunk(self, req, n):
            c = super().chunk(req, n)
            c.start = max(0, c.start - 1) if n == 1 else c.start   # decode at the wrong position
            return c
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

ONE_AT_A_TIME = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(BatchingEngine):
        max_running = 1
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

LIFO = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(BatchingEngine):
        def schedule(self):
            self.waiting.rotate(1)               # serves the newest arrival first
            return super().schedule()
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

STALE_PREEMPT = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(BatchingEngine):
        def preempt(self, req):
            computed = req.num_computed
            super().preempt(req)
            req.num_computed = computed          # keeps claiming the freed positions
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

NO_PREEMPT = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(BatchingEngine):
        def grow_or_preempt(self, req, positions, plan):
            if not self.grow(req, positions):
                raise MemoryError("out of KV blocks")
            return True
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

WHOLE_PREFILL = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(ChunkedPrefixEngine):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.token_budget = None             # ignores the token budget
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

NO_SHARING = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(ChunkedPrefixEngine):
        def index_full_blocks(self, req):
            pass                                 # never offers its blocks for sharing
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

COW_NO_COPY = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(ChunkedPrefixEngine):
        def copy_on_write(self, req, index):
            old, new = req.blocks[index], self.allocator.allocate()
            req.blocks[index] = new              # a fresh block, but its keys and values are not copied
            self.drop(old)
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

NO_REFCOUNT = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(ChunkedPrefixEngine):
        def drop(self, block):
            while self.allocator.refcount[block] > 0:   # frees a shared block while others still read it
                self.allocator.release(block)
            self.by_prefix.pop(self.prefix_of.pop(block, None), None)
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

ACCEPT_ALL = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(SpeculativeEngine):
        def propose(self, reqs, ks):
            proposals = super().propose(reqs, ks)
            for p in proposals:
                p[:] = [(t + 1) % 64 for t in p]  # drafts that are always wrong, checked below by nobody
            return proposals
        @torch.no_grad()
        def step(self):
            out = StepOutput()
            plan = self.schedule()
            spec = [(r, n) for r, n in plan if n > 1 and self.decoding(r)]
            drafts = dict(zip([r.rid for r, _ in spec], self.propose([r for r, _ in spec], [n - 1 for _, n in spec])))
            chunks = [Chunk(r.tokens[r.num_computed:] + drafts[r.rid], r.num_computed, r.blocks, logits=n)
                      if r.rid in drafts else self.chunk(r, n) for r, n in plan]
            for (r, n), c, logits in zip(plan, chunks, forward_packed(self.model, self.cache, chunks)):
                if r.rid not in drafts:
                    self.advance(r, c, logits, out)
                    continue
                r.num_computed += len(drafts[r.rid])      # accepts every drafted token unverified
                self.emit(r, drafts[r.rid], out)
            return out
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

NEVER_DRAFTS = """\
def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    class Wrong(SpeculativeEngine):
        K = 0
    return Wrong(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
"""

MILESTONE_1 = (LEAK, RESERVE, POSITION,)

MILESTONE_2 = (ONE_AT_A_TIME, LIFO, STALE_PREEMPT, NO_PREEMPT,)

MILESTONE_3 = (WHOLE_PREFILL, NO_SHARING, COW_NO_COPY, NO_REFCOUNT,)

MILESTONE_4 = (ACCEPT_ALL, NEVER_DRAFTS,)
