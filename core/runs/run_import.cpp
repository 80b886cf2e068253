// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/run_import.h"

#include <algorithm>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/runs/chrome_trace_import.h"
#include "core/runs/log_text.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

namespace {

MeasuredRun importFile(const std::filesystem::path& file, const LogOptions& options)
{
    const std::string text = readTextFile(file);
    const std::string_view start = trimmed(std::string_view(text).substr(0, 4096));
    if (start.starts_with('{')) {
        requireBoundedTraceRead(file.string(), double(text.size())); // a document of ~12x the text
        const JsonDocument document = JsonDocument::parse(text, file.string());
        const JsonView root = document.root();
        root.requireObject();
        if (root.has("traceEvents"))
            return chromeTraceFromJson(document);
        if (root.has("measured") && root.has("strategy"))
            return readRecordRun(file);
        root.fail("a Chrome trace (\"traceEvents\") or a reference-run record (\"model\", \"cluster\", "
                  "\"strategy\", \"measured\")");
    }
    if (looksLikeMegatronLog(text))
        return parseMegatronLog(text, file.string(), options);
    throw InputError(file.string(), "",
        "a Megatron-LM log (its argument dump, \"iteration N/ M | consumed samples: ...\" lines or memory "
        "reports), a Chrome trace JSON or a reference-run record",
        "none of them; it starts with " + excerpt(start, 60));
}

} // namespace

MeasuredRun readRecordRun(const std::filesystem::path& file)
{
    const ReferenceRun record = readReferenceRun(file);
    MeasuredRun run;
    run.sources.push_back({ SourceKind::ReferenceRecord, file });
    run.model = record.model;
    run.strategy = record.strategy;
    run.cluster = record.cluster;
    run.world_size = record.cluster.worldSize();
    if (record.measured_time) { // a memory-only record measured no time
        run.iteration_ms = record.measured_iteration_s * 1e3;
        run.iteration_from = "reference-run: " + record.measured_from;
    }
    run.peak_memory_gib = record.peak_memory_gib;
    for (const std::string& assumption : record.assumptions)
        run.notes.push_back("assumed: " + assumption);
    // The per-stage peaks are this reader's addition to the record format.
    const JsonDocument document = JsonDocument::load(file);
    if (const std::optional<JsonView> stages = document.root()["measured"].find("peak_memory_per_stage_gib")) {
        stages->requireArray();
        if (int(stages->size()) != record.strategy.pp)
            stages->fail("one value per pipeline stage (" + std::to_string(record.strategy.pp) + ")");
        for (const JsonView& value : stages->elements())
            run.stage_peak_memory_gib.push_back(value.positiveNumber());
    }
    return run;
}

MeasuredRun importRun(const std::filesystem::path& path, const LogOptions& options)
{
    std::error_code error;
    if (!std::filesystem::is_directory(path, error))
        return importFile(path, options);
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
        if (entry.is_regular_file(error) && entry.path().extension() == ".json")
            files.push_back(entry.path());
    }
    if (error)
        throw Error(path.string() + ": cannot list the directory: " + error.message());
    if (files.empty())
        throw Error(path.string() + ": expected Chrome trace files (*.json, one per rank) in the directory, found none");
    std::ranges::sort(files);
    MeasuredRun run;
    for (const auto& file : files)
        mergeRun(run, importFile(file, options));
    return run;
}

MeasuredRun importRuns(const std::vector<std::filesystem::path>& paths, const LogOptions& options)
{
    MeasuredRun run;
    for (const auto& path : paths)
        mergeRun(run, importRun(path, options));
    return run;
}

} // namespace stratex::runs
