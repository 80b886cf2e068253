#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Loads an exported Galvatron strategy file with Galvatron main's own runtime loader.

usage: galvatron_check.py CONFIG.json PLAN.json

Real upstream code (PKU-DAIR/Hetu-Galvatron, commit in common.COMMITS):
galvatron.core.runtime.hybrid_parallel_config.get_hybrid_parallel_configs_api (JSON config mode:
read_json_config, config2strategy, the per-layer cp/ep/tp_of_ep/checkpoint encodings, pp_division,
the batch assertion) and check_hp_config (the per-layer range checks).
Not upstream: the runtime arguments object is a SimpleNamespace with the fields those functions
read (Galvatron builds it from its pydantic schema, args_schema.py, with the defaults used here:
vocab_tp/vocab_cp 1, pipeline_type "pipedream_flush", default_dp_type "ddp");
torch is stubbed and torch.distributed.get_world_size returns the file's world_size.

Checked against the plan: every layer's TP, CP, EP, TP of EP and Ulysses flag, the stage division,
the global batch and the number of micro-batches."""

import json
import sys
import types

import common


def main():
    config_path, plan_path = sys.argv[1], sys.argv[2]
    root = common.checkout("galvatron")
    import stubs
    stubs.install(["torch", "pydantic", "transformers", "triton", "flash_attn", "scipy"])
    sys.path.insert(0, str(root))
    import torch.distributed
    exported = json.load(open(config_path))
    world = exported["world_size"]
    torch.distributed.get_world_size = lambda *a, **k: world
    m = common.resolved_model(plan_path)
    plan = json.load(open(plan_path))
    s = plan["strategy"]

    from galvatron.core.runtime import hybrid_parallel_config as hpc
    ns = types.SimpleNamespace
    args = ns(local_rank=1,  # not 0: the loader's printing is skipped
              parallel=ns(galvatron_config_path=config_path, pipeline_type="pipedream_flush", default_dp_type="ddp",
                          vocab_sdp=0, vocab_tp=1, vocab_sp=0, vocab_cp=1, pp_deg=1, mixed_precision="bf16"),
              model=ns(num_layers=m["num_layers"], is_moe_model=bool(m.get("moe"))),
              train=ns(global_batch_size=0, chunks=0),
              ckpt=ns(distributed_checkpoint=False))
    try:
        hp = hpc.get_hybrid_parallel_configs_api(args)
        hpc.check_hp_config(hp, [m["num_layers"]])
    except (AssertionError, KeyError, ValueError) as e:
        common.result("FAIL", f"{type(e).__name__}: {e}")

    problems = []

    def same(what, got, want):
        if got != want:
            problems.append(f"{what} {got!r}, plan {want!r}")

    n = m["num_layers"]
    same("pp_deg", hp["pp_deg"], s.get("pp", 1))
    ulysses = s.get("cp", 1) > 1 and s.get("cp_comm_type", "p2p") == "a2a"
    # Ulysses is Galvatron's use_sp: the sequence split across the layer's TP group, so
    # tp_sizes_enc holds the Ulysses degree (TP 1 beside it); ring CP is cp_sizes_enc.
    if ulysses:
        same("Ulysses (tp x use_sp) per layer", [t * u for t, u in zip(hp["tp_sizes_enc"], hp["use_sp"])],
             [s["cp"]] * n)
        same("cp per layer", hp["cp_sizes_enc"], [1] * n)
    else:
        same("tp per layer", hp["tp_sizes_enc"], [s.get("tp", 1)] * n)
        same("use_sp per layer", hp["use_sp"], [0] * n)
        same("cp per layer", hp["cp_sizes_enc"], [s.get("cp", 1)] * n)
    if m.get("moe"):
        same("ep per layer", hp["ep_sizes_enc"], [s.get("ep", 1)] * n)
        same("tp of ep per layer", hp["tp_of_ep_sizes_enc"], [s.get("etp", 1)] * n)
    import megatron_layout
    same("layers per stage", hp["pp_division"], megatron_layout.plan_stages(s, n))
    same("global batch", hp["global_batch_size"], s["global_batch_size"])
    dp = s.get("dp", 1)
    same("micro-batches", args.train.chunks, s["global_batch_size"] // (s.get("micro_batch_size", 1) * dp))
    if problems:
        common.result("FAIL", "; ".join(problems))
    common.result("PASS", f"pp {hp['pp_deg']}, division {hp['pp_division']}, tp {hp['tp_sizes_enc'][0]}, "
                  f"cp {hp['cp_sizes_enc'][0]}, ep {hp['ep_sizes_enc'][0]}, use_sp {hp['use_sp'][0]}, "
                  f"chunks {args.train.chunks}")


if __name__ == "__main__":
    main()
