// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"
#include "core/common/work_limits.h"

#include <cstdio>

namespace stratex::limits {

namespace {

std::string count(double value)
{
    // 16777216 -> "16,777,216"
    char digits[32];
    std::snprintf(digits, sizeof digits, "%.0f", value);
    const std::string text = digits;
    // Appended rather than inserted: GCC 12 warns (-Wrestrict, a false positive, GCC bug 105651)
    // on std::string::insert of a literal.
    std::string grouped;
    grouped.reserve(text.size() + text.size() / 3);
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (i > 0 && (text.size() - i) % 3 == 0)
            grouped += ',';
        grouped += text[i];
    }
    return grouped;
}

std::string scientific(double value)
{
    // 1e7 -> "1e7", 4e+08 -> "4e8"
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    std::string result = text;
    if (const auto e = result.find("e+"); e != std::string::npos) {
        std::size_t digits = e + 2;
        while (digits + 1 < result.size() && result[digits] == '0')
            ++digits;
        result = result.substr(0, e + 1) + result.substr(digits);
    }
    return result;
}

} // namespace

// The Limits row of the mode comparison states the fixed cost per planning in words.
static_assert(kPlanCompareFixedSamples == 2, "update the \"Mode comparison work\" row and the README");

const std::vector<Limit>& allLimits()
{
    static const std::vector<Limit> limits {
        { "Input file size", count(double(kDefaultMaxInputBytes >> 20)) + " MB",
            "every file read (profiles, cost models, cases, lengths, batch files, strategies); regular files only",
            "files are read whole; real ones are under 10 MB",
            "`--max-input-mb N` (up to " + count(double(kMaxInputMb)) + ")" },
        { "GPUs (world size)", count(kMaxWorld), "`ranks`, `trace-ranks`, `search`, `profile synth`",
            "rank products stay in 64 bits, per-rank tables allocatable", "fixed" },
        { "Nodes x GPUs per node", count(kMaxNodes) + " x " + count(kMaxGpusPerNode),
            "`--num-nodes`, `--num-gpus-per-node`, run records", "beyond any cluster built", "fixed" },
        { "Layers", count(kMaxLayers), "`--num-layers`, strategy files, plan files, run records", "per-layer tables per strategy and stage",
            "fixed" },
        { "GPU memory", count(kMaxGpuMemoryGb) + " GB", "`search --memory-constraint`, `profile synth --gpu-memory-gb`",
            "the knapsack has a row per MB: 65536 GB needed 3.5 GB of RAM", "fixed" },
        { "Memory value in a profile", scientific(kMaxProfileMemoryMb) + " MB", "Galvatron memory profiles",
            "whole MB summed in an int", "fixed" },
        { "Planner device memory", count(kMaxPlannerMemoryMb) + " MB", "`plan --memory-mb`", "1 TB per device",
            "fixed" },
        { "Time per layer", scientific(kMaxLayerTimeMs) + " ms, and above 0",
            "Galvatron computation profiles, DynaPipe cost models, simulation cases",
            "a unit mistake beyond; sums stay finite; zero plans for free", "fixed" },
        { "Global batch", count(kMaxBatch) + " samples", "`search` batch flags; chunks at most the batch",
            "per-sample tables", "fixed" },
        { "Samples", count(kMaxSamples), "lengths files, `--synthetic`", "the micro-batch DP is per sample", "fixed" },
        { "Sample length", count(kMaxSampleTokens) + " tokens", "lengths files", "token counts in an int", "fixed" },
        { "Simulation layer costs", count(double(kMaxSimLayerCosts)),
            "cases files: micro-batches x layers, summed over cases", "a per-layer number expands to every layer",
            "fixed" },
        { "Search tasks", count(double(kMaxSearchTasks)),
            "`search` (Galvatron cost model): batch sizes x chunk counts x pp x TP/SP modes x buffer TP",
            "every task keeps its outcome in memory", "fixed (refused in the GUI too)" },
        { "Search work", scientific(kMaxSearchWork),
            "`search` (Galvatron cost model): knapsack cells, tasks x strategies^2 x layers x MB of memory",
            "about a minute on one core", "`--lift-work-budget`; the GUI asks and runs it anyway" },
        { "Stratex search work", scientific(kMaxStratexSearchWork),
            "`search --cost-model stratex`: pipeline steps simulated, kept plans x 25 simulations (the search and "
            "the ranking's what-ifs) x the median candidate's micro-batches x pp x vpp",
            "about a minute on one core", "`--lift-work-budget`; a smaller global batch" },
        { "Planner work, fast mode", scientific(kMaxPlannerFastWork),
            "`plan`, `plan-compare`: M micro-batches x P stages x min(M, 2P)", "about a minute on one core",
            "`--lift-work-budget`; the Planner page asks and plans anyway" },
        { "Planner work, normal mode", scientific(kMaxPlannerNormalWork),
            "`plan --mode normal`, `plan-compare`: M^3 x P", "about a minute on one core",
            "`--lift-work-budget`; the Planner page asks and plans anyway" },
        { "Micro-batching work", scientific(kMaxMicroBatchingWork),
            "`plan`, `plan-compare`: runs the micro-batch DP prices, samples x the longest run within the memory "
            "(its table, at most 4 bytes a run, stays under 800 MB)",
            "about 10 s of the DP on a busy core, before the planner's own budget",
            "`--lift-work-budget`; the Planner page asks and plans anyway" },
        { "Mode comparison work", count(kMaxPlanCompareWork),
            // kPlanCompareFixedSamples is the "2 per planning".
            "`plan-compare`, the Planner page's Compare modes: sample-stages, batches x seeds x 2 modes x (samples + 2 "
            "per planning) x stages, before any planning",
            "about a minute on one core; each planning keeps its own budgets",
            "`--lift-work-budget`; the Planner page asks and compares anyway" },
        { "Simulation work", scientific(kMaxSimulationWork),
            "`simulate`: chunk passes (stages x micro-batches) summed over the cases, x2 with a timeline, +2.3 per "
            "traced pass (~1.1 kB of trace each)",
            "about a minute on one core", "`--lift-work-budget`" },
        { "Job memory", count(kMaxJobMemoryMb) + " MB",
            "`simulate` and `export --to pytorch-schedule` (360 bytes a chunk pass, 660 with a timeline), a JSON "
            "trace in `compare-run` (12 times the file)",
            "a command stays under 2 GB", "`--lift-work-budget`" },
        { "Worker threads", count(kMaxThreads), "`search --threads` (more are clamped)",
            "more threads than cores only cost memory; past a few hundred they could not be created", "fixed" },
        { "Model shape",
            "hidden " + count(kMaxHiddenSize) + ", MLP " + count(kMaxFfnHiddenSize) + ", heads " + count(kMaxHeads)
                + ", vocabulary " + count(kMaxVocabulary) + ", sequence " + count(kMaxSeqLength) + ", experts "
                + count(kMaxExperts),
            "the model flags, plan files, strategy files, run records", "token and parameter products stay finite",
            "fixed" },
        { "Model name", count(kMaxNameLength) + " bytes", "plan files, strategy files, run records",
            "shown in labels, file names and exports", "fixed" },
        { "Measured values", "iteration " + count(kMaxMeasuredIterationS) + " s, " + count(kMaxGpuTflops)
                + " TFLOP/s per GPU, " + scientific(kMaxTokensPerSPerGpu) + " tokens/s per GPU, MFU 1, above 0",
            "run records (`reference`, `calibrate`), Megatron-LM logs", "a unit mistake or a corrupt file; a calibration fits nonsense",
            "fixed" },
        { "Calibration work", scientific(kMaxCalibrationWork),
            "`calibrate`, `reference --cross-validate`: run evaluations, fits x runs x (3 + iterations x (parameters + 2))",
            "about a minute on one core; leave-one-out is n + 1 fits over n runs", "`--lift-work-budget`; the Calibrate page asks and runs it anyway" },
    };
    return limits;
}

std::string markdownRow(const Limit& limit)
{
    return "| " + std::string(limit.what) + " | " + limit.value + " | " + std::string(limit.where) + " | "
        + std::string(limit.why) + " | " + limit.raise + " |";
}

} // namespace stratex::limits
