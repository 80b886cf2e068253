// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/hardware/cluster_description.h"

namespace stratex::runs {

// A published (or the user's own) measurement of a real training run, as recorded in
// resources/reference-runs/ (format: that directory's README).
struct ReferenceRun {
    std::filesystem::path file;
    std::string id;
    // The publication the record comes from, what cross-validation leaves out as one: the record's
    // source.url, else its source.title, else its id (a run without a source is its own).
    std::string source;
    bool fit = false; // "use": "fit"; otherwise a hold-out run, never fitted on
    bool verified = true;
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    megatron::ParallelStrategy strategy;
    double measured_iteration_s = 0; // from the most direct published quantity
    std::string measured_from; // "iteration_time_s", "tokens_per_s_per_gpu", "tflops_per_gpu (convention)", ...
    std::optional<double> peak_memory_gib;
    bool trained = true;
    std::vector<std::string> assumptions; // defaults filled in where the record is silent
};

// Reads one record. Throws InputError naming file and key for a malformed record.
ReferenceRun readReferenceRun(const std::filesystem::path& file);
// Every *.json under `dir`, by file name.
std::vector<ReferenceRun> readReferenceRuns(const std::filesystem::path& dir);

struct ReferenceComparison {
    const ReferenceRun* run = nullptr;
    megatron::Estimate estimate;
    double predicted_iteration_s = 0;
    // Predicted over measured throughput, minus 1: > 0 when Stratex promises more than the run
    // achieved (too optimistic), < 0 when too pessimistic.
    double throughput_error = 0;
    bool predicted_oom = false;
};

ReferenceComparison compareWithRun(const ReferenceRun& run, const hardware::Efficiency& efficiency);

// Mean absolute throughput error over the runs that could be costed.
double meanAbsoluteError(const std::vector<ReferenceComparison>& comparisons);

} // namespace stratex::runs
