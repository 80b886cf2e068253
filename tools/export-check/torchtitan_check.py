#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Loads an exported torchtitan config module with torchtitan main's own code.

usage: torchtitan_check.py MODULE.py PLAN.json

Real upstream code (pytorch/torchtitan, commit in common.COMMITS):
- ConfigManager._load_config(["--module", M, "--config", "stratex_plan"]) imports the module (its
  torchtitan imports, the flavour registered in llama3_configs / deepseek_v3_configs, the
  @override functions) and calls the config function, building Trainer.Config and every nested
  Config dataclass with their __post_init__ checks (TrainingConfig's token counts...);
- model_registry(flavour) builds the model spec from the registered flavour function;
- apply_overrides(config.override, config) swaps in the plan's recompute as the trainer does
  (trainer.py, before the model is built);
- ParallelDims.from_config(config.parallelism, world) runs the degree checks.
Copied from trainer.py (it runs them after torch.distributed is up, so they cannot be called):
the token-count checks (num_tokens_per_microbatch_per_dp_rank divisible by the sequence-parallel TP
degree and cp; num_tokens_per_train_step divisible by tokens per dp rank x dp degree).
Stubbed (stubs.py): torch and the packages its model code imports; tyro (used only to merge
command-line overrides, none are given).

A module whose config function raises ValueError is a refusal: reported REFUSED with the reason.
Checked against the plan: degrees, batch (tokens per step / per micro-batch), model parts (layers
per stage and chunk), recompute, and the flavour's dims, heads and RoPE against the model."""

import importlib
import json
import os
import shutil
import sys
import tempfile

import common

STUBBED = ["torch", "tyro", "triton", "numpy", "safetensors", "tokenizers", "transformers", "datasets", "grain",
           "torchdata", "tensorboard", "wandb", "fsspec", "huggingface_hub", "einops", "torchao", "blobfile",
           "tiktoken", "sentencepiece", "psutil", "yaml", "tomli", "tomllib", "torchft", "spmd_types"]


def main():
    module_file, plan_path = sys.argv[1], sys.argv[2]
    root = common.checkout("torchtitan")
    import stubs
    stubs.install(STUBBED)
    sys.path.insert(0, str(root))
    tmp = tempfile.mkdtemp()
    shutil.copy(module_file, os.path.join(tmp, "stratex_torchtitan.py"))
    sys.path.insert(0, tmp)
    plan = json.load(open(plan_path))
    world = plan["cluster"]["num_nodes"] * plan["cluster"]["gpus_per_node"]

    from torchtitan.config.manager import ConfigManager
    try:
        config, _ = ConfigManager()._load_config(["--module", "stratex_torchtitan", "--config", "stratex_plan"])
    except ValueError as e:
        # The module's refusal: the config function's first statement raises the export's notes
        # ("torchtitan: ..."); any other ValueError is torchtitan's.
        frames = __import__("traceback").extract_tb(e.__traceback__)
        if str(e).startswith("torchtitan: ") and frames[-1].name == "stratex_plan":
            common.result("REFUSED", str(e))
        common.result("FAIL", f"load: ValueError: {e}")
    except Exception as e:  # noqa: BLE001 - any loader error is the result
        common.result("FAIL", f"load: {type(e).__name__}: {e}")

    problems = []
    try:
        if config.override.imports:
            from torchtitan.config.override import apply_overrides
            apply_overrides(config.override, config)
        from torchtitan.distributed.parallel_dims import ParallelDims
        dims = ParallelDims.from_config(config.parallelism, world)
    except (AssertionError, ValueError, TypeError) as e:
        common.result("FAIL", f"{type(e).__name__}: {e}")

    p, t = config.parallelism, config.training
    s = plan["strategy"]
    # trainer.py's batch checks (copied, see above).
    divisor = (p.tensor_parallel_degree if p.enable_sequence_parallel else 1) * p.context_parallel_degree
    if t.num_tokens_per_microbatch_per_dp_rank % divisor:
        problems.append(f"tokens per micro-batch {t.num_tokens_per_microbatch_per_dp_rank} not divisible by {divisor}")
    micro = p.num_pp_microbatches if p.pipeline_parallel_degree > 1 else 1
    dp = dims.dp_replicate * dims.dp_shard
    per_rank = t.num_tokens_per_microbatch_per_dp_rank * micro
    if t.num_tokens_per_train_step % (per_rank * dp):
        problems.append(f"num_tokens_per_train_step {t.num_tokens_per_train_step} not divisible by {per_rank * dp}")

    m = common.resolved_model(plan_path)

    def same(what, got, want):
        if got != want:
            problems.append(f"{what} {got!r}, plan {want!r}")

    same("tp", p.tensor_parallel_degree, s.get("tp", 1))
    same("pp", p.pipeline_parallel_degree, s.get("pp", 1))
    same("cp", p.context_parallel_degree, s.get("cp", 1))
    same("ep", p.expert_parallel_degree, s.get("ep", 1))
    same("dp", dp, s.get("dp", 1))
    seq = m["seq_length"]
    same("tokens per step", t.num_tokens_per_train_step, s["global_batch_size"] * seq)
    same("tokens per micro-batch per dp rank", t.num_tokens_per_microbatch_per_dp_rank,
         s.get("micro_batch_size", 1) * seq)
    if s.get("pp", 1) > 1:
        import megatron_layout
        parts = p.module_fqns_per_model_part
        got = [sum(1 for f in part if f.startswith("layers.")) for part in parts]
        # torchtitan's parts are stage-major within a rank for interleaved schedules: part k runs on
        # rank k % pp (pipelining's "loop" style), so the order is chunk-major as Megatron's.
        same("layers per model part", got, megatron_layout.plan_chunks(s, m["num_layers"]))
    if s.get("tp", 1) > 1:  # torchtitan's enable_sequence_parallel (default True) means nothing at tp 1
        same("sequence parallel", bool(p.enable_sequence_parallel), bool(s.get("sequence_parallel")))

    # The flavour: what model_registry builds.
    spec = config.model_spec
    mc = spec.model if hasattr(spec, "model") else None
    if mc is not None and hasattr(mc, "layers"):
        layers = mc.layers
        same("layers", len(layers), m["num_layers"])
        same("dim", getattr(mc, "dim", None), m["hidden_size"])
        attn = getattr(layers[0], "attention", None)
        if attn is not None and hasattr(attn, "n_kv_heads"):  # GQAttention (MLA has its own ranks)
            same("heads", attn.n_heads, m["num_heads"])
            same("KV heads", attn.n_kv_heads, m["num_kv_heads"])
        rope = getattr(attn, "rope", None) if attn is not None else None
        if rope is not None and m["position_embedding"] == "rope":
            same("RoPE theta", float(rope.theta), float(m["rotary_base"]))
            scaling = m.get("rope_scaling")
            same("RoPE scaling", getattr(rope, "scaling", "none") != "none", bool(scaling))
    if problems:
        common.result("FAIL", "; ".join(problems))
    common.result("PASS", f"tp {p.tensor_parallel_degree} pp {p.pipeline_parallel_degree} cp "
                  f"{p.context_parallel_degree} ep {p.expert_parallel_degree} dp {dims.dp_replicate}x{dims.dp_shard}, "
                  f"{p.pipeline_parallel_schedule}, AC {type(config.activation_checkpoint).__qualname__ if config.activation_checkpoint else None}")


if __name__ == "__main__":
    main()
