// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// What the strategy's framework cannot run, read in each framework's source (docs/frameworks.md):
// torchtitan has no ZeRO-1, only ring context parallelism and no expert TP; Composer / llm-foundry
// runs FSDP alone (no ZeRO-1, TP, PP or CP); DeepSpeed's pipeline engine refuses ZeRO >= 2 and runs
// 1F1B only, and its context parallelism is Ulysses. Megatron-Core and Megatron-Bridge: nothing
// beyond strategyProblems' own rules. Each message names the framework, the setting, the value found
// and what the framework allows. strategyProblems (and so the search, evaluate, the exports and the
// GUI) reports these with Megatron's rules.
std::vector<std::string> frameworkProblems(const ParallelStrategy& strategy);

// The project whose rules a refused strategy breaks, as messages name it: "Megatron-LM" (Megatron-Core),
// "Megatron-Bridge", "torchtitan", "DeepSpeed", "Composer" (strategyProblems holds Megatron's rules
// for every framework, and the framework's own beside them).
std::string_view frameworkProject(Framework framework);

} // namespace stratex::megatron
