#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes synthetic-gpt-1.3b-cost-model.json: a DynaPipe-format layer cost model computed from
formulas, so Stratex can ship a Planner example without any measured (third-party) profile.

The numbers are estimates, not measurements: a GPT-style layer (hidden 2048, 16 heads, FFN 8192,
vocabulary 50304) on a generic GPU with 150 TFLOP/s of dense bf16 peak.
- forward FLOPs per layer 24*b*s*h^2 + 4*b*s^2*h, at an efficiency that grows with the tokens in
  the micro-batch (0.6 * t / (t + 256)), plus a fixed 0.08 ms launch overhead;
- backward 1.9x the forward; selective recompute adds the attention core, full recompute a whole
  forward;
- stored activations after Korthikanti et al. 2022 (bytes): s*b*h*(34 + 5*a*s/h) without
  recompute, 34*s*b*h with selective, 2*s*b*h with full; transient peak adds the MLP intermediate
  and the attention scores;
- tensor parallelism divides compute and activations by tp (activations as 10 + 24/tp) and adds
  two all-reduces of b*s*h bf16 values per layer and pass at 150 GB/s.
Grid points whose peak exceeds 40000 MB are left out (DynaPipe's "OOM during profiling").
Deterministic: run it again and the file is byte for byte the same.
"""
import json

HIDDEN, HEADS, FFN, VOCAB = 2048, 16, 8192, 50304
PEAK_FLOPS = 150e12
ALLREDUCE_BYTES_PER_S = 150e9
MEMORY_MB = 40000
SEQLENS = [64, 128, 256, 512, 1024, 2048, 4096, 8192]
MAX_TOKENS = 131072


def efficiency(tokens):
    return 0.6 * tokens / (tokens + 256.0)


def layer_forward_ms(b, s, tp):
    flops = (24.0 * b * s * HIDDEN ** 2 + 4.0 * b * s * s * HIDDEN) / tp
    comm = 0.0 if tp == 1 else 2 * 2.0 * b * s * HIDDEN * 2 * (tp - 1) / tp / ALLREDUCE_BYTES_PER_S
    return flops / (efficiency(b * s / tp) * PEAK_FLOPS) * 1e3 + comm * 1e3 + 0.08


def attention_core_ms(b, s, tp):
    return 4.0 * b * s * s * HIDDEN / tp / (efficiency(b * s / tp) * PEAK_FLOPS) * 1e3


def stored_mb(b, s, tp, rc):
    sbh = s * b * HIDDEN
    if rc == "none":
        return sbh * (10 + 24.0 / tp + 5.0 * HEADS * s / (HIDDEN * tp)) / 1e6
    if rc == "selective":
        return sbh * (10 + 24.0 / tp) / 1e6
    return 2.0 * sbh / 1e6


def peak_mb(b, s, tp, rc):
    sbh = s * b * HIDDEN
    transient = (2.0 * sbh * FFN / HIDDEN + 2.0 * HEADS * s * s * b) / tp / 1e6
    if rc == "full":
        # While a layer's forward runs, its activations exist in full before being dropped.
        return stored_mb(b, s, tp, "none") + transient
    return stored_mb(b, s, tp, rc) + transient


def postprocess_ms(b, s, tp):
    flops = 2.0 * b * s * HIDDEN * VOCAB / tp
    return flops / (efficiency(b * s) * PEAK_FLOPS) * 1e3 + 0.05


def round2(x):
    return float("%.4f" % x)


def sub_model(tp, rc):
    timing = {"encoder|forward": {}, "encoder|backward": {}, "postprocess|forward": {}, "postprocess|backward": {}}
    stored = {"encoder": {}}
    peak = {"encoder": {}}
    for s in SEQLENS:
        rows = {key: [] for key in timing}
        stored_rows, peak_rows = [], []
        b = 1
        while b * s <= MAX_TOKENS:
            if peak_mb(b, s, tp, rc) > MEMORY_MB:
                break
            fw = layer_forward_ms(b, s, tp)
            bw = 1.9 * (fw - 0.08) + 0.1
            if rc == "selective":
                bw += attention_core_ms(b, s, tp)
            elif rc == "full":
                bw += fw
            post_fw = postprocess_ms(b, s, tp)
            post_bw = 2.0 * post_fw
            tokens = b * s
            for key, value in (("encoder|forward", fw), ("encoder|backward", bw),
                               ("postprocess|forward", post_fw), ("postprocess|backward", post_bw)):
                rows[key].append([b, round2(value), round2(tokens / value)])
            stored_rows.append([b, round2(stored_mb(b, s, tp, rc))])
            peak_rows.append([b, round2(peak_mb(b, s, tp, rc))])
            b *= 2
        if not stored_rows:
            continue
        for key in timing:
            timing[key][str(s)] = rows[key]
        stored["encoder"][str(s)] = stored_rows
        peak["encoder"][str(s)] = peak_rows
    parameters = {
        "embedding": round2(VOCAB * HIDDEN * 2 / tp / 1e6),
        "encoder": round2((12.0 * HIDDEN ** 2 + 13.0 * HIDDEN) * 2 / tp / 1e6),
    }
    return {"timing_ms": timing, "stored_activation_mb": stored, "peak_activation_mb": peak,
            "model_state_param_mb": parameters}


def main():
    document = {
        "model": "SYNTHETIC EXAMPLE (estimated by Stratex, not measured): GPT-style layer, hidden 2048, "
                 "16 heads, FFN 8192, vocabulary 50304, on a generic 150 TFLOP/s GPU with 40 GB",
        "format": "cost_models[tp{T}_{rc}] with rc in none|selective|full. timing_ms[stage|phase][seqlen] = "
                  "[[mbs, time_ms_per_layer, throughput_tokens_per_ms], ...] for stage in encoder|postprocess and "
                  "phase forward|backward. stored_activation_mb / peak_activation_mb [encoder][seqlen] = "
                  "[[mbs, MB], ...] per layer. model_state_param_mb = fp16 parameter MB (1e6 bytes) of the "
                  "embedding and of one layer. Missing grid points would not fit in memory.",
        "cost_models": {},
    }
    for tp in (1, 2):
        for rc in ("none", "selective", "full"):
            document["cost_models"]["tp%d_%s" % (tp, rc)] = sub_model(tp, rc)
    with open("synthetic-gpt-1.3b-cost-model.json", "w") as out:
        json.dump(document, out, indent=None, separators=(",", ":"), sort_keys=False)
        out.write("\n")


if __name__ == "__main__":
    main()
