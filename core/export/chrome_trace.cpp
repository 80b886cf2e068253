// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/common/atomic_file.h"

namespace stratex::exporting {

using sim::DeviceTimeline;
using sim::OpKind;
using sim::TimelineOp;
using Json = nlohmann::ordered_json;

namespace {

constexpr int kComputeTid = 0;
constexpr int kSendTid = 1;
constexpr int kFirstRecvTid = 2;

std::string twoDigits(int value)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%02d", value);
    return buffer;
}

const char* category(const TimelineOp& op)
{
    switch (op.kind) {
    case OpKind::Forward:
        return "fwd";
    case OpKind::Backward:
        return "bwd";
    case OpKind::Weight:
        return "wgrad";
    case OpKind::Send:
    case OpKind::Recv:
        return op.grad ? "grad" : "act";
    }
    return "op";
}

std::string sliceName(const TimelineOp& op)
{
    const std::string mb = std::to_string(op.microbatch);
    switch (op.kind) {
    case OpKind::Forward:
        return "F" + mb;
    case OpKind::Backward:
        return "B" + mb;
    case OpKind::Weight:
        return "W" + mb;
    case OpKind::Send:
        return std::string(op.grad ? "send grad " : "send act ") + mb;
    case OpKind::Recv:
        return std::string(op.grad ? "recv grad " : "recv act ") + mb;
    }
    return mb;
}

class TraceWriter {
public:
    explicit TraceWriter(const ChromeTraceOptions& options)
        : m_options(options)
    {
        m_text = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
    }

    void section(const ChromeTraceSection& section)
    {
        if (!section.timeline)
            return;
        const int firstPid = m_nextPid;
        m_nextPid += static_cast<int>(section.timeline->devices.size());
        for (const DeviceTimeline& device : section.timeline->devices)
            writeDevice(section.title, firstPid, device);
        // A send and its receive share the send's start order, unique within a timeline; the
        // next section's flow ids start after this one's.
        std::uint64_t orders = 0;
        for (const DeviceTimeline& device : section.timeline->devices) {
            for (const TimelineOp& op : device.compute)
                orders = std::max<std::uint64_t>(orders, op.order + 1);
            for (const TimelineOp& op : device.comm)
                orders = std::max<std::uint64_t>(orders, op.order + 1);
        }
        m_flowBase += orders;
    }

    std::string finish()
    {
        m_text += "\n]}\n";
        return std::move(m_text);
    }

private:
    void emit(const Json& event)
    {
        m_text += m_first ? "\n" : ",\n";
        m_first = false;
        m_text += event.dump();
    }

    void metadata(int pid, int tid, const char* name, const Json& args)
    {
        emit(Json { { "ph", "M" }, { "pid", pid }, { "tid", tid }, { "name", name }, { "args", args } });
    }

    // Greedy interval partitioning: the first receive track that is free again.
    std::vector<int> recvTracks(const DeviceTimeline& device, int& trackCount) const
    {
        std::vector<double> trackFree;
        std::vector<int> tracks;
        for (const TimelineOp& op : device.comm) {
            if (op.kind != OpKind::Recv || !keep(op)) {
                tracks.push_back(-1);
                continue;
            }
            std::size_t track = 0;
            while (track < trackFree.size() && trackFree[track] > op.start_us)
                ++track;
            if (track == trackFree.size())
                trackFree.push_back(0);
            trackFree[track] = op.endUs();
            tracks.push_back(static_cast<int>(track));
        }
        trackCount = static_cast<int>(trackFree.size());
        return tracks;
    }

    bool keep(const TimelineOp& op) const { return m_options.zero_duration_transfers || op.duration_us > 0; }

    void writeDevice(const std::string& title, int firstPid, const DeviceTimeline& device)
    {
        const int pid = firstPid + device.device;
        const std::string prefix = title.empty() ? std::string() : title + " ";
        metadata(pid, 0, "process_name", Json { { "name", prefix + "device " + twoDigits(device.device) } });
        metadata(pid, 0, "process_sort_index", Json { { "sort_index", pid } });
        int recvTrackCount = 0;
        const std::vector<int> tracks = recvTracks(device, recvTrackCount);
        metadata(pid, kComputeTid, "thread_name", Json { { "name", "0 compute" } });
        metadata(pid, kComputeTid, "thread_sort_index", Json { { "sort_index", kComputeTid } });
        metadata(pid, kSendTid, "thread_name", Json { { "name", "1 send" } });
        metadata(pid, kSendTid, "thread_sort_index", Json { { "sort_index", kSendTid } });
        for (int track = 0; track < recvTrackCount; ++track) {
            const int tid = kFirstRecvTid + track;
            metadata(pid, tid, "thread_name",
                Json { { "name", std::to_string(tid) + " recv" + (track ? " " + std::to_string(track + 1) : "") } });
            metadata(pid, tid, "thread_sort_index", Json { { "sort_index", tid } });
        }

        for (const TimelineOp& op : device.compute)
            emit(slice(pid, kComputeTid, op));
        for (std::size_t i = 0; i < device.comm.size(); ++i) {
            const TimelineOp& op = device.comm[i];
            if (!keep(op))
                continue;
            const bool send = op.kind == OpKind::Send;
            Json event = slice(pid, send ? kSendTid : kFirstRecvTid + tracks[i], op);
            if (m_options.flows) {
                event["bind_id"] = static_cast<std::uint64_t>(m_flowBase) + op.order + 1;
                event[send ? "flow_out" : "flow_in"] = true;
            }
            emit(event);
        }
        if (m_options.memory_counters) {
            for (const sim::MemorySample& sample : device.memory) {
                emit(Json { { "ph", "C" }, { "pid", pid }, { "tid", kComputeTid }, { "name", "memory" },
                    { "ts", sample.time_us }, { "args", Json { { "MB", sample.mem_mb } } } });
            }
        }
    }

    Json slice(int pid, int tid, const TimelineOp& op) const
    {
        Json args { { "microbatch", op.microbatch }, { "position", op.position }, { "stage", op.stage },
            { "chunk", op.chunk } };
        if (op.peer >= 0)
            args["peer"] = op.peer;
        return Json { { "ph", "X" }, { "pid", pid }, { "tid", tid }, { "name", sliceName(op) }, { "cat", category(op) },
            { "ts", op.start_us }, { "dur", op.duration_us }, { "args", std::move(args) } };
    }

private:
    ChromeTraceOptions m_options;
    std::string m_text;
    bool m_first = true;
    int m_nextPid = 0;
    std::uint64_t m_flowBase = 0;
};

} // namespace

std::string chromeTraceJson(const std::vector<ChromeTraceSection>& sections, const ChromeTraceOptions& options)
{
    TraceWriter writer(options);
    for (const ChromeTraceSection& section : sections) {
        writer.section(section);
    }
    return writer.finish();
}

std::string chromeTraceJson(const sim::Timeline& timeline, const std::string& title, const ChromeTraceOptions& options)
{
    return chromeTraceJson(std::vector<ChromeTraceSection> { { title, &timeline } }, options);
}

void writeChromeTrace(const std::filesystem::path& path, const std::vector<ChromeTraceSection>& sections,
    const ChromeTraceOptions& options)
{
    writeFileAtomically(path, chromeTraceJson(sections, options));
}

} // namespace stratex::exporting
