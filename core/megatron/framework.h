// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex::megatron {

// The training framework that runs a plan: it decides what each rank keeps in memory (gradient
// dtype and buffer layout, what its sharding shards, when gathered weights are freed). Each
// framework's rules, read in its source, are written down in docs/memory-model.md.
enum class Framework {
    MegatronCore, // Megatron-LM / Megatron-Core: DDP grad buffer or the distributed optimizer
    MegatronBridge, // NeMo 2 / Megatron-Bridge: Megatron-Core underneath, the same memory rules
    Torchtitan, // torchtitan: FSDP2 (fully_shard), fp32 sharded parameters, PP through torch.distributed.pipelining
    DeepSpeed, // DeepSpeed ZeRO 1-3 (deepspeed_memory.h: its reduce buckets and gradient partitions)
    // MosaicML Composer (llm-foundry): PyTorch FSDP with Composer's mixed-precision modes, costed with
    // the ZeRO paper's accounting (docs/memory-model.md, "Composer")
    Composer,
};

// "megatron-core", "megatron-bridge", "torchtitan", "deepspeed", "composer".
std::string_view frameworkName(Framework value);
// Also takes "nemo" for Megatron-Bridge (NeMo 2 runs on it).
std::optional<Framework> parseFramework(std::string_view name);
// "megatron-core, megatron-bridge (or nemo), torchtitan, deepspeed or composer", for messages.
std::string frameworkChoices();

} // namespace stratex::megatron
