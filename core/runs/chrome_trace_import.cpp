// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/chrome_trace_import.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

#include "core/common/bounded_read.h"
#include "core/common/work_limits.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"

namespace stratex::runs {

namespace {

using Json = nlohmann::ordered_json;

enum class Phase { Forward, Backward, Other };
enum class CommGroup { Layer, DataParallel, Pipeline };
enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv, Other };

// The timeline keeps at most this many busy intervals per rank (merged ones); a longer trace's
// timeline is cut there (its sums stay exact).
constexpr std::size_t kMaxIntervalsPerRank = 100000;
// Kernels closer than this (ms) with the same kind are drawn as one interval.
constexpr double kMergeGapMs = 0.05;

struct Span {
    double start_us = 0;
    double end_us = 0;
};

struct CpuOp {
    std::string thread; // pid/tid as the file spells them
    double ts_us = 0;
    Phase phase = Phase::Forward;
};

struct GpuEvent {
    int device = 0;
    double start_us = 0;
    double end_us = 0;
    bool nccl = false;
    Collective collective = Collective::Other;
    CommGroup group = CommGroup::Layer;
    std::optional<std::int64_t> external_id;
};

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    if (text.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i])
            return false;
    }
    return true;
}

// c10d's names (record_param_comms "Collective name") first, NCCL's kernel names second.
Collective collectiveOf(std::string_view kernel, std::string_view collectiveName)
{
    const auto has = [](std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; };
    if (!collectiveName.empty()) {
        if (has(collectiveName, "all_to_all") || has(collectiveName, "alltoall"))
            return Collective::AllToAll;
        if (has(collectiveName, "reduce_scatter"))
            return Collective::ReduceScatter;
        if (has(collectiveName, "allgather") || has(collectiveName, "all_gather"))
            return Collective::AllGather;
        if (has(collectiveName, "allreduce") || has(collectiveName, "all_reduce"))
            return Collective::AllReduce;
        if (collectiveName == "send" || collectiveName == "recv" || has(collectiveName, "isend")
            || has(collectiveName, "irecv"))
            return Collective::SendRecv;
    }
    if (has(kernel, "AllReduce"))
        return Collective::AllReduce;
    if (has(kernel, "AllGather"))
        return Collective::AllGather;
    if (has(kernel, "ReduceScatter"))
        return Collective::ReduceScatter;
    if (has(kernel, "AllToAll") || has(kernel, "Alltoall"))
        return Collective::AllToAll;
    if (has(kernel, "SendRecv") || has(kernel, "Send") || has(kernel, "Recv"))
        return Collective::SendRecv;
    return Collective::Other;
}

// Megatron's process-group descriptions (megatron/core/parallel_state.py group_desc=...).
CommGroup groupOf(std::string_view description, Collective collective)
{
    const auto has = [&](std::string_view part) { return description.find(part) != std::string_view::npos; };
    if (has("PIPELINE"))
        return CommGroup::Pipeline;
    if (has("DATA_PARALLEL") || has("DISTRIBUTED_OPTIMIZER") || has("EMBEDDING"))
        return CommGroup::DataParallel;
    if (has("TENSOR") || has("CONTEXT") || has("EXPERT"))
        return CommGroup::Layer;
    // An unnamed group: point-to-point is the pipeline's, the rest counts in its phase.
    return collective == Collective::SendRecv ? CommGroup::Pipeline : CommGroup::Layer;
}

// Merges intervals (sorted by start) into their union.
std::vector<Span> unionOf(std::vector<Span> spans)
{
    std::ranges::sort(spans, {}, &Span::start_us);
    std::vector<Span> merged;
    for (const Span& s : spans) {
        if (!merged.empty() && s.start_us <= merged.back().end_us)
            merged.back().end_us = std::max(merged.back().end_us, s.end_us);
        else
            merged.push_back(s);
    }
    return merged;
}

double lengthOf(const std::vector<Span>& spans)
{
    double total = 0;
    for (const Span& s : spans)
        total += s.end_us - s.start_us;
    return total;
}

// Time of `a` (a union) not covered by `b` (a union).
double uncoveredUs(const std::vector<Span>& a, const std::vector<Span>& b)
{
    double covered = 0;
    std::size_t j = 0;
    for (const Span& s : a) {
        while (j < b.size() && b[j].end_us <= s.start_us)
            ++j;
        for (std::size_t k = j; k < b.size() && b[k].start_us < s.end_us; ++k)
            covered += std::min(s.end_us, b[k].end_us) - std::max(s.start_us, b[k].start_us);
    }
    return lengthOf(a) - covered;
}

bool inside(const std::vector<Span>& unionSpans, double ts)
{
    const auto it = std::ranges::upper_bound(unionSpans, ts, {}, &Span::start_us);
    return it != unionSpans.begin() && ts < std::prev(it)->end_us;
}

class TraceParser {
public:
    explicit TraceParser(const JsonDocument& document)
        : m_document(document)
        , m_file(std::make_shared<const std::string>(document.file()))
    {
    }

    MeasuredRun run()
    {
        const JsonView root = m_document.root();
        root.requireObject();
        MeasuredRun run;
        run.sources.push_back({ SourceKind::ChromeTrace, *m_file });
        std::optional<int> fileRank;
        if (const std::optional<JsonView> info = root.find("distributedInfo")) {
            info->requireObject();
            if (const std::optional<JsonView> rank = info->find("rank")) {
                const std::int64_t value = rank->integer();
                if (value < 0 || value >= limits::kMaxWorld)
                    rank->fail("a rank from 0 to " + std::to_string(limits::kMaxWorld - 1));
                fileRank = int(value);
            }
            if (const std::optional<JsonView> world = info->find("world_size")) {
                const std::int64_t value = world->integer();
                if (value < 1 || value > limits::kMaxWorld)
                    world->fail("a world size from 1 to " + std::to_string(limits::kMaxWorld));
                run.world_size = int(value);
            }
        }
        if (const std::optional<JsonView> devices = root.find("deviceProperties");
            devices && devices->isArray() && devices->size() > 0 && devices->at(0).isObject()) {
            if (const std::optional<JsonView> gpu = devices->at(0).find("name"); gpu && gpu->isString())
                run.gpu_name = gpu->string();
        }
        const JsonView events = root["traceEvents"];
        events.requireArray();
        const Json& raw = events.raw();
        for (std::size_t i = 0; i < raw.size(); ++i)
            readEvent(raw[i], i);
        classifyCpuOps();
        summarise(run, fileRank);
        return run;
    }

private:
    JsonView view(const Json& value, std::size_t index, std::string_view key) const
    {
        return JsonView(value, m_file, "/traceEvents/" + std::to_string(index) + (key.empty() ? "" : "/") + std::string(key));
    }

    double number(const Json& event, std::size_t index, std::string_view key, bool nonNegative) const
    {
        const auto it = event.find(key);
        if (it == event.end())
            view(event, index, "").failMissing(key);
        if (!it->is_number())
            view(*it, index, key).fail("a number (microseconds)");
        const double value = it->get<double>();
        if (!std::isfinite(value) || (nonNegative && value < 0))
            view(*it, index, key).fail(nonNegative ? "a finite number >= 0" : "a finite number");
        return value;
    }

    static std::string_view stringField(const Json& object, std::string_view key)
    {
        const auto it = object.find(key);
        return it != object.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>()) : std::string_view();
    }

    static std::optional<std::int64_t> integerField(const Json& object, std::string_view key)
    {
        const auto it = object.find(key);
        if (it == object.end() || !it->is_number())
            return std::nullopt;
        if (it->is_number_integer())
            return it->get<std::int64_t>();
        const double value = it->get<double>();
        if (!std::isfinite(value) || value != std::floor(value) || std::abs(value) > 9e15)
            return std::nullopt;
        return std::int64_t(value);
    }

    static std::string threadKey(const Json& event)
    {
        const auto pid = event.find("pid");
        const auto tid = event.find("tid");
        return (pid != event.end() ? pid->dump() : std::string()) + "/" + (tid != event.end() ? tid->dump() : std::string());
    }

    void readEvent(const Json& event, std::size_t index)
    {
        if (!event.is_object())
            view(event, index, "").fail("an event object");
        const auto ph = event.find("ph");
        if (ph == event.end())
            view(event, index, "").failMissing("ph");
        if (!ph->is_string())
            view(*ph, index, "ph").fail("a string (the event's phase)");
        if (ph->get_ref<const std::string&>() != "X")
            return;
        const std::string_view cat = stringField(event, "cat");
        const std::string_view name = stringField(event, "name");
        const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
        const bool cpu = cat == "cpu_op" || cat == "user_annotation";
        if (!gpu && !cpu)
            return;
        const double ts = number(event, index, "ts", false);
        const double dur = number(event, index, "dur", true);
        const auto argsIt = event.find("args");
        static const Json kNoArgs = Json::object();
        const Json& args = argsIt != event.end() && argsIt->is_object() ? *argsIt : kNoArgs;
        if (cpu) {
            if (name.starts_with("ProfilerStep#")) {
                m_steps.push_back({ ts, ts + dur });
                return;
            }
            const std::string thread = threadKey(event);
            if (name.starts_with("autograd::engine::evaluate_function"))
                m_backwardSpans[thread].push_back({ ts, ts + dur });
            else if (name.starts_with("Optimizer.step#") || name.starts_with("Optimizer.zero_grad#"))
                m_optimizerSpans[thread].push_back({ ts, ts + dur });
            if (const std::optional<std::int64_t> id = integerField(args, "External id")) {
                const Phase phase = name.find("Backward") != std::string_view::npos ? Phase::Backward : Phase::Forward;
                m_ops.insert_or_assign(*id, CpuOp { thread, ts, phase });
            }
            return;
        }
        GpuEvent e;
        std::optional<std::int64_t> device = integerField(args, "device");
        if (!device)
            device = integerField(event, "pid");
        if (!device || *device < 0 || *device >= limits::kMaxGpusPerNode * 64)
            view(event, index, "args").fail("a GPU event with \"args\": {\"device\": <GPU index>} or a numeric \"pid\"");
        e.device = int(*device);
        e.start_us = ts;
        e.end_us = ts + dur;
        e.external_id = integerField(args, "External id");
        if (cat == "kernel" && startsWithNoCase(name, "nccl")) {
            e.nccl = true;
            e.collective = collectiveOf(name, stringField(args, "Collective name"));
            e.group = groupOf(stringField(args, "Process Group Description"), e.collective);
        }
        m_gpu.push_back(e);
    }

    // Each CPU op's phase: inside an autograd engine function -> backward, inside an optimizer
    // annotation -> other, else forward (or backward by its own name).
    void classifyCpuOps()
    {
        for (auto& [thread, spans] : m_backwardSpans)
            spans = unionOf(std::move(spans));
        for (auto& [thread, spans] : m_optimizerSpans)
            spans = unionOf(std::move(spans));
        for (auto& [id, op] : m_ops) {
            if (const auto b = m_backwardSpans.find(op.thread); b != m_backwardSpans.end() && inside(b->second, op.ts_us))
                op.phase = Phase::Backward;
            else if (const auto o = m_optimizerSpans.find(op.thread);
                o != m_optimizerSpans.end() && inside(o->second, op.ts_us))
                op.phase = Phase::Other;
        }
    }

    Phase phaseOf(const GpuEvent& e) const
    {
        if (!e.external_id)
            return Phase::Other;
        const auto it = m_ops.find(*e.external_id);
        return it == m_ops.end() ? Phase::Other : it->second.phase;
    }

    static LaneKind laneOf(const GpuEvent& e, Phase phase)
    {
        if (e.nccl && e.group == CommGroup::Pipeline)
            return LaneKind::PipelineComm;
        if (e.nccl && e.group == CommGroup::DataParallel)
            return LaneKind::DataParallelComm;
        return phase == Phase::Forward ? LaneKind::Forward : phase == Phase::Backward ? LaneKind::Backward : LaneKind::Other;
    }

    void summarise(MeasuredRun& run, std::optional<int> fileRank)
    {
        const int steps = std::max<int>(1, int(m_steps.size()));
        if (m_steps.empty())
            run.notes.push_back(*m_file + ": no ProfilerStep annotation; the trace is taken as one iteration");
        else if (steps > 1)
            run.notes.push_back(*m_file + ": " + std::to_string(steps) + " profiler steps; times are per step");
        std::map<int, std::vector<const GpuEvent*>> byDevice;
        for (const GpuEvent& e : m_gpu)
            byDevice[e.device].push_back(&e);
        if (fileRank && byDevice.size() > 1)
            throw InputError(*m_file, "/traceEvents", "the GPU events of one device (distributedInfo names rank "
                    + std::to_string(*fileRank) + ")", std::to_string(byDevice.size()) + " devices");
        if (!fileRank && !byDevice.empty())
            run.notes.push_back(*m_file + ": no distributedInfo.rank; each GPU device is taken as the rank of its index");
        for (auto& [device, events] : byDevice) {
            std::ranges::sort(events, {}, &GpuEvent::start_us);
            RankTrace trace;
            trace.rank = fileRank.value_or(device);
            trace.device = device;
            std::vector<Span> compute;
            std::vector<Span> comm;
            double first = events.front()->start_us;
            double last = first;
            for (const GpuEvent* e : events) {
                const double ms = (e->end_us - e->start_us) / 1e3 / steps;
                last = std::max(last, e->end_us);
                const Phase phase = phaseOf(*e);
                ++trace.kernels;
                if (!e->nccl) {
                    compute.push_back({ e->start_us, e->end_us });
                    (phase == Phase::Forward ? trace.forward_compute_ms
                            : phase == Phase::Backward ? trace.backward_compute_ms
                                                       : trace.other_compute_ms)
                        += ms;
                } else {
                    ++trace.nccl_kernels;
                    comm.push_back({ e->start_us, e->end_us });
                    switch (e->collective) {
                    case Collective::AllReduce: trace.all_reduce_ms += ms; break;
                    case Collective::AllGather: trace.all_gather_ms += ms; break;
                    case Collective::ReduceScatter: trace.reduce_scatter_ms += ms; break;
                    case Collective::AllToAll: trace.all_to_all_ms += ms; break;
                    case Collective::SendRecv: trace.send_recv_ms += ms; break;
                    case Collective::Other: trace.other_comm_ms += ms; break;
                    }
                    if (e->group == CommGroup::Pipeline)
                        trace.pp_comm_ms += ms;
                    else if (e->group == CommGroup::DataParallel)
                        trace.dp_comm_ms += ms;
                    else if (phase == Phase::Backward)
                        trace.layer_comm_backward_ms += ms;
                    else
                        trace.layer_comm_forward_ms += ms;
                }
                addInterval(trace, { (e->start_us - first) / 1e3, (e->end_us - first) / 1e3, laneOf(*e, phase) });
            }
            trace.span_ms = (last - first) / 1e3 / steps;
            trace.exposed_comm_ms = uncoveredUs(unionOf(std::move(comm)), unionOf(std::move(compute))) / 1e3 / steps;
            run.traces.push_back(std::move(trace));
        }
        std::ranges::sort(run.traces, {}, &RankTrace::rank);
        double span = 0;
        int slowest = 0;
        for (const RankTrace& t : run.traces) {
            if (t.span_ms > span) {
                span = t.span_ms;
                slowest = t.rank;
            }
        }
        if (span > 0) {
            run.iteration_ms = span;
            run.iteration_from = "chrome-trace: GPU span of the traced iteration on rank " + std::to_string(slowest);
        } else {
            run.notes.push_back(*m_file + ": no GPU kernels (was the profiler run with ProfilerActivity.CUDA?)");
        }
    }

    static void addInterval(RankTrace& trace, TraceInterval interval)
    {
        std::vector<TraceInterval>& lanes = trace.intervals;
        // Same-kind kernels back to back are one interval; the GPU's streams overlap, so look back
        // at the last interval of the same kind only.
        for (auto it = lanes.rbegin(); it != lanes.rend() && it - lanes.rbegin() < 4; ++it) {
            if (it->kind == interval.kind && interval.start_ms <= it->end_ms + kMergeGapMs) {
                it->end_ms = std::max(it->end_ms, interval.end_ms);
                return;
            }
        }
        if (lanes.size() < kMaxIntervalsPerRank)
            lanes.push_back(interval);
    }

    const JsonDocument& m_document;
    std::shared_ptr<const std::string> m_file;
    std::unordered_map<std::int64_t, CpuOp> m_ops;
    std::map<std::string, std::vector<Span>> m_backwardSpans;
    std::map<std::string, std::vector<Span>> m_optimizerSpans;
    std::vector<Span> m_steps;
    std::vector<GpuEvent> m_gpu;
};

} // namespace

MeasuredRun chromeTraceFromJson(const JsonDocument& document)
{
    return TraceParser(document).run();
}

MeasuredRun parseChromeTrace(std::string_view text, const std::string& name)
{
    return chromeTraceFromJson(JsonDocument::parse(text, name));
}

WorkEstimate chromeTraceReadEstimate(const std::string& name, double bytes)
{
    WorkEstimate estimate;
    estimate.job = "trace";
    estimate.size = name + ", " + groupedCount(bytes / 1e6) + " MB parsed whole";
    estimate.memory_mb = bytes / 1e6 * kTraceMemoryPerFileByte;
    estimate.memory_budget_mb = limits::kMaxJobMemoryMb;
    return estimate;
}

void requireBoundedTraceRead(const std::string& name, double bytes)
{
    requireWithinBudget(chromeTraceReadEstimate(name, bytes),
        "Profile fewer steps or ranks per file (torch.profiler's schedule), or run it anyway with "
            + std::string(kLiftWorkBudgetFlag) + ".");
}

MeasuredRun readChromeTrace(const std::filesystem::path& file)
{
    std::error_code error;
    if (const std::uintmax_t bytes = std::filesystem::file_size(file, error); !error)
        requireBoundedTraceRead(file.string(), double(bytes)); // before reading it
    const std::string text = readTextFile(file);
    return parseChromeTrace(text, file.string());
}

} // namespace stratex::runs
