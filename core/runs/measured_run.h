// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a real training job measured, gathered from the files a user has after it: a Megatron-LM
// log (megatron_log.h), Chrome traces of one iteration from the PyTorch profiler
// (chrome_trace.h), or a reference-run record (resources/reference-runs). Every quantity is
// optional: each source gives some of them, and run_import.h merges several sources of one run.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/megatron/parallel_strategy.h"
#include "core/hardware/cluster_description.h"

namespace stratex::runs {

enum class SourceKind { MegatronLog, ChromeTrace, ReferenceRecord };
std::string_view sourceKindName(SourceKind kind); // "megatron-log", "chrome-trace", "reference-run"

struct RunSource {
    SourceKind kind = SourceKind::MegatronLog;
    std::filesystem::path file;
};

// Megatron's report_memory line of one rank ("[Rank r] (after N iterations) memory (MB) | ..."):
// torch.cuda's allocator counters in MiB (2^20 bytes), as Megatron prints them.
struct RankMemory {
    int rank = 0;
    int after_iterations = 0; // of the last report read; the maxima are over all reports
    double allocated_mib = 0;
    double max_allocated_mib = 0;
    double reserved_mib = 0;
    double max_reserved_mib = 0;
};

// A Megatron timer (megatron/core/timers.py) as logged per iteration, in ms: min and max across
// ranks, or one value per rank with --timing-log-option all. Means over the iterations kept.
struct TimerValue {
    std::string name; // "forward-compute", "backward-compute", "forward-recv", ...
    double min_ms = 0;
    double max_ms = 0;
    std::vector<std::pair<int, double>> rank_ms; // (rank, ms): only with --timing-log-option all
};

// One busy interval of a rank's GPU in a trace, for the timeline: ms from the iteration's start.
enum class LaneKind { Forward, Backward, PipelineComm, DataParallelComm, Other };

struct TraceInterval {
    double start_ms = 0;
    double end_ms = 0;
    LaneKind kind = LaneKind::Other;
};

// One rank's GPU time in a traced iteration (ms per iteration), from its kernels. Compute is every
// kernel, memcpy and memset that is not an NCCL kernel; a kernel belongs to the backward when the
// CPU op that launched it runs inside an autograd engine function, to the forward when it runs
// inside none but an iteration (ProfilerStep) is open. Collectives are sorted by process group
// (kineto's "Process Group Description") where the trace names it, otherwise by NCCL kernel.
struct RankTrace {
    int rank = 0;
    int device = 0;
    double span_ms = 0; // first GPU activity to last, per iteration
    double forward_compute_ms = 0;
    double backward_compute_ms = 0;
    double other_compute_ms = 0; // optimizer, loss, anything outside forward and backward
    double layer_comm_forward_ms = 0; // TP/CP/EP collectives (and collectives of unnamed groups)
    double layer_comm_backward_ms = 0;
    double dp_comm_ms = 0; // data-parallel gradient reduction and parameter gathering
    double pp_comm_ms = 0; // pipeline send/recv
    double exposed_comm_ms = 0; // communication while no compute kernel ran
    double all_reduce_ms = 0; // NCCL kernel time by collective
    double all_gather_ms = 0;
    double reduce_scatter_ms = 0;
    double all_to_all_ms = 0;
    double send_recv_ms = 0;
    double other_comm_ms = 0;
    int kernels = 0;
    int nccl_kernels = 0;
    std::vector<TraceInterval> intervals; // merged busy intervals by kind, for the timeline

    double forwardMs() const { return forward_compute_ms + layer_comm_forward_ms; }
    double backwardMs() const { return backward_compute_ms + layer_comm_backward_ms; }
};

struct MeasuredRun {
    std::vector<RunSource> sources;
    std::optional<model::ModelDescription> model;
    std::optional<megatron::ParallelStrategy> strategy;
    std::optional<int> world_size;
    std::string rank_order = "tp-cp-ep-dp-pp";
    std::optional<hardware::ClusterDescription> cluster; // a record names it; logs and traces do not
    std::string gpu_name; // a trace's deviceProperties name ("NVIDIA A100-SXM4-80GB"), for messages
    std::vector<std::string> missing; // Megatron arguments the sources did not give

    std::optional<double> iteration_ms;
    std::string iteration_from; // "megatron-log: mean of iterations 3-8", "chrome-trace: ...", "record: ..."
    std::vector<int> iterations_used; // Megatron log: the iteration numbers averaged
    std::vector<int> iterations_skipped; // ... and those left out as warm-up
    std::optional<double> logged_tflops_per_gpu; // Megatron's own figure (its FLOPs formula)

    std::vector<RankMemory> memory; // by rank, ascending
    std::optional<double> peak_memory_gib; // a record's published peak
    std::vector<double> stage_peak_memory_gib; // a record's optional per-stage peaks
    std::vector<TimerValue> timers;
    std::vector<RankTrace> traces; // by rank, ascending
    std::vector<std::string> notes;
};

// Takes what `from` measured into `into`: the first source to give a value keeps it, except that
// a log's iteration time wins over a trace's (it averages many iterations). Ranks seen twice
// (the same rank's trace in two files) are an error naming both files.
void mergeRun(MeasuredRun& into, MeasuredRun from);

} // namespace stratex::runs
