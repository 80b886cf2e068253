// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Megatron-LM logs written by the tests themselves, in the exact format pretrain_gpt.py writes
// (see tests/data/measured/README.md for the sources): the argument dump, iteration lines with
// a start-up and a warm-up iteration, and optionally memory reports. Plain C++ (no Q_OBJECT), so
// the tests that write logs keep their data out of moc's way.

#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::test {

struct SyntheticMegatronRun {
    model::ModelDescription model; // a dense transformer
    megatron::ParallelStrategy strategy; // degrees, batch, recompute, ZeRO 0/1, precision
    // What the iterations after the warm-up average to: iterations 1 (start-up) and 2 (warm-up) are
    // slower, 3 to 8 spread symmetrically around it.
    double iteration_ms = 1000;
    std::optional<double> max_reserved_mib; // memory reports of rank 0 when set
};

std::string megatronLogText(const SyntheticMegatronRun& run);
// Writes the log; false when the file cannot be written.
bool writeMegatronLog(const std::string& path, const SyntheticMegatronRun& run);

// Llama-2-shaped runs on 8-GPU nodes with varied TP, PP, DP, CP, recompute and gradient overlap,
// so that compute and each kind of communication weigh differently in each run.
std::vector<SyntheticMegatronRun> variedLlamaRuns();

// Writes `runs` as logs run-0.log, run-1.log, ... in `dir`, each measuring what the cost model
// predicts for it on 8-GPU nodes of `gpu` under the preset's efficiencies with `inject` applied
// (the runs are first read back through the real reader, so the times are for exactly what the
// reader sees). Returns the paths; empty when a file cannot be written.
std::vector<std::string> writeRunsMeasuredUnder(const std::string& dir, std::vector<SyntheticMegatronRun> runs,
    const std::string& gpu, void (*inject)(hardware::Efficiency&));

} // namespace stratex::test
