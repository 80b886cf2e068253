"""The first pipeline stage of the SC21 paper's Figure 17 (Narayanan et al. 2021: GPT 145B, 80 layers,
hidden 12288, 96 heads, seq 2048, TP 8, PP 16, micro-batch 1, fp16, --DDP-impl local without
contiguous buffers, non-interleaved 1F1B; examples/sc21/run_figure_17.sh @ 6985e58938) as a request
sequence through allocator.py, read from Megatron-LM @ 6985e58938:

- parameters fp16, the fp16 optimizer's fp32 copies (megatron/optimizer/optimizer.py), apex FusedAdam's
  moments created in the first step();
- the fp16 .grad of each parameter allocated by its first backward (AccumulateGrad), a transient
  weight gradient for every later micro-batch (.grad += new);
- LocalDDP.allreduce_gradients without buffers (megatron/model/distributed.py): one flattened copy of
  all fp16 gradients, freed after the copy back;
- _copy_model_grads_to_main_grads: main_param.grad = model_param.main_grad.float(), then the fp16
  gradient freed, parameter by parameter; the fp32 gradients freed by the next zero_grad;
- forward_backward_pipelining_without_interleaving: min(p - rank - 1, m) warm-up forwards; the stage's
  output tensors kept until their backward (no deallocate_output_tensor in 2021);
- each layer's saved tensors in the 2021 code's order (the fused upper-triangular softmax keeps its
  fp16 output, the attention dropout its bool mask and output, the jit bias-dropout-add its bool
  masks, GeLUFunction its input), i.e. Korthikanti et al.'s sbh(10 + 24/t) + 5as^2b/t per layer.
All on one stream (the p2p and TP all-reduces run on NCCL's streams on tensors the compute stream
allocated). Prints allocated and reserved peaks per batch size."""
import sys
from allocator import Tracker

h, a, s, t, L, V = 12288, 96, 2048, 8, 5, 51200
MB = 1 << 20
sbh = s * h  # micro-batch 1


def params():
    ps = [("wemb", V // t * h), ("pemb", s * h)]
    for l in range(L):
        ps += [(f"{l}.ln1w", h), (f"{l}.ln1b", h), (f"{l}.qkvW", h * 3 * h // t), (f"{l}.qkvb", 3 * h // t),
               (f"{l}.dW", h // t * h), (f"{l}.db", h), (f"{l}.ln2w", h), (f"{l}.ln2b", h),
               (f"{l}.fc1W", h * 4 * h // t), (f"{l}.fc1b", 4 * h // t), (f"{l}.fc2W", 4 * h // t * h), (f"{l}.fc2b", h)]
    return ps


def run(m, recompute, steps=3, p=16, rank=0):
    tr = Tracker(False)
    ps = params()
    P = dict(ps)
    for n, e in ps:
        tr.new("W." + n, 2 * e)
    for n, e in ps:
        tr.new("F." + n, 4 * e)  # fp32 main params
    state = False
    grads = set()
    peaks = []

    def layer_fwd(l, i, keep):
        x = f"a{i}.{l}"  # layer input (alive)
        pre = f"s{i}.{l}."
        tr.new(pre + "ln1", 2 * sbh)
        tr.new(pre + "qkv", 6 * sbh // t)
        tr.new("T.scores", 2 * a // t * s * s)
        tr.new(pre + "probs", 2 * a // t * s * s); tr.drop("T.scores")
        tr.new(pre + "mask", a // t * s * s); tr.new(pre + "drop", 2 * a // t * s * s)
        tr.new("T.ctx", 2 * sbh // t); tr.new(pre + "ctx", 2 * sbh // t); tr.drop("T.ctx")
        tr.new("T.dense", 2 * sbh)
        tr.new(pre + "m1", sbh); tr.new(pre + "res1", 2 * sbh); tr.drop("T.dense")
        tr.new(pre + "ln2", 2 * sbh)
        tr.new(pre + "fc1", 8 * sbh // t); tr.new(pre + "gelu", 8 * sbh // t)
        tr.new("T.fc2", 2 * sbh)
        tr.new(pre + "m2", sbh); tr.new(f"a{i}.{l + 1}", 2 * sbh); tr.drop("T.fc2")
        if not keep:
            tr.drop_prefix(pre)

    def wgrad(n):
        if n in grads:
            tr.new("T.wg", 2 * P[n]); tr.drop("T.wg")
        else:
            tr.new("G." + n, 2 * P[n]); grads.add(n)

    def layer_bwd(l, i, recomputed):
        pre = f"s{i}.{l}."
        if recomputed:  # the checkpointed layer's forward again (its output kept to the end), then its backward
            layer_fwd(l, i, True)
        # grad of the layer output arrives as "g" (alive)
        tr.new("T.g1", 2 * sbh)  # through bias-dropout-add
        tr.new("T.ggelu", 8 * sbh // t); wgrad(f"{l}.fc2W"); wgrad(f"{l}.fc2b")
        tr.drop(pre + "gelu", pre + "m2")
        tr.new("T.gfc1", 8 * sbh // t); tr.drop("T.ggelu", pre + "fc1"); wgrad(f"{l}.fc1b")
        tr.new("T.gln2o", 2 * sbh); wgrad(f"{l}.fc1W"); tr.drop("T.gfc1")
        tr.new("T.gln2", 2 * sbh); tr.drop("T.gln2o", pre + "ln2"); wgrad(f"{l}.ln2w"); wgrad(f"{l}.ln2b")
        tr.new("T.gres1", 2 * sbh); tr.drop("T.gln2", "T.g1")
        tr.drop(pre + "res1")
        tr.new("T.gd", 2 * sbh); tr.drop(pre + "m1"); wgrad(f"{l}.db")
        tr.new("T.gctx", 2 * sbh // t); wgrad(f"{l}.dW"); tr.drop("T.gd", pre + "ctx")
        tr.new("T.gdrop", 2 * a // t * s * s); tr.new("T.gv", 2 * sbh // t); tr.drop("T.gctx")
        tr.new("T.gprobs", 2 * a // t * s * s); tr.drop("T.gdrop", pre + "drop", pre + "mask")
        tr.drop(pre + "probs")  # the softmax backward works in place on its output grad
        tr.new("T.gq", 2 * sbh // t); tr.new("T.gk", 2 * sbh // t); tr.drop("T.gprobs")
        tr.new("T.gqkv", 6 * sbh // t); tr.drop("T.gq", "T.gk", "T.gv"); wgrad(f"{l}.qkvb")
        tr.new("T.gln1o", 2 * sbh); wgrad(f"{l}.qkvW"); tr.drop("T.gqkv", pre + "qkv")
        tr.new("T.gx", 2 * sbh); tr.drop("T.gln1o", pre + "ln1"); wgrad(f"{l}.ln1w"); wgrad(f"{l}.ln1b")
        tr.drop(f"a{i}.{l}") if l > 0 else None
        tr.drop("g", "T.gres1"); tr.live["g"] = tr.live.pop("T.gx")
        if recomputed:
            tr.drop(f"a{i}.{l + 1}")

    def forward(i):
        tr.new("T.we", 2 * sbh); tr.new("T.pe", 2 * sbh); tr.new("T.sum", 2 * sbh); tr.drop("T.we", "T.pe")
        tr.new("T.tr", 2 * sbh); tr.drop("T.sum")  # [b, s, h] -> [s, b, h] contiguous
        tr.new(f"emask{i}", sbh); tr.new(f"a{i}.0", 2 * sbh); tr.drop("T.tr")
        for l in range(L):
            layer_fwd(l, i, not recompute)
        tr.live[f"out{i}"] = tr.live.pop(f"a{i}.{L}")  # output_tensors keeps it to its backward
        # the output tensor is kept in output_tensors (sent, not freed)

    def backward(i):
        tr.new("rg.chunk", 2 * sbh // t); tr.new("g", 2 * sbh); tr.drop("rg.chunk")  # recv + all-gather
        for l in reversed(range(L)):
            layer_bwd(l, i, recompute)
        tr.drop(f"emask{i}", f"a{i}.0", f"out{i}"); wgrad("wemb"); wgrad("pemb")
        tr.drop("g")

    for step in range(steps):
        tr.drop_prefix("MG.")  # zero_grad(set_to_none): the fp32 main gradients
        grads.clear()
        warm = min(p - rank - 1, m)
        order = [("f", i) for i in range(warm)]
        nf, nb = warm, 0
        for _ in range(m - warm):
            order += [("f", nf), ("b", nb)]; nf += 1; nb += 1
        order += [("b", j) for j in range(nb, m)]
        for kind, i in order:
            forward(i) if kind == "f" else backward(i)
        # LocalDDP.allreduce_gradients without buffers: one flattened fp16 copy
        tr.new("flat", sum(2 * P[n] for n in grads)); tr.drop("flat")
        # _copy_model_grads_to_main_grads, parameter by parameter
        for n, e in ps:
            tr.new("MG." + n, 4 * e); tr.drop("G." + n)
        if not state:  # apex FusedAdam creates its moments in the first step()
            for n, e in ps:
                tr.new("M1." + n, 4 * e); tr.new("M2." + n, 4 * e)
            state = True
        peaks.append((tr.a.max_allocated, tr.a.max_reserved))
    return peaks


if __name__ == "__main__":
    GiB = float(1 << 30)
    for rec in (False, True):
        for m in (int(x) for x in (sys.argv[1:] or ["4", "8", "16"])):
            pk = run(m, rec)
            al, rs = pk[-1]
            print(f"recompute={rec!s:5} batch {m:3}: allocated {al / GiB:5.1f} GiB, reserved {rs / GiB:5.1f} GiB, "
                  f"cache {(rs - al) / GiB:4.1f} GiB; reserved per step " + ", ".join(f"{x[1] / GiB:.1f}" for x in pk))
