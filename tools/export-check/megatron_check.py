#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs Megatron-LM's own argument loader on an exported Megatron script.

usage: megatron_check.py SCRIPT PLAN.json

Real upstream code (NVIDIA/Megatron-LM, commit in common.COMMITS): megatron.training.arguments
parse_args + validate_args on the script's MEGATRON_ARGS (plus the data, tokenizer and optimizer
flags the script leaves to the user: --mock-data, NullTokenizer, --lr, --train-iters), then
core_transformer_config_from_args, which builds TransformerConfig / MLATransformerConfig and runs
their __post_init__ checks; then Megatron's get_num_layers_to_build
for every (pipeline rank, virtual stage).
Stubbed (stubs.py): torch, transformer_engine, einops, triton, numpy (STUBBED below); apex and the
other optional packages stay absent, so Megatron takes its "not installed" paths; torch.distributed
is never initialised. WORLD_SIZE comes from the script's torchrun line.

Checked against the plan: Megatron's derived data-parallel size, the virtual pipeline size, the
layers each chunk builds (the plan's chunk layer counts, as the plan file's cost model computes
them: megatron_layout.py), RoPE base and scaling, MLA ranks, MoE routing, FP8."""

import json
import os
import re
import sys

import common

STUBBED = ["torch", "transformer_engine", "einops", "triton", "numpy"]


def main():
    script, plan_path = sys.argv[1], sys.argv[2]
    root = common.checkout("megatron-lm")
    import stubs

    # Always stubbed, even where installed (Debian's python3-torch is 1.13, older than Megatron needs).
    stubs.install(STUBBED)
    sys.path.insert(0, str(root))

    words = common.bash_array(script, "MEGATRON_ARGS")
    text = open(script).read()
    nnodes = re.search(r"--nnodes (\d+)", text)  # "--standalone": one node
    nodes = int(nnodes.group(1)) if nnodes else 1
    per_node = int(re.search(r"--nproc-per-node (\d+)", text).group(1))
    plan = json.load(open(plan_path))
    extra = ["--mock-data", "--tokenizer-type", "NullTokenizer", "--vocab-size", "128000", "--lr", "1e-4",
             "--train-iters", "10"]
    sys.argv = ["pretrain_gpt.py"] + words + extra
    os.environ["WORLD_SIZE"] = str(nodes * per_node)
    os.environ["RANK"] = "0"
    # The environment the script's own launch line sets ("exec env CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun").
    launch = re.search(r"exec env ((?:[A-Z_]+=\S+ )+)torchrun", text)
    for pair in (launch.group(1).split() if launch else []):
        key, _, value = pair.partition("=")
        os.environ[key] = value

    from megatron.training import arguments
    try:
        args = arguments.parse_args()
    except SystemExit as e:
        common.result("FAIL", f"parse_args exited {e.code}")
    try:
        arguments.validate_args(args, {})
    except (AssertionError, ValueError, RuntimeError) as e:
        common.result("FAIL", f"validate_args: {type(e).__name__}: {e}")
    try:
        from megatron.training.argument_utils import core_transformer_config_from_args
        config = core_transformer_config_from_args(args)
    except (AssertionError, ValueError, RuntimeError, TypeError) as e:
        common.result("FAIL", f"TransformerConfig: {type(e).__name__}: {e}")

    problems = []
    s = plan["strategy"]
    want_dp = s.get("dp")
    if want_dp and args.data_parallel_size != want_dp:
        problems.append(f"data_parallel_size {args.data_parallel_size}, plan dp {want_dp}")
    vpp = args.virtual_pipeline_model_parallel_size or 1
    if vpp != s.get("vpp", 1):
        problems.append(f"virtual pipeline size {vpp}, plan vpp {s.get('vpp', 1)}")

    # Megatron's own layer placement, every (pp rank, virtual stage).
    from megatron.core.transformer.transformer_block import get_num_layers_to_build
    pp = args.pipeline_model_parallel_size
    placed = []
    for chunk in range(vpp):
        for rank in range(pp):
            v = chunk if vpp > 1 else None
            if config.pipeline_model_parallel_layout is not None:
                # The layout object reads the rank from parallel_state: ask it directly.
                layout = config.pipeline_model_parallel_layout
                n = len([t for t in layout.layout[rank][chunk] if str(t).endswith("decoder")])
                placed.append(n)
                continue
            placed.append(get_num_layers_to_build(config, vp_stage=v, pp_rank=rank))
    import megatron_layout
    want = megatron_layout.plan_chunks(s, args.num_layers)
    if placed != want:
        problems.append(f"layers per chunk (chunk-major) {placed}, plan {want}")

    problems += model_facts(plan_path, args, config)
    problems += strategy_facts(s, args)
    if problems:
        common.result("FAIL", "; ".join(problems))
    common.result("PASS", f"dp {args.data_parallel_size}, vpp {vpp}, layers per chunk {placed}, "
                  f"{type(config).__name__}")


def model_facts(plan_path, args, config):
    """The model description's facts (common.resolved_model) against what Megatron builds from the
    arguments: args after validate_args, and the TransformerConfig."""
    m = common.resolved_model(plan_path)
    out = []

    def same(what, got, want):
        if got != want:
            out.append(f"{what} {got!r}, model {want!r}")

    same("num_layers", args.num_layers, m["num_layers"])
    same("hidden_size", args.hidden_size, m["hidden_size"])
    same("num_attention_heads", args.num_attention_heads, m["num_heads"])
    same("query groups", args.num_query_groups if args.group_query_attention else args.num_attention_heads,
         m["num_kv_heads"])
    same("seq_length", args.seq_length, m["seq_length"])
    same("gated MLP (swiglu)", bool(args.swiglu), m["mlp"] == "gated")
    same("normalization", args.normalization, {"rmsnorm": "RMSNorm", "layernorm": "LayerNorm"}[m["norm"]])
    same("tied embeddings", not args.untie_embeddings_and_output_weights, m["tied_embeddings"])
    # A plain-MLP model (GPT-3) has a bias on every linear layer, Q, K and V included
    # (core/model/model_description.h); validate_args: add_bias_linear implies add_qkv_bias.
    same("linear biases", bool(args.add_bias_linear), m["mlp"] == "plain")
    same("qkv bias", bool(args.add_qkv_bias), m["qkv_bias"] or m["mlp"] == "plain")
    same("position embedding", args.position_embedding_type,
         {"learned": "learned_absolute"}.get(m["position_embedding"], m["position_embedding"]))
    if m["position_embedding"] == "rope":
        same("rotary_base", args.rotary_base, m["rotary_base"])
        scaling = m.get("rope_scaling")
        same("RoPE scaling", bool(args.use_rope_scaling), bool(scaling))
        if scaling:
            same("rope_scaling_factor", args.rope_scaling_factor, scaling["factor"])
    mla = m.get("mla")
    same("multi-latent attention", bool(args.multi_latent_attention), bool(mla))
    if mla:
        same("q_lora_rank", config.q_lora_rank, mla["q_lora_rank"])
        same("kv_lora_rank", config.kv_lora_rank, mla["kv_lora_rank"])
        same("qk_head_dim", config.qk_head_dim, mla["qk_nope_head_dim"])
        same("qk_pos_emb_head_dim", config.qk_pos_emb_head_dim, mla["qk_rope_head_dim"])
        same("v_head_dim", config.v_head_dim, mla["v_head_dim"])
    same("qk layernorm", bool(args.qk_layernorm), bool(m.get("qk_norm")) or bool(mla))
    moe = m.get("moe")
    same("MoE experts", args.num_experts, moe["num_experts"] if moe else None)
    if moe:
        same("moe_router_topk", args.moe_router_topk, moe["top_k"])
        same("moe_ffn_hidden_size", config.moe_ffn_hidden_size, moe["expert_ffn_hidden_size"])
        shared = moe["shared_experts"] * moe["shared_expert_ffn_hidden_size"]
        same("shared expert size", args.moe_shared_expert_intermediate_size or 0, shared)
        freq = config.moe_layer_freq
        dense = freq.index(1) if isinstance(freq, list) and 1 in freq else 0
        same("first dense layers", dense, moe["first_dense_layers"])
        if "score_function" in moe:
            same("router score function", args.moe_router_score_function, moe["score_function"])
        if moe.get("expert_bias"):
            same("router expert bias", bool(args.moe_router_enable_expert_bias), True)
        if moe.get("num_groups"):
            same("router groups", args.moe_router_num_groups, moe["num_groups"])
            same("router group top-k", args.moe_router_group_topk, moe["group_top_k"])
        if moe.get("scaling_factor"):
            same("router scaling factor", args.moe_router_topk_scaling_factor, moe["scaling_factor"])
    return out


def strategy_facts(s, args):
    """The plan's strategy against the arguments Megatron resolved."""
    out = []

    def same(what, got, want):
        if got != want:
            out.append(f"{what} {got!r}, plan {want!r}")

    same("tp", args.tensor_model_parallel_size, s.get("tp", 1))
    same("pp", args.pipeline_model_parallel_size, s.get("pp", 1))
    same("cp", args.context_parallel_size, s.get("cp", 1))
    if s.get("cp", 1) > 1:
        same("cp_comm_type", args.cp_comm_type, [s.get("cp_comm_type", "p2p")])
    same("ep", args.expert_model_parallel_size, s.get("ep", 1))
    if s.get("ep", 1) > 1:
        same("etp", args.expert_tensor_parallel_size, s.get("etp", 1))
    same("micro_batch_size", args.micro_batch_size, s.get("micro_batch_size", 1))
    same("global_batch_size", args.global_batch_size, s["global_batch_size"])
    zero = s.get("zero", 1 if s.get("dp", 1) > 1 else 0)
    got_zero = (3 if args.data_parallel_sharding_strategy == "optim_grads_params" else
                2 if args.data_parallel_sharding_strategy == "optim_grads" else 1) if args.use_megatron_fsdp else \
        (1 if args.use_distributed_optimizer else 0)
    same("ZeRO stage", got_zero, zero)
    recompute = s.get("recompute", "none")
    same("recompute", args.recompute_granularity or "none", recompute)
    if recompute == "selective" and s.get("recompute_modules"):
        same("recompute modules", sorted(args.recompute_modules), sorted(s["recompute_modules"]))
    if recompute == "full" and s.get("recompute_num_layers"):
        same("recompute_num_layers", args.recompute_num_layers, s["recompute_num_layers"])
    precision = s.get("precision", "bf16")
    same("fp8", args.fp8 is not None, precision == "fp8")
    same("bf16", bool(args.bf16), precision in ("bf16", "fp8"))
    same("fp16", bool(args.fp16), precision == "fp16")
    return out


if __name__ == "__main__":
    main()
