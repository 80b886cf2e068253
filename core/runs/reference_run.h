// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/hardware/attention_kernels.h"
#include "core/hardware/cluster_description.h"
#include "core/runs/memory_outcomes.h"

namespace stratex::runs {

// Which number a record's peak memory is (resources/reference-runs/README.md, measured.peak_memory_kind).
enum class PeakMemoryKind {
    Allocated, // torch.cuda.max_memory_allocated
    Reserved, // torch.cuda.max_memory_reserved (torchtitan's "memory:" log line)
    Device, // what the GPU shows (nvidia-smi): reserved + CUDA context + NCCL buffers
};

std::string_view peakMemoryKindName(PeakMemoryKind kind); // "allocated", "reserved", "device"
std::optional<PeakMemoryKind> parsePeakMemoryKind(std::string_view name);

// Why the run's team chose its layout (record key "layout_purpose", resources/reference-runs/README.md).
// It says what a faster search pick means (search_claims.h): a demonstration's or an ablation's layout
// was not chosen for speed, so beating it is no claim over an expert-tuned layout.
enum class LayoutPurpose {
    Throughput, // run for speed: a production run, or a benchmark of the best layout its team found (absent key)
    Demonstration, // held fixed across a table to show a feature, a schedule or a scaling series
    Ablation, // a baseline without a technique that the same source measures beside it
};

std::string_view layoutPurposeName(LayoutPurpose purpose); // "throughput", "demonstration", "ablation"
std::optional<LayoutPurpose> parseLayoutPurpose(std::string_view name);

// A published (or the user's own) measurement of a real training run, as recorded in
// resources/reference-runs/ (format: that directory's README).
struct ReferenceRun {
    std::filesystem::path file;
    std::string id;
    // The publication the record comes from, what cross-validation leaves out as one: the record's
    // source.url, else its source.title, else its id (a run without a source is its own).
    std::string source;
    // The software release the record was measured with, as far as the record tells it: its
    // source.url and source.title together (the Megatron-Bridge archive is one page whose rows of
    // one NeMo container share a title), else source. What measured_rankings.h compares runs within.
    std::string release;
    int year = 0; // source.year: the publication's; 0 where the record does not give it
    bool fit = false; // "use": "fit"; otherwise a hold-out run, never fitted on
    bool verified = true;
    model::ModelDescription model;
    hardware::ClusterDescription cluster;
    megatron::ParallelStrategy strategy;
    // false: a memory-only record (it publishes peak memory and no time; always "holdout"). Its
    // measured_iteration_s is 0 and it enters no throughput error, fit or cross-validation of time.
    bool measured_time = true;
    double measured_iteration_s = 0; // from the most direct published quantity
    std::string measured_from; // "iteration_time_s", "tokens_per_s_per_gpu", "tflops_per_gpu (convention)", ...
    std::optional<double> peak_memory_gib;
    PeakMemoryKind peak_memory_kind = PeakMemoryKind::Device;
    bool peak_memory_kind_inferred = false; // not in the record: from its framework
    // The pipeline stage (0-based) whose rank published the peak, when the source logs one rank
    // only (Megatron's TensorBoard memory scalars come from the last rank); absent: the worst
    // stage, as a max over ranks is.
    std::optional<int> peak_memory_stage;
    bool framework_inferred = false; // the record has no "framework": from its source (strategy.framework)
    bool trained = true;
    // The attention kernel the run used (record key "attention_kernel"; docs/kernels.md §6), also
    // in strategy.attention_kernel: Default (the record is silent) is the framework's default on
    // its GPU; mpt-triton is costed at its own measured rate, the others relative to flash2's.
    hardware::AttentionKernel attention_kernel = hardware::AttentionKernel::Default;
    LayoutPurpose layout_purpose = LayoutPurpose::Throughput;
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
    // With a published peak memory: the prediction of the same kind (allocated, reserved or
    // device peak of the worst stage) and its error, predicted / measured - 1.
    std::optional<double> predicted_memory_gib;
    std::optional<double> memory_error;
};

ReferenceComparison compareWithRun(const ReferenceRun& run, const hardware::Efficiency& efficiency);

// What the comparison's fit check said against what the run did (memory_outcomes.h); for a
// costed comparison only.
MemoryOutcomeRow memoryOutcomeRow(const ReferenceComparison& comparison);

// Mean absolute throughput error over the runs that could be costed and publish a time.
double meanAbsoluteError(const std::vector<ReferenceComparison>& comparisons);

// The estimate's peak of the kind a record publishes, in GiB: allocated, reserved (allocated +
// allocator cache) or device peak of the worst stage, or of `stage` when given.
double predictedPeakMemoryGib(
    const megatron::Estimate& estimate, PeakMemoryKind kind, std::optional<int> stage = std::nullopt);

// One group of memory records (issue 23, "memory error per framework"): a framework, or a
// framework and the kind of number its records publish.
struct MemoryErrorSummary {
    megatron::Framework framework = megatron::Framework::MegatronCore;
    std::optional<PeakMemoryKind> kind; // set: only the records publishing this kind
    int records = 0;
    double mean_absolute_error = 0;
    double mean_error = 0; // signed, predicted / measured - 1: > 0 predicted too high
    double max_absolute_error = 0;
};

// A record's memory error, for the summaries: what `reference` and `--cross-validate` both group.
struct MemoryError {
    megatron::Framework framework = megatron::Framework::MegatronCore;
    PeakMemoryKind kind = PeakMemoryKind::Device;
    double error = 0; // predicted / measured - 1
};

// Mean absolute memory error per framework over the records with a memory error, frameworks in
// enum order, only those with records.
std::vector<MemoryErrorSummary> memoryErrorsByFramework(const std::vector<ReferenceComparison>& comparisons);
std::vector<MemoryErrorSummary> memoryErrorsByFramework(const std::vector<MemoryError>& errors);
// The same split further by the kind of number (allocated, reserved, device), kinds in enum order.
std::vector<MemoryErrorSummary> memoryErrorsByFrameworkAndKind(const std::vector<MemoryError>& errors);
// The memory errors of the comparisons that have one.
std::vector<MemoryError> memoryErrors(const std::vector<ReferenceComparison>& comparisons);

} // namespace stratex::runs
