// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/measured_run.h"

#include <algorithm>

#include "core/common/error.h"

namespace stratex::runs {

std::string_view sourceKindName(SourceKind kind)
{
    switch (kind) {
    case SourceKind::MegatronLog: return "megatron-log";
    case SourceKind::ChromeTrace: return "chrome-trace";
    case SourceKind::ReferenceRecord: return "reference-run";
    }
    return "";
}

namespace {

template <typename T> void keepFirst(std::optional<T>& into, std::optional<T>& from)
{
    if (!into && from)
        into = std::move(from);
}

std::string fileOfRank(const std::vector<RunSource>& sources, SourceKind kind)
{
    for (const RunSource& source : sources) {
        if (source.kind == kind)
            return source.file.string();
    }
    return "?";
}

std::string filesOf(const std::vector<RunSource>& sources)
{
    std::string files;
    for (const RunSource& source : sources)
        files += (files.empty() ? "" : ", ") + source.file.string();
    return files.empty() ? std::string("?") : files;
}

// The shape that decides the cost (the name does not): sources of one run must agree on it.
bool sameShape(const model::ModelDescription& a, const model::ModelDescription& b)
{
    return a.num_layers == b.num_layers && a.hidden_size == b.hidden_size && a.ffn_hidden_size == b.ffn_hidden_size
        && a.num_heads == b.num_heads && a.num_kv_heads == b.num_kv_heads && a.vocab_size == b.vocab_size
        && a.seq_length == b.seq_length && a.moe.has_value() == b.moe.has_value();
}

// Sources of one run describe the same model on the same GPUs: a log of another model, or a
// 1024-GPU trace, was merged into a 16-GPU run without a word (issue 26).
void requireSameRun(const MeasuredRun& into, const MeasuredRun& from)
{
    const auto world = [](const MeasuredRun& run) -> std::optional<int> {
        if (run.world_size)
            return run.world_size;
        if (run.cluster)
            return run.cluster->worldSize();
        return std::nullopt;
    };
    const std::optional<int> intoWorld = world(into);
    const std::optional<int> fromWorld = world(from);
    if (intoWorld && fromWorld && *intoWorld != *fromWorld)
        throw Error(filesOf(from.sources) + ": a run of " + std::to_string(*fromWorld) + " GPUs, not of the "
            + std::to_string(*intoWorld) + " of " + filesOf(into.sources) + ": the sources of one run must agree");
    if (into.model && from.model && !sameShape(*into.model, *from.model))
        throw Error(filesOf(from.sources) + ": another model (" + std::to_string(from.model->num_layers)
            + " layers, hidden " + std::to_string(from.model->hidden_size) + ") than " + filesOf(into.sources) + " ("
            + std::to_string(into.model->num_layers) + " layers, hidden " + std::to_string(into.model->hidden_size)
            + "): the sources of one run must agree");
    const std::optional<int> runWorld = intoWorld ? intoWorld : fromWorld;
    if (runWorld) {
        for (const MeasuredRun* run : { &into, &from }) {
            for (const RankTrace& trace : run->traces) {
                if (trace.rank >= *runWorld)
                    throw Error(filesOf(run->sources) + ": a trace of rank " + std::to_string(trace.rank)
                        + ", beyond the run's " + std::to_string(*runWorld) + " GPUs");
            }
        }
    }
}

} // namespace

void mergeRun(MeasuredRun& into, MeasuredRun from)
{
    requireSameRun(into, from);
    const bool fromLog = std::ranges::any_of(from.sources, [](const RunSource& s) { return s.kind == SourceKind::MegatronLog; });
    const bool intoFromTraceOnly = !into.iteration_from.empty() && into.iteration_from.starts_with("chrome-trace");
    // A model and strategy come together from one source (a log's dump or a record).
    if (!into.model && from.model) {
        into.model = std::move(from.model);
        into.strategy = std::move(from.strategy);
        into.rank_order = from.rank_order;
        into.missing.clear();
    } else if (!into.model && into.missing.empty()) {
        into.missing = from.missing;
    }
    keepFirst(into.world_size, from.world_size);
    keepFirst(into.cluster, from.cluster);
    if (into.gpu_name.empty())
        into.gpu_name = from.gpu_name;

    if (from.iteration_ms && (!into.iteration_ms || (fromLog && intoFromTraceOnly))) {
        into.iteration_ms = from.iteration_ms;
        into.iteration_from = from.iteration_from;
        into.iterations_used = from.iterations_used;
        into.iterations_skipped = from.iterations_skipped;
    } else if (from.iteration_ms && from.iteration_from.starts_with("chrome-trace") && intoFromTraceOnly
        && *from.iteration_ms > *into.iteration_ms) {
        // Traces of several ranks: the iteration ends when the slowest rank does.
        into.iteration_ms = from.iteration_ms;
        into.iteration_from = from.iteration_from;
    }
    keepFirst(into.logged_tflops_per_gpu, from.logged_tflops_per_gpu);
    keepFirst(into.peak_memory_gib, from.peak_memory_gib);
    if (into.stage_peak_memory_gib.empty())
        into.stage_peak_memory_gib = std::move(from.stage_peak_memory_gib);
    if (into.memory.empty())
        into.memory = std::move(from.memory);
    if (into.timers.empty())
        into.timers = std::move(from.timers);

    for (RankTrace& trace : from.traces) {
        if (std::ranges::any_of(into.traces, [&](const RankTrace& t) { return t.rank == trace.rank; }))
            throw Error("rank " + std::to_string(trace.rank) + " is traced twice: in "
                + fileOfRank(into.sources, SourceKind::ChromeTrace) + " and in "
                + fileOfRank(from.sources, SourceKind::ChromeTrace));
        into.traces.push_back(std::move(trace));
    }
    std::ranges::sort(into.traces, {}, &RankTrace::rank);
    for (RunSource& source : from.sources)
        into.sources.push_back(std::move(source));
    for (std::string& note : from.notes)
        into.notes.push_back(std::move(note));
}

} // namespace stratex::runs
