#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Builds and validates an exported Megatron-Bridge recipe with Megatron-Bridge's own code.

usage: bridge_check.py RECIPE.py PLAN.json

Real upstream code (NVIDIA-NeMo/Megatron-Bridge, commit in common.COMMITS; Megatron-Core from the
Megatron-LM checkout, main, where Bridge pins its own Megatron-Core commit): the recipe module is
imported and its stratex_pretrain_config() run (Bridge's _pretrain_common(), the model provider
dataclasses GPTModelProvider / MLAModelProvider, bf16_mixed), then ConfigContainer.validate(), which
finalizes every sub-config (the provider's deferred TransformerConfig /
MLATransformerConfig __post_init__ included), computes the
data-parallel size from WORLD_SIZE and checks the cross-field rules (distributed optimizer,
Megatron-FSDP, CP comm type, scheduler).
Stubbed (stubs.py): torch, transformer_engine and the packages their code imports; WORLD_SIZE is the
plan's GPU count. The recipe's __main__ (pretrain) is not run.

Checked against the plan: the degrees, batch, layout fields, recompute and precision Bridge reads."""

import importlib.util
import json
import os
import sys

import common

STUBBED = ["torch", "transformer_engine", "einops", "triton", "omegaconf", "transformers", "datasets",
           "safetensors", "huggingface_hub", "wandb", "tensorboard", "tqdm", "hydra", "nvidia_resiliency_ext",
           "modelopt", "accelerate", "filelock", "pydantic", "regex", "sentencepiece", "tiktoken", "psutil",
           "megatron.energon", "qwen_vl_utils", "PIL", "timm", "open_clip", "nemo_run", "peft", "rich", "diffusers", "numpy.dtypes"]


def main():
    recipe, plan_path = sys.argv[1], sys.argv[2]
    bridge = common.checkout("megatron-bridge")
    core = common.checkout("megatron-lm")
    import stubs
    stubs.install(STUBBED)
    sys.path[:0] = [str(bridge / "src"), str(core)]
    plan = json.load(open(plan_path))
    world = plan["cluster"]["num_nodes"] * plan["cluster"]["gpus_per_node"]
    os.environ["WORLD_SIZE"] = str(world)
    os.environ["RANK"] = os.environ["LOCAL_RANK"] = "0"

    spec = importlib.util.spec_from_file_location("stratex_bridge_recipe", recipe)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        cfg = module.stratex_pretrain_config()
    except Exception as e:  # noqa: BLE001 - any loader error is the result
        common.result("FAIL", f"recipe: {type(e).__name__}: {e}")
    try:
        cfg.validate()
    except (AssertionError, ValueError, TypeError, AttributeError) as e:
        common.result("FAIL", f"ConfigContainer.validate: {type(e).__name__}: {e}")

    s = plan["strategy"]
    m = cfg.model
    problems = []

    def same(what, got, want):
        if got != want:
            problems.append(f"{what} {got!r}, plan {want!r}")

    same("tp", m.tensor_model_parallel_size, s.get("tp", 1))
    same("pp", m.pipeline_model_parallel_size, s.get("pp", 1))
    same("vpp", m.virtual_pipeline_model_parallel_size or 1, s.get("vpp", 1))
    same("cp", m.context_parallel_size, s.get("cp", 1))
    same("ep", m.expert_model_parallel_size, s.get("ep", 1))
    same("dp", cfg.data_parallel_size, s.get("dp", 1))
    same("micro_batch_size", cfg.train.micro_batch_size, s.get("micro_batch_size", 1))
    same("global_batch_size", cfg.train.global_batch_size, s["global_batch_size"])
    if s.get("ep", 1) > 1:
        same("etp", m.expert_tensor_parallel_size, s.get("etp", 1))
    # Megatron-Core's own placement (the provider is a TransformerConfig).
    import megatron_layout
    from megatron.core.transformer.transformer_block import get_num_layers_to_build
    vpp = m.virtual_pipeline_model_parallel_size or 1
    if m.pipeline_model_parallel_layout is not None:
        placed = [len([t for t in m.pipeline_model_parallel_layout.layout[r][c] if str(t).endswith("decoder")])
                  for c in range(vpp) for r in range(m.pipeline_model_parallel_size)]
    else:
        placed = [get_num_layers_to_build(m, vp_stage=c if vpp > 1 else None, pp_rank=r)
                  for c in range(vpp) for r in range(m.pipeline_model_parallel_size)]
    same("layers per chunk", placed, megatron_layout.plan_chunks(s, m.num_layers))
    recompute = s.get("recompute", "none")
    same("recompute", m.recompute_granularity or "none", recompute)
    if recompute == "selective" and s.get("recompute_modules"):
        same("recompute modules", sorted(m.recompute_modules or []), sorted(s["recompute_modules"]))
    precision = s.get("precision", "bf16")
    mp = cfg.mixed_precision
    same("fp8", getattr(mp, "fp8", None) is not None, precision == "fp8")
    zero = s.get("zero", 1 if s.get("dp", 1) > 1 else 0)
    ddp = cfg.ddp
    got = ({"optim_grads_params": 3, "optim_grads": 2}.get(ddp.data_parallel_sharding_strategy, 1)
           if getattr(ddp, "use_megatron_fsdp", False) else (1 if ddp.use_distributed_optimizer else 0))
    same("ZeRO stage", got, zero)
    mm = common.resolved_model(plan_path)
    same("rotary_base", float(m.rotary_base), float(mm.get("rotary_base", m.rotary_base)))
    same("multi-latent attention", bool(getattr(m, "multi_latent_attention", False)), bool(mm.get("mla")))
    if problems:
        common.result("FAIL", "; ".join(problems))
    common.result("PASS", f"{type(m).__name__}: tp {m.tensor_model_parallel_size} pp {m.pipeline_model_parallel_size} "
                  f"cp {m.context_parallel_size} ep {m.expert_model_parallel_size} dp {cfg.data_parallel_size}")


if __name__ == "__main__":
    main()
