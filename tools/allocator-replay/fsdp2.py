"""FSDP2 on one GPU (measure.py: fully_shard on each block and the root, no MixedPrecisionPolicy:
fp32 all-gathers) as hooks on gpt_step.run. Streams: 0 default, 1 all-gather, 2 reduce-scatter."""
import json
import sys
import gpt_step as gpt

class Fsdp:
    def __init__(self, t, row, params, ag_stream=1, rs_stream=2, prefetch=True):
        self.t, self.ag_stream, self.rs_stream, self.prefetch = t, ag_stream, rs_stream, prefetch
        self.groups = {"root": [p for p in params if not p[0].startswith("b")]}
        for n, e in params:
            if n.startswith("b"):
                self.groups.setdefault(int(n[1:n.index(".")]), []).append((n, e))
        self.ag = []  # live all-gather outputs (at most 2)
        self.rsi = None
        self.gathered = set()
        self.L = row["layers"]
    def numel(self, g): return sum(e for _, e in self.groups[g])
    def gather(self, g):
        if g in self.gathered: return
        t = self.t
        self.n = getattr(self, "n", 0) + 1
        t.new(f"AG.{g}.{self.n}", 4*self.numel(g), self.ag_stream)
        self.ag.append(f"AG.{g}.{self.n}")
        while len(self.ag) > self.keep: t.drop(self.ag.pop(0))
        for n, e in self.groups[g]: t.new(f"U.{n}", 4*e)
        self.gathered.add(g)
    def reshard(self, g):
        if g not in self.gathered: return
        for n, e in self.groups[g]: self.t.drop(f"U.{n}")
        self.gathered.discard(g)
    keep = 1
    def pre_fwd(self, g): self.gather(g)
    def post_fwd(self, g):
        self.reshard(g)
        if g == self.L - 1:  # the root's post-forward frees the all-gather state
            while self.ag: self.t.drop(self.ag.pop(0))
    def pre_bwd(self, g):
        self.keep = 2
        self.gather(g)
        if self.prefetch and g > 0: self.gather(g - 1)
    def post_bwd(self, g):
        t = self.t
        t.new(f"RSI.{g}", 4*self.numel(g))
        for n, e in self.groups[g]:
            if f"G.{n}" in t.live: t.drop(f"G.{n}")
        if self.rsi: t.drop(self.rsi)
        self.rsi = f"RSI.{g}"
        t.new(f"RSO.{g}", 4*self.numel(g), self.rs_stream)
        self.reshard(g)
        if g == "root":  # the root's final callback clears the reduce-scatter state
            t.drop(self.rsi); self.rsi = None
            while self.ag: t.drop(self.ag.pop(0))
            self.keep = 1
    def zero_grad(self):
        self.t.drop_prefix("RSO.")

if __name__ == "__main__":
    d = json.load(open(sys.argv[1]))
    for r in d["runs"]:
        if not r["fsdp2"]: continue
        for label, kw in (("AG+RS streams", {}), ("RS on default stream", {"rs_stream": 0}), ("all default", {"rs_stream": 0, "ag_stream": 0})):
            a, res, peaks = gpt.run(r, hooks=lambda t, row, p: Fsdp(t, row, p, **kw))
            ma, mr = r["max_memory_allocated_bytes"], r["max_memory_reserved_bytes"]
            print(f"{r['name']:24s} {label:22s} alloc {a/1e6:7.0f} vs {ma/1e6:7.0f} ({100*(a-ma)/ma:+5.1f}%) res-alloc {(res-a)/1e6:6.0f} vs {(mr-ma)/1e6:6.0f} res {100*(res-mr)/mr:+5.1f}%")
