// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/chrome_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/common/atomic_file.h"
#include "core/common/json_output.h"

namespace stratex::exporting {

using sim::DeviceTimeline;
using sim::OpKind;
using sim::TimelineOp;

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

const char* sliceNamePrefix(const TimelineOp& op)
{
    switch (op.kind) {
    case OpKind::Forward:
        return "F";
    case OpKind::Backward:
        return "B";
    case OpKind::Weight:
        return "W";
    case OpKind::Send:
        return op.grad ? "send grad " : "send act ";
    case OpKind::Recv:
        return op.grad ? "recv grad " : "recv act ";
    }
    return "";
}

// Events are formatted by hand straight into the sink, one small buffer per event: no JSON
// object per event and no whole document in memory, so a million-op plan streams to its file.
// The text is what nlohmann's dump() made before (compact, keys in this order, doubles in the
// shortest form that reads back exactly, with ".0" on whole numbers).
class EventText {
public:
    void clear() { m_text.clear(); }
    const std::string& text() const { return m_text; }

    EventText& raw(std::string_view text)
    {
        m_text.append(text);
        return *this;
    }
    EventText& integer(long long value)
    {
        char buffer[24];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
        m_text.append(buffer, result.ptr);
        return *this;
    }
    EventText& unsignedInteger(std::uint64_t value)
    {
        char buffer[24];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
        m_text.append(buffer, result.ptr);
        return *this;
    }
    EventText& number(double value)
    {
        // JSON has no NaN or infinity, and null would read as "no time" (json_output.h): refused.
        if (!std::isfinite(value))
            throw Error("Chrome trace: a time or memory value is " + std::string(std::isnan(value) ? "nan" : "infinite")
                + ", which JSON cannot hold: not written (check the inputs' sizes and figures)");
        char buffer[400];
        const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
        const std::string_view digits(buffer, static_cast<std::size_t>(result.ptr - buffer));
        m_text.append(digits);
        if (digits.find('.') == std::string_view::npos)
            m_text.append(".0");
        return *this;
    }
    // Escaped as every JSON output is (core/common/json_output.h): a section's title is the
    // user's case name.
    EventText& string(std::string_view value)
    {
        m_text.append(jsonString(value));
        return *this;
    }

private:
    std::string m_text;
};

class TraceWriter {
public:
    TraceWriter(const ChromeTraceOptions& options, const ContentSink& sink)
        : m_options(options)
        , m_sink(sink)
    {
        m_sink("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
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

    void finish() { m_sink("\n]}\n"); }

private:
    // Starts the next event: the separator and the opening brace.
    EventText& begin()
    {
        m_event.clear();
        m_event.raw(m_first ? "\n{" : ",\n{");
        m_first = false;
        return m_event;
    }
    void end()
    {
        m_event.raw("}");
        m_sink(m_event.text());
    }

    void metadata(int pid, int tid, const char* name, const char* argKey, const std::string& textValue, int intValue,
        bool isText)
    {
        EventText& e = begin();
        e.raw("\"ph\":\"M\",\"pid\":").integer(pid).raw(",\"tid\":").integer(tid).raw(",\"name\":").string(name);
        e.raw(",\"args\":{").string(argKey).raw(":");
        if (isText)
            e.string(textValue);
        else
            e.integer(intValue);
        e.raw("}");
        end();
    }
    void nameMetadata(int pid, int tid, const char* name, const std::string& value)
    {
        metadata(pid, tid, name, "name", value, 0, true);
    }
    void sortMetadata(int pid, int tid, const char* name, int index)
    {
        metadata(pid, tid, name, "sort_index", {}, index, false);
    }

    // Greedy interval partitioning: the first receive track that is free again.
    std::vector<int> recvTracks(const DeviceTimeline& device, int& trackCount) const
    {
        std::vector<double> trackFree;
        std::vector<int> tracks;
        tracks.reserve(device.comm.size());
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
        nameMetadata(pid, 0, "process_name", prefix + "device " + twoDigits(device.device));
        sortMetadata(pid, 0, "process_sort_index", pid);
        int recvTrackCount = 0;
        const std::vector<int> tracks = recvTracks(device, recvTrackCount);
        nameMetadata(pid, kComputeTid, "thread_name", "0 compute");
        sortMetadata(pid, kComputeTid, "thread_sort_index", kComputeTid);
        nameMetadata(pid, kSendTid, "thread_name", "1 send");
        sortMetadata(pid, kSendTid, "thread_sort_index", kSendTid);
        for (int track = 0; track < recvTrackCount; ++track) {
            const int tid = kFirstRecvTid + track;
            nameMetadata(
                pid, tid, "thread_name", std::to_string(tid) + " recv" + (track ? " " + std::to_string(track + 1) : ""));
            sortMetadata(pid, tid, "thread_sort_index", tid);
        }

        for (const TimelineOp& op : device.compute) {
            slice(pid, kComputeTid, op);
            end();
        }
        for (std::size_t i = 0; i < device.comm.size(); ++i) {
            const TimelineOp& op = device.comm[i];
            if (!keep(op))
                continue;
            const bool send = op.kind == OpKind::Send;
            EventText& e = slice(pid, send ? kSendTid : kFirstRecvTid + tracks[i], op);
            if (m_options.flows) {
                e.raw(",\"bind_id\":").unsignedInteger(m_flowBase + op.order + 1);
                e.raw(send ? ",\"flow_out\":true" : ",\"flow_in\":true");
            }
            end();
        }
        if (m_options.memory_counters) {
            for (const sim::MemorySample& sample : device.memory) {
                EventText& e = begin();
                e.raw("\"ph\":\"C\",\"pid\":").integer(pid).raw(",\"tid\":").integer(kComputeTid);
                e.raw(",\"name\":\"memory\",\"ts\":").number(sample.time_us);
                e.raw(",\"args\":{\"MB\":").number(sample.mem_mb).raw("}");
                end();
            }
        }
    }

    // An "X" slice without its closing brace (flows may follow).
    EventText& slice(int pid, int tid, const TimelineOp& op)
    {
        EventText& e = begin();
        e.raw("\"ph\":\"X\",\"pid\":").integer(pid).raw(",\"tid\":").integer(tid);
        e.raw(",\"name\":\"").raw(sliceNamePrefix(op)).integer(op.microbatch).raw("\"");
        e.raw(",\"cat\":\"").raw(category(op)).raw("\"");
        e.raw(",\"ts\":").number(op.start_us).raw(",\"dur\":").number(op.duration_us);
        e.raw(",\"args\":{\"microbatch\":").integer(op.microbatch).raw(",\"position\":").integer(op.position);
        e.raw(",\"stage\":").integer(op.stage).raw(",\"chunk\":").integer(op.chunk);
        if (op.peer >= 0)
            e.raw(",\"peer\":").integer(op.peer);
        e.raw("}");
        return e;
    }

    ChromeTraceOptions m_options;
    const ContentSink& m_sink;
    EventText m_event;
    bool m_first = true;
    int m_nextPid = 0;
    std::uint64_t m_flowBase = 0;
};

} // namespace

void writeChromeTrace(
    const ContentSink& sink, const std::vector<ChromeTraceSection>& sections, const ChromeTraceOptions& options)
{
    TraceWriter writer(options, sink);
    for (const ChromeTraceSection& section : sections)
        writer.section(section);
    writer.finish();
}

std::string chromeTraceJson(const std::vector<ChromeTraceSection>& sections, const ChromeTraceOptions& options)
{
    std::string text;
    writeChromeTrace(ContentSink([&text](std::string_view piece) { text.append(piece); }), sections, options);
    return text;
}

std::string chromeTraceJson(const sim::Timeline& timeline, const std::string& title, const ChromeTraceOptions& options)
{
    return chromeTraceJson(std::vector<ChromeTraceSection> { { title, &timeline } }, options);
}

void writeChromeTrace(const std::filesystem::path& path, const std::vector<ChromeTraceSection>& sections,
    const ChromeTraceOptions& options)
{
    writeFileAtomically(
        path, ContentProducer([&](const ContentSink& sink) { writeChromeTrace(sink, sections, options); }));
}

} // namespace stratex::exporting
