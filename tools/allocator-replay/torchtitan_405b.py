"""The last rank of torchtitan's Llama 3.1 405B 1F1B record (TP 8 + SP, PP 8, FSDP2 dp 8 without
reshard under PP, full AC, float8 linears with float8 all-gather, mbs 4 x 8192, 8 micro-batches,
15 layers on the last stage) as a coarse request sequence, replayed through allocator.py.
Streams: 0 compute, 1 FSDP all-gather, 2 FSDP reduce-scatter."""
import sys
from allocator import Tracker

h, f, V, tp, dp, m, L = 16384, 53248, 128256, 8, 8, 8, 15
T = 4 * 8192  # tokens per micro-batch
Tsp = T // tp
q = 16384 // tp  # local q width
kv = 1024 // tp
fl = f // tp
Vl = V // tp
GB = 1e9


def block_params(l):
    return [(f"b{l}.wq", h * q), (f"b{l}.wk", h * kv), (f"b{l}.wv", h * kv), (f"b{l}.wo", q * h),
            (f"b{l}.w1", h * fl), (f"b{l}.w3", h * fl), (f"b{l}.w2", fl * h), (f"b{l}.n1", h), (f"b{l}.n2", h)]


groups = {l: block_params(l) for l in range(L)}
groups["root"] = [("norm", h), ("output", h * Vl)]
params = [p for g in groups.values() for p in g]
P = sum(e for _, e in params)


def unsharded_bytes(name, e):
    return e * (1 if name.split(".")[-1].startswith("w") else 2)  # float8 linears, bf16 rest


def run(steps=3, expandable=False, moments_first=False, verbose=False):
    t = Tracker(expandable)
    for n, e in params:  # fp32 shards (FSDP's padded sharded storage)
        t.new("S." + n, 4 * e // dp)
    for i in range(m):  # receive buffers, one per micro-batch, kept
        t.new(f"recv{i}", 2 * Tsp * h)
    if moments_first:
        for n, e in params:
            t.new("M1." + n, 4 * e // dp); t.new("M2." + n, 4 * e // dp)
    have_state = moments_first
    out = []
    for step in range(steps):
        # zero_grad (torchtitan train.py calls it before the forward): the sharded grads go
        t.drop_prefix("RSO.")
        # clear_runtime_states: output chunks and the input grads left in the receive buffers
        t.drop_prefix("outchunk"); t.drop_prefix("ingrad")
        gathered = set()
        accumulated = set()

        def gather(g):
            if g in gathered:
                return
            t.new(f"AG.{g}", sum(unsharded_bytes(n, e) for n, e in groups[g]), 1)
            for n, e in groups[g]:
                t.new("U." + n, unsharded_bytes(n, e))
            t.drop(f"AG.{g}")
            gathered.add(g)

        def block_fwd(l, i, keep_input):
            # full AC: the block keeps its input (the previous block's output; block 0: recv buffer)
            t.new("x.ag", 2 * T * h)           # SP all-gather of the normed input
            t.new("x.q", 2 * T * q); t.new("x.k", 2 * T * kv); t.new("x.v", 2 * T * kv)
            t.drop("x.ag")
            t.new("x.kr", 2 * T * q); t.new("x.vr", 2 * T * q)  # repeat_kv
            t.new("x.att", 2 * T * q); t.new("x.lse", 4 * 4 * (128 // tp) * 8192)
            t.drop("x.q", "x.k", "x.v", "x.kr", "x.vr")
            t.new("x.wo", 2 * T * h); t.drop("x.att", "x.lse")
            t.new("x.h", 2 * Tsp * h); t.drop("x.wo")  # reduce-scatter + residual
            t.new("x.ag", 2 * T * h)
            t.new("x.w1", 2 * T * fl); t.new("x.w3", 2 * T * fl); t.drop("x.ag")
            t.new("x.sw", 2 * T * fl); t.drop("x.w1", "x.w3")
            t.new("x.w2", 2 * T * h); t.drop("x.sw")
            t.new(f"a{i}.{l + 1}", 2 * Tsp * h); t.drop("x.w2", "x.h")

        def block_bwd(l, i, first, last):
            # recompute the block (its transients), then its backward
            t.new("r.ag", 2 * T * h); t.new("r.q", 2 * T * q); t.new("r.kr", 2 * T * q); t.new("r.vr", 2 * T * q)
            t.new("r.att", 2 * T * q); t.new("r.ag2", 2 * T * h); t.new("r.w1", 2 * T * fl); t.new("r.w3", 2 * T * fl)
            t.new("r.sw", 2 * T * fl)
            # MLP backward
            t.new("g.w2in", 2 * T * h)
            t.new("g.sw", 2 * T * fl); t.drop("g.w2in")
            wgrad(f"b{l}.w2", first)
            t.new("g.w1", 2 * T * fl); t.new("g.w3", 2 * T * fl); t.drop("g.sw", "r.sw")
            wgrad(f"b{l}.w1", first); wgrad(f"b{l}.w3", first)
            t.new("g.x", 2 * T * h); t.drop("g.w1", "g.w3", "r.w1", "r.w3", "r.ag2")
            t.new("g.xs", 2 * Tsp * h); t.drop("g.x")
            # attention backward
            t.new("g.att", 2 * T * q); wgrad(f"b{l}.wo", first)
            t.new("g.q", 2 * T * q); t.new("g.k", 2 * T * q); t.new("g.v", 2 * T * q); t.drop("g.att", "r.att")
            wgrad(f"b{l}.wq", first); wgrad(f"b{l}.wk", first); wgrad(f"b{l}.wv", first)
            t.new("g.x", 2 * T * h); t.drop("g.q", "g.k", "g.v", "r.q", "r.kr", "r.vr", "r.ag")
            t.new("g.in", 2 * Tsp * h); t.drop("g.x", "g.xs")
            wgrad(f"b{l}.n1", first); wgrad(f"b{l}.n2", first)
            t.drop(f"a{i}.{l + 1}")
            t.drop("g.out"); t.live["g.out"] = t.live.pop("g.in")
            if last:
                reduce(l)

        def wgrad(n, first):
            e = dict(params)[n]
            t.new("wg.bf16", 2 * e)
            if n not in accumulated:
                t.new("A." + n, 4 * e); accumulated.add(n)  # to_accumulated_grad_if_needed
            t.drop("wg.bf16")

        rs_state = []

        def reduce(g):
            numel = sum(e for _, e in groups[g])
            t.new(f"RSI.{g}", 4 * numel)
            for n, e in groups[g]:
                t.drop("A." + n)
            while rs_state:
                t.drop(rs_state.pop())
            rs_state.append(f"RSI.{g}")
            t.new(f"RSO.{g}", 4 * numel // dp, 2)
            for n, e in groups[g]:
                t.drop("U." + n)

        for i in range(m):
            # forward i
            gather("root")
            for l in range(L):
                gather(l)
                block_fwd(l, i, True)
            t.new("o.ag", 2 * T * h)  # the output layer's gathered (saved) input
            t.new(f"outchunk{i}", 2 * T * Vl)
            # loss_parallel: fp32 copies of the local logits, 16 bytes per logit at the backward's peak
            t.new("l.f32", 4 * T * Vl); t.new("l.lsm", 4 * T * Vl); t.drop("l.f32")
            # backward i
            first, last = i == 0, i == m - 1
            t.new("l.g1", 4 * T * Vl); t.new("l.g2", 4 * T * Vl); t.new("l.g3", 4 * T * Vl)
            t.drop("l.lsm", "l.g1", "l.g2")
            t.new("l.gb", 2 * T * Vl); t.drop("l.g3")
            wgrad("output", first)
            t.new("g.out", 2 * Tsp * h); t.drop("l.gb", "o.ag")
            wgrad("norm", first)
            for l in reversed(range(L)):
                block_bwd(l, i, first, last)
            t.live[f"ingrad{i}"] = t.live.pop("g.out")  # the receive buffer's .grad
            if last:
                reduce("root")
                while rs_state:
                    t.drop(rs_state.pop())
        # the step's merged output, after the last backward
        t.new("merged", m * 2 * T * Vl); t.drop("merged")
        if not have_state:
            for n, e in params:
                t.new("M1." + n, 4 * e // dp); t.new("M2." + n, 4 * e // dp)
            have_state = True
        out.append((t.a.max_allocated / 2**30, t.a.max_reserved / 2**30))
    return out


if __name__ == "__main__":
    for exp in (False, True):
        for mf in (False, True):
            r = run(expandable=exp, moments_first=mf)
            a, res = r[-1]
            print(f"expandable={exp!s:5} moments_first={mf!s:5}: allocated {a:5.1f} GiB, reserved {res:5.1f} GiB, "
                  f"cache {res - a:5.1f} GiB; per step " + ", ".join(f"{x[1]:.1f}" for x in r))
