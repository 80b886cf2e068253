// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much memory a plan leaves against how far the model has been off (issue 23: launches that
// OOM). A plan fits when its predicted peak is under the limit; but the model has under-predicted
// measured peaks, by up to some fraction on each framework's records. A plan whose headroom is
// smaller than that fraction is "tight": it may not fit. docs/memory-model.md, "Memory margin".

#include <string>
#include <vector>

#include "core/megatron/estimate.h"
#include "core/megatron/framework.h"

namespace stratex::megatron {

// The model's largest under-prediction of a measured peak over one framework's memory records
// (resources/reference-runs, each against the prediction of the kind it publishes: allocated,
// reserved or device). A table, like bundledCoverage(): tests/core/megatron/tst_memory_margin
// recomputes it from the records and fails, with the values to paste, when the model moves it.
struct FrameworkMemoryError {
    Framework framework = Framework::MegatronCore;
    int records = 0;
    double largest_underprediction = 0; // predicted / measured - 1 of the lowest record; <= 0
};
const std::vector<FrameworkMemoryError>& bundledMemoryErrors();

struct MemoryMargin {
    double peak_mb = 0; // the number the fit check uses (Estimate::peak_memory_mb)
    double limit_mb = 0;
    double headroom = 0; // 1 - peak / limit: the share of the limit left
    // The records the error comes from: the plan's framework's; Megatron-Bridge's with Megatron-
    // Core's (the same memory rules); 0 where none publish memory (the margin is unknown).
    int records = 0;
    double largest_underprediction = 0; // <= 0
    // Fits, but not if the peak were under-predicted as much as the worst record:
    // peak / (1 + largest_underprediction) > limit.
    bool tight = false;
    std::string note; // one line for the CLI and the GUI, e.g. "memory: 4.8 % of the limit left; ..."
};

MemoryMargin memoryMargin(const Estimate& estimate);

} // namespace stratex::megatron
