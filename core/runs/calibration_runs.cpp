// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/calibration_runs.h"

#include <algorithm>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/runs/chrome_trace_import.h"
#include "core/runs/log_text.h"
#include "core/runs/run_import.h"

namespace stratex::runs {

namespace {

constexpr double kMibPerGib = 1024.0;

// One file, one run. A JSON file that is not a Chrome trace is a run record, read by its own reader:
// it names the key that is wrong (importRun() would only say the file is neither kind) and keeps
// the record's "use".
ReferenceRun fileRun(const std::filesystem::path& file, const CalibrationRunOptions& options)
{
    const std::string text = readTextFile(file);
    if (!trimmed(std::string_view(text).substr(0, 4096)).starts_with('{'))
        return calibrationRun(importRun(file, options.log), options.cluster, file);
    const JsonDocument document = JsonDocument::parse(text, file.string());
    if (document.root().isObject() && document.root().has("traceEvents"))
        return calibrationRun(chromeTraceFromJson(document), options.cluster, file);
    return readReferenceRun(file);
}

} // namespace

ReferenceRun calibrationRun(const MeasuredRun& run, const ClusterChoice& choice, const std::filesystem::path& file)
{
    requireCostable(run); // its errors name the run's files
    if (!run.iteration_ms)
        throw Error(file.string()
            + ": the run measured no iteration time (a Megatron log's iteration lines, or a "
              "trace of one iteration)");
    ReferenceRun out;
    out.file = file;
    out.id = file.stem().string();
    out.source = file.string(); // a log or a trace: its own source
    out.fit = true;
    out.model = *run.model;
    out.strategy = *run.strategy;
    out.cluster = resolveCluster(run, choice);
    out.measured_iteration_s = *run.iteration_ms / 1e3;
    out.measured_from = run.iteration_from;
    out.peak_memory_gib = run.peak_memory_gib;
    // What the allocator held at its peak on the fullest rank: what the model's peak predicts.
    for (const RankMemory& memory : run.memory)
        out.peak_memory_gib = std::max(out.peak_memory_gib.value_or(0.0), memory.max_reserved_mib / kMibPerGib);
    out.assumptions = run.notes;
    return out;
}

std::vector<ReferenceRun> readCalibrationRuns(
    const std::vector<std::filesystem::path>& paths, const CalibrationRunOptions& options)
{
    std::vector<ReferenceRun> runs;
    std::string named;
    for (const std::filesystem::path& path : paths) {
        named += (named.empty() ? "" : ", ") + path.string();
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            for (ReferenceRun& run : readReferenceRuns(path))
                runs.push_back(std::move(run));
            continue;
        }
        runs.push_back(fileRun(path, options));
    }
    if (runs.empty())
        throw Error("calibrate: no runs (run records *.json, Megatron-LM logs or Chrome traces) in " + named);
    return runs;
}

} // namespace stratex::runs
