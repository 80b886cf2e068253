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
    DeepSpeed, // DeepSpeed ZeRO 1-3 (the ZeRO paper's accounting)
};

// "megatron-core", "megatron-bridge", "torchtitan", "deepspeed".
std::string_view frameworkName(Framework value);
// Also takes "nemo" for Megatron-Bridge (NeMo 2 runs on it).
std::optional<Framework> parseFramework(std::string_view name);
// "megatron-core, megatron-bridge (or nemo), torchtitan or deepspeed", for messages.
std::string frameworkChoices();

} // namespace stratex::megatron
