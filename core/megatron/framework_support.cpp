// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/framework_support.h"

#include <algorithm>
#include <string>

namespace stratex::megatron {

namespace {

// "<framework>: <setting> <found>: <why>; it runs <allowed>".
std::string refusal(const ParallelStrategy& s, const std::string& setting, const std::string& found,
    const std::string& why, const std::string& allowed)
{
    return std::string(frameworkName(s.framework)) + ": " + setting + " " + found + ": " + why + "; it runs " + allowed;
}

// torchtitan @ b5bcd76c (docs/frameworks.md, "torchtitan").
void torchtitanProblems(const ParallelStrategy& s, std::vector<std::string>& out)
{
    // models/llama3/parallelize.py always applies fully_shard over the ("dp_replicate", "fsdp") mesh;
    // distributed/fsdp.py get_fsdp_reshard_after_forward_policy: "always" reshards the weights after
    // forward (ZeRO-3), "never" keeps them (ZeRO-2: gradients and optimizer states still sharded);
    // a shard degree of 1 leaves the replicate mesh alone (DDP, ZeRO-0). Nothing shards the
    // optimizer states without the gradients.
    if (s.zero == 1)
        out.push_back(
            refusal(s, "zero", "1", "FSDP2 shards gradients with the optimizer states (no ZeRO-1; distributed/fsdp.py)",
                "zero 0 (replicate), 2 (fsdp_reshard_after_forward never) or 3 (always)"));
    // parallel_dims.py: the FSDP mesh is dp_shard x cp, so context-parallel ranks always shard the
    // weights; replicated weights (ZeRO-0) with cp > 1 is no mesh torchtitan builds.
    if (s.zero == 0 && s.cp > 1)
        out.push_back(refusal(s, "zero", "0 with cp " + std::to_string(s.cp),
            "its FSDP mesh is dp_shard x cp (distributed/parallel_dims.py), the CP ranks shard the weights",
            "zero 2 or 3 with cp > 1"));
    // distributed/context_parallel/api.py: torch's context_parallel (tensor/experimental/_attention),
    // K/V rotated round the CP ring; no all-to-all (Ulysses) or all-gather exchange.
    if (s.cp > 1 && s.cp_comm_type != CpCommType::P2p)
        out.push_back(refusal(s, "cp_comm_type", std::string(cpCommTypeName(s.cp_comm_type)),
            "its context parallelism is torch's ring attention (distributed/context_parallel/api.py)", "p2p only"));
    // torch.distributed.pipelining's ScheduleInterleaved1F1B (pytorch/pytorch 00722e64,
    // torch/distributed/pipelining/schedules.py), which torchtitan's Interleaved1F1B builds: rounds =
    // max(1, M // pp), and "Interleaved 1F1B requires the number of microbatches to be a multiple of
    // the number of rounds" (ValueError at construction).
    if (s.pp > 1 && s.vpp > 1 && s.schedule == PipelineSchedule::Interleaved && s.micro_batch_size > 0 && s.dp > 0) {
        const int m = s.microbatches();
        const int rounds = s.torchInterleavedRounds();
        if (m % rounds != 0)
            out.push_back(refusal(s, "micro-batches", std::to_string(m) + " with pp " + std::to_string(s.pp),
                "torch's ScheduleInterleaved1F1B needs them a multiple of max(1, micro-batches / pp) = "
                    + std::to_string(rounds) + " (torch/distributed/pipelining/schedules.py)",
                "the interleaved schedule with micro-batches divisible by that"));
    }
    // Expert tensor parallelism was removed (pytorch/torchtitan#3167, c4b409af): experts are sharded
    // over ep and efsdp = dp_shard x cp x tp / ep (parallel_dims.py).
    if (s.ep > 1 && s.etp > 1)
        out.push_back(refusal(s, "etp", std::to_string(s.etp),
            "expert tensor parallelism was removed (pytorch/torchtitan#3167)", "etp 1"));
}

// Composer @ 64051888 with llm-foundry @ 8c8dd48f (docs/frameworks.md, "Composer / llm-foundry").
void composerProblems(const ParallelStrategy& s, std::vector<std::string>& out)
{
    // composer/distributed/mosaic_parallelism.py sharding_map: NO_SHARD (ZeRO-0), SHARD_GRAD_OP
    // (ZeRO-2), FULL_SHARD (ZeRO-3) and their hybrid forms; PyTorch FSDP has no ZeRO-1.
    if (s.zero == 1)
        out.push_back(refusal(s, "zero", "1", "PyTorch FSDP has no optimizer-only sharding (mosaic_parallelism.py)",
            "zero 0 (NO_SHARD), 2 (SHARD_GRAD_OP) or 3 (FULL_SHARD)"));
    // composer/utils/parallelism.py ParallelismConfig holds fsdp and tp only: no pipeline, no
    // context parallelism. Its TP (core/state.py: "experimental") gets its layer plan from
    // llm-foundry, whose only strategy, "ffn" (llmfoundry/tp/ffn_tp_strategy.py), splits the FFN
    // and leaves attention whole: not the Megatron-style TP a plan costs.
    if (s.tp > 1)
        out.push_back(refusal(s, "tp", std::to_string(s.tp),
            "llm-foundry's only TP strategy ('ffn', llmfoundry/tp/ffn_tp_strategy.py) splits the FFN alone, "
            "not attention",
            "tp 1"));
    if (s.pp > 1)
        out.push_back(refusal(s, "pp", std::to_string(s.pp),
            "Composer has no pipeline parallelism (composer/utils/parallelism.py: fsdp and tp only)", "pp 1"));
    if (s.cp > 1)
        out.push_back(refusal(s, "cp", std::to_string(s.cp),
            "Composer has no context parallelism (composer/utils/parallelism.py: fsdp and tp only)", "cp 1"));
}

// DeepSpeed @ edaa7221 (docs/frameworks.md, "DeepSpeed").
void deepSpeedProblems(const ParallelStrategy& s, std::vector<std::string>& out)
{
    if (s.pp > 1) {
        // runtime/pipe/engine.py PipelineEngine.__init__: assert zero_optimization_stage() <
        // ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism".
        if (s.zero >= 2)
            out.push_back(refusal(s, "zero", std::to_string(s.zero) + " with pp " + std::to_string(s.pp),
                "\"ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism\" (runtime/pipe/engine.py)",
                "zero 0 or 1 with pp > 1"));
        // runtime/pipe/schedule.py: TrainSchedule (1F1B) is the engine's only training schedule.
        if (s.schedule != PipelineSchedule::OneFOneB)
            out.push_back(refusal(s, "schedule", std::string(pipelineScheduleName(s.schedule)),
                "the pipeline engine trains with TrainSchedule alone (runtime/pipe/schedule.py)", "1f1b only"));
    }
    // deepspeed/sequence/layer.py DistributedAttention: sequence parallelism is Ulysses, an
    // all-to-all around attention; DeepSpeed has no ring or all-gather exchange.
    if (s.cp > 1 && s.cp_comm_type != CpCommType::A2a)
        out.push_back(refusal(s, "cp_comm_type", std::string(cpCommTypeName(s.cp_comm_type)),
            "its sequence parallelism is Ulysses (deepspeed/sequence/layer.py DistributedAttention)", "a2a only"));
}

} // namespace

std::string_view frameworkProject(Framework framework)
{
    switch (framework) {
    case Framework::MegatronCore:
        return "Megatron-LM";
    case Framework::MegatronBridge:
        return "Megatron-Bridge";
    case Framework::Torchtitan:
        return "torchtitan";
    case Framework::DeepSpeed:
        return "DeepSpeed";
    case Framework::Composer:
        return "Composer";
    }
    return "Megatron-LM";
}

std::vector<std::string> frameworkProblems(const ParallelStrategy& s)
{
    std::vector<std::string> out;
    switch (s.framework) {
    case Framework::MegatronCore:
        break; // strategyProblems' rules are Megatron's own
    case Framework::MegatronBridge:
        // Bridge trains with Megatron-Core's schedules (megatron/core/pipeline_parallel/schedules.py:
        // 1F1B and interleaved 1F1B); none defers weight gradients into the bubbles, and its export
        // refuses ZB-H1 (core/export/megatron_bridge_recipe.cpp). The Megatron-LM export runs a
        // Megatron-Core ZB-H1 plan as 1F1B with a note instead; kept there.
        if (s.pp > 1 && s.schedule == PipelineSchedule::ZbH1)
            out.push_back(refusal(s, "schedule", "zb-h1",
                "Megatron-Core's schedules are 1F1B and interleaved 1F1B (megatron/core/pipeline_parallel/schedules.py)",
                "1f1b or interleaved"));
        break;
    case Framework::Torchtitan:
        torchtitanProblems(s, out);
        break;
    case Framework::Composer:
        composerProblems(s, out);
        break;
    case Framework::DeepSpeed:
        deepSpeedProblems(s, out);
        break;
    }
    return out;
}

} // namespace stratex::megatron
