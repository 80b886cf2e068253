// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every bound Stratex puts on what comes in from a file or a flag, in one place, with the reason.
// A value beyond its bound is refused where it enters (loaders, the settings tables, the CLI)
// with an error naming the file or flag, the key path, the range and the value found, instead of
// a crash, a hang, an exhausted machine or a meaningless answer. The bounds are far above any
// real training run (the largest clusters have ~1e5 GPUs, the largest GPUs 288 GB) and low
// enough that the products of them fit the integers and the memory of a laptop.
//
// README.md's "Limits" section lists them (tst_input_limits keeps the two in sync): a new bound is
// a constant here, a row in allLimits() and the row pasted into the README.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::limits {

// Input files: read whole into memory and parsed, so their size bounds memory and time. Real
// inputs are far smaller: a Galvatron profile set is ~100 kB, a DynaPipe cost model ~1 MB, a
// lengths file of a million samples ~7 MB. `--max-input-mb` raises it for one run.
inline constexpr std::int64_t kDefaultMaxInputBytes = std::int64_t(64) << 20;
inline constexpr std::int64_t kMaxInputMb = 1 << 16; // what --max-input-mb accepts at most (64 GB)

// GPUs in a cluster (ranks, trace-ranks, search, profile synth): products of degrees and ranks stay
// far inside 64 bits, and per-rank tables stay allocatable.
inline constexpr int kMaxWorld = 1 << 24;
inline constexpr int kMaxNodes = 4096;
inline constexpr int kMaxGpusPerNode = 64;

// Transformer layers of a model (search, profile synth, strategy files): per-layer tables are
// computed for every layer, strategy and stage.
inline constexpr int kMaxLayers = 4096;

// Memory of one GPU in GB (search --memory-constraint, profile synth --gpu-memory-gb). The
// search's knapsack has one row per MB of it: 4096 GB is 4 million rows, ~0.25 GB of tables and
// a few seconds; 65536 GB needed 3.5 GB and 40 s.
inline constexpr int kMaxGpuMemoryGb = 4096;

// A memory value in a Galvatron memory profile (MB): the knapsack counts whole MB in an int, and a
// sum of a few thousand such values must not overflow it.
inline constexpr double kMaxProfileMemoryMb = 1e7;

// The planner's device memory (plan --memory-mb): 1 TB.
inline constexpr double kMaxPlannerMemoryMb = 1 << 20;

// A time per layer (Galvatron ms per sample, DynaPipe ms, simulation cases in us): one layer
// taking over 16 minutes is a unit mistake, and sums of such times must stay finite. Zero and
// negative times are refused too: they plan "for free".
inline constexpr double kMaxLayerTimeMs = 1e6;

// Global batch of the search (samples) and its micro-batches (chunks <= the batch).
inline constexpr int kMaxBatch = 1 << 20;

// Samples of one global batch given to the planner (a lengths file or --synthetic) and the tokens
// of one sample.
inline constexpr int kMaxSamples = 1 << 20;
inline constexpr int kMaxSampleTokens = 1 << 24;

// Simulation cases files: every micro-batch holds a cost per layer; a number given for all layers
// expands to one per layer, so a 2 MB file could ask for billions. Summed over the file's cases.
inline constexpr std::int64_t kMaxSimLayerCosts = std::int64_t(1) << 22;

// The planner's work once the micro-batches are known (M micro-batches, P stages): fast mode
// fits memory over in-flight windows, ~M x P x min(M, 2P) footprints; normal mode adjusts
// recompute until it converges, ~M^3 x P. The budgets are about a minute on one core.
inline constexpr double kMaxPlannerFastWork = 4e6;
inline constexpr double kMaxPlannerNormalWork = 4e8;

// The Galvatron search: every task (batch size x chunks x pp x TP/SP mode x buffer TP) keeps an
// outcome in memory (215,705 tasks took 185 MB), so their number is a hard limit. The knapsack
// work (search_work.h: per task strategies^2 x layers x MB rows, an upper bound: families share
// knapsacks) is a soft budget, about a minute on one core -- the CLI refuses beyond it, the GUI
// asks. Measured on the bundled example (2 x 8 GPUs, 40 GB, 40 layers) on a busy core: batches
// 8..512 1.1e13 cells 4 s, 8..4096 1.4e14 cells 15 s.
inline constexpr std::int64_t kMaxSearchTasks = std::int64_t(1) << 20;
inline constexpr double kMaxSearchWork = 5e14;

// One bound as README.md lists it.
struct Limit {
    std::string_view what; // "Input file size"
    std::string value; // "64 MB"
    std::string_view where; // the files and flags it applies to
    std::string_view why;
    std::string raise; // how to raise it, or "fixed"
};

const std::vector<Limit>& allLimits();

// The README's table row of a limit: "| what | value | where | why | raise |".
std::string markdownRow(const Limit& limit);

} // namespace stratex::limits
