// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The search's counts as one sentence, the same on the command line and on the Search page: "4154376
// strategies searched: 0 refused by Megatron-LM's rules, 3639914 slower in their pipeline alone than
// plans of a sample, 34388 over memory, 44762 bounded, 128 simulated, in 1.860 s on 2 threads".
// The pruned count is said only when there are some (docs/search-speed.md, "The sampled threshold").

#include <string>

#include "core/megatron/framework.h"
#include "core/megatron/strategy_search.h"

namespace stratex::megatron {

// `framework` is every candidate's (a search runs one): the refusals are its project's rules and
// Megatron's (framework_support.h).
std::string searchStatsText(const StrategySearchStats& stats, Framework framework, double seconds, int threads);

} // namespace stratex::megatron
