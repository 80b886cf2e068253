"""measure.py's GPT step (autocast bf16, fp32 parameters, fused AdamW, tied LM head) as a sequence
of allocations and frees, replayed through allocator.py; compared with memory.json."""
import json
import sys

from allocator import Tracker


def run(row, steps=4, hooks=None, moments_first=False):
    """moments_first: AdamW's moments created before the first step (torch.optim creates them in
    the first step(), after the backward): what the allocator share is without that late state."""
    L, h, heads, s, b, V = row["layers"], row["hidden"], row["heads"], row["seq"], row["micro_batch"], row["vocab"]
    rec = row["recompute"]
    exp = row["expandable_segments"]
    T = b * s
    t = Tracker(exp)
    # parameters (fp32), in module order
    params = [("embed", V * h), ("pos", s * h)]
    for l in range(L):
        params += [(f"b{l}.ln1w", h), (f"b{l}.ln1b", h), (f"b{l}.qkvW", 3 * h * h), (f"b{l}.qkvb", 3 * h),
                   (f"b{l}.projW", h * h), (f"b{l}.projb", h), (f"b{l}.ln2w", h), (f"b{l}.ln2b", h),
                   (f"b{l}.upW", 4 * h * h), (f"b{l}.upb", 4 * h), (f"b{l}.downW", 4 * h * h), (f"b{l}.downb", h)]
    params += [("lnfw", h), ("lnfb", h)]
    for n, e in params:
        t.new("P." + n, 4 * e)
    t.new("tokens", 8 * T)
    H = hooks(t, row, params) if hooks else None
    hk = (lambda name, *a: getattr(H, name)(*a)) if H else (lambda name, *a: None)
    state = moments_first
    ws = False
    if moments_first:
        for n, e in params:
            t.new("M1." + n, 4 * e); t.new("M2." + n, 4 * e); t.new("step." + n, 4)

    def cast_w(l, name, e):
        t.new(f"C.b{l}.{name}", 2 * e)

    def block_fwd(l, keep):
        # x_in is alive (named X{l}); returns; saved tensors get prefix S{l}.
        nonlocal ws
        t.new(f"T.ln1", 4 * T * h); t.new(f"S{l}.stat1", 8 * T)
        cast_w(l, "qkvW", 3 * h * h); cast_w(l, "qkvb", 3 * h)
        t.new(f"S{l}.ln1c", 2 * T * h); t.drop("T.ln1")
        if not ws:
            t.new("workspace", 32 << 20); ws = True
        t.new(f"S{l}.qkv", 6 * T * h)
        t.new(f"S{l}.att", 2 * T * h); t.new(f"S{l}.lse", 4 * b * heads * s)
        cast_w(l, "projW", h * h); cast_w(l, "projb", h)
        t.new("T.proj", 2 * T * h)
        t.new(f"X{l}m", 4 * T * h); t.drop("T.proj")
        t.new("T.ln2", 4 * T * h); t.new(f"S{l}.stat2", 8 * T)
        cast_w(l, "upW", 4 * h * h); cast_w(l, "upb", 4 * h)
        t.new(f"S{l}.ln2c", 2 * T * h); t.drop("T.ln2")
        t.new(f"S{l}.up", 8 * T * h)
        t.new(f"S{l}.gelu", 8 * T * h)
        cast_w(l, "downW", 4 * h * h); cast_w(l, "downb", h)
        t.new("T.down", 2 * T * h)
        t.new(f"X{l + 1}", 4 * T * h); t.drop("T.down")
        if not keep:  # checkpoint: drop everything saved, keep casts in the autocast cache
            t.drop_prefix(f"S{l}.")
            t.drop(f"X{l}m")

    def grad(name, e):
        if ("G." + name) in t.live:
            t.new("T.g", 4 * e); t.drop("T.g")
        else:
            t.new("G." + name, 4 * e)

    def block_bwd(l):
        # incoming: "D" fp32 4Th (grad wrt X{l+1})
        t.new("T.gd", 2 * T * h)  # cast of grad to bf16 for down
        t.new("T.gg", 8 * T * h)  # down grad input
        t.new("T.wb", 2 * 4 * h * h); grad(f"b{l}.downW", 4 * h * h); t.drop("T.wb"); grad(f"b{l}.downb", h)
        t.drop("T.gd", f"S{l}.gelu", f"C.b{l}.downW", f"C.b{l}.downb")
        t.new("T.gu", 8 * T * h); t.drop("T.gg", f"S{l}.up")
        t.new("T.gl2", 2 * T * h)
        t.new("T.wb", 2 * 16 * h * h // 4); grad(f"b{l}.upW", 4 * h * h); t.drop("T.wb"); grad(f"b{l}.upb", 4 * h)
        t.drop("T.gu", f"S{l}.ln2c", f"C.b{l}.upW", f"C.b{l}.upb")
        t.new("T.gl2f", 4 * T * h); t.drop("T.gl2")
        t.new("T.gx", 4 * T * h); grad(f"b{l}.ln2w", h); grad(f"b{l}.ln2b", h)
        t.drop("T.gl2f", f"X{l}m", f"S{l}.stat2")
        t.new("D2", 4 * T * h); t.drop("T.gx", "D")  # D + ln2 grad
        t.new("T.gp", 2 * T * h)  # cast for proj
        t.new("T.ga", 2 * T * h)
        t.new("T.wb", 2 * h * h); grad(f"b{l}.projW", h * h); t.drop("T.wb"); grad(f"b{l}.projb", h)
        t.drop("T.gp", f"C.b{l}.projW", f"C.b{l}.projb")
        t.new("T.dq", 2 * T * h); t.new("T.dk", 2 * T * h); t.new("T.dv", 2 * T * h)
        t.drop("T.ga", f"S{l}.att", f"S{l}.lse")
        t.new("T.dqkv", 6 * T * h); t.drop("T.dq", "T.dk", "T.dv", f"S{l}.qkv")
        t.new("T.gl1", 2 * T * h)
        t.new("T.wb", 2 * 3 * h * h); grad(f"b{l}.qkvW", 3 * h * h); t.drop("T.wb"); grad(f"b{l}.qkvb", 3 * h)
        t.drop("T.dqkv", f"S{l}.ln1c", f"C.b{l}.qkvW", f"C.b{l}.qkvb")
        t.new("T.gl1f", 4 * T * h); t.drop("T.gl1")
        t.new("T.gx", 4 * T * h); grad(f"b{l}.ln1w", h); grad(f"b{l}.ln1b", h)
        t.drop("T.gl1f", f"S{l}.stat1")
        t.new("D", 4 * T * h); t.drop("T.gx", "D2", f"X{l}")

    peaks = []
    for step in range(steps):
        hk("pre_fwd", "root")
        t.new("T.emb", 4 * T * h)
        t.new("X0", 4 * T * h); t.drop("T.emb")
        for l in range(L):
            hk("pre_fwd", l)
            block_fwd(l, keep=not rec)
            hk("post_fwd", l)
        t.new("T.lnf", 4 * T * h); t.new("S.statf", 8 * T)
        t.new("C.embed", 2 * V * h)
        t.new("S.lnfc", 2 * T * h); t.drop("T.lnf")
        t.new("logits", 2 * T * V)
        t.new("T.f32", 4 * T * V)
        t.new("S.lsm", 4 * T * V); t.drop("T.f32")
        t.new("loss", 4)
        if rec:  # autocast exit: the block casts, saved by nothing, are freed
            t.drop_prefix("C.b")
        # backward
        t.new("T.nll", 4 * T * V)
        t.new("T.glsm", 4 * T * V); t.drop("T.nll", "S.lsm")
        t.new("T.glog", 2 * T * V); t.drop("T.glsm")
        t.new("T.gin", 2 * T * h)
        t.new("T.gw", 2 * V * h); t.drop("T.glog", "S.lnfc", "C.embed")
        t.new("B.embed", 4 * V * h); t.drop("T.gw")  # held in the input buffer until the embedding's grad
        t.new("T.ginf", 4 * T * h); t.drop("T.gin")
        t.new("D", 4 * T * h); grad("lnfw", h); grad("lnfb", h); t.drop("T.ginf", "S.statf", f"X{L}")
        for l in reversed(range(L)):
            if rec:
                block_fwd(l, keep=True)
                t.drop(f"X{l + 1}")  # the recomputed output, not needed
            hk("pre_bwd", l)
            block_bwd(l)
            hk("post_bwd", l)
        # embedding + positions
        t.new("T.gpos", 4 * s * h); grad("pos", s * h); t.drop("T.gpos")
        t.new("T.gemb", 4 * V * h)
        if "G.embed" in t.live:
            t.new("T.sum", 4 * V * h); t.drop("T.sum")
        else:
            t.new("G.embed", 4 * V * h)
        t.drop("T.gemb", "B.embed", "D", "logits", "loss")
        hk("post_bwd", "root")
        # optimizer (fused AdamW): first step creates the moments
        if not state:
            for n, e in params:
                t.new("M1." + n, 4 * e); t.new("M2." + n, 4 * e); t.new("step." + n, 4)
            state = True
        peaks.append((t.a.max_allocated, t.a.max_reserved))
        t.drop_prefix("G.")
        hk("zero_grad")
    return t.a.max_allocated, t.a.max_reserved, peaks


if __name__ == "__main__":
    # python3 gpt_step.py memory.json [--moments-first]
    d = json.load(open(sys.argv[1]))
    first = "--moments-first" in sys.argv[2:]
    for r in d["runs"]:
        if r["fsdp2"]:
            continue
        a, res, peaks = run(r, moments_first=first)
        ma, mr = r["max_memory_allocated_bytes"], r["max_memory_reserved_bytes"]
        print(f"{r['name']:28s} alloc {a/1e6:8.0f} vs {ma/1e6:8.0f} ({100*(a-ma)/ma:+5.1f}%)  "
              f"res-alloc {(res-a)/1e6:6.0f} vs {(mr-ma)/1e6:6.0f}  res {100*(res-mr)/mr:+5.1f}%  "
              + " ".join(f"{(p[1])/1e6:.0f}" for p in peaks))
