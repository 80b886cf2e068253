// SPDX-License-Identifier: GPL-3.0-or-later
// Chrome-trace export of simulated timelines: exact bytes of a small plan, Perfetto's rules
// (slices of one track nest, flows pair up, metadata names every track), counters, several
// plans in one trace, options and atomic writing.
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include <QTemporaryDir>
#include <QTest>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/export/chrome_trace.h"
#include "core/sim/simulator.h"

using namespace stratex;
using namespace stratex::sim;
using namespace stratex::exporting;

namespace {

SimulationInput pipeline(const std::vector<int>& assignment, int microbatches, double commMb)
{
    SimulationInput input;
    input.device_assignment = assignment;
    for (int j = 0; j < microbatches; ++j) {
        MicrobatchSpec mb;
        mb.id = j + 5;
        for (std::size_t l = 0; l < assignment.size(); ++l) {
            LayerCost layer;
            layer.fw_us = 1000 + 100 * ((j + static_cast<int>(l)) % 3);
            layer.bw_us = 2 * layer.fw_us;
            layer.stored_mb = 100;
            layer.peak_mb = 200;
            layer.fw_comm_mb = commMb;
            layer.bw_comm_mb = commMb;
            mb.layers.push_back(layer);
        }
        input.microbatches.push_back(mb);
    }
    const PipelineLayout layout = analyzeAssignment(assignment);
    for (int d = 0; d < layout.n_devices; ++d)
        input.comm.node_of_device.push_back(d);
    input.comm.inter_node_bw_gbps = 100;
    return input;
}

} // namespace

class TestChromeTrace : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void exactBytes();
    void perfettoRules_data();
    void perfettoRules();
    void twoPlans();
    void options();
    void writesAtomically();
};

void TestChromeTrace::exactBytes()
{
    const SimulationResult result = simulate(pipeline({ 0, 1 }, 1, 1.25), ScheduleKind::OneFOneB);
    const std::string trace = chromeTraceJson(result.timeline, "1F1B");
    const std::string expected = R"({"displayTimeUnit":"ms","traceEvents":[
{"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"1F1B device 00"}},
{"ph":"M","pid":0,"tid":0,"name":"process_sort_index","args":{"sort_index":0}},
{"ph":"M","pid":0,"tid":0,"name":"thread_name","args":{"name":"0 compute"}},
{"ph":"M","pid":0,"tid":0,"name":"thread_sort_index","args":{"sort_index":0}},
{"ph":"M","pid":0,"tid":1,"name":"thread_name","args":{"name":"1 send"}},
{"ph":"M","pid":0,"tid":1,"name":"thread_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":0,"tid":2,"name":"thread_name","args":{"name":"2 recv"}},
{"ph":"M","pid":0,"tid":2,"name":"thread_sort_index","args":{"sort_index":2}},
{"ph":"X","pid":0,"tid":0,"name":"F5","cat":"fwd","ts":0.0,"dur":1000.0,"args":{"microbatch":5,"position":0,"stage":0,"chunk":0}},
{"ph":"X","pid":0,"tid":0,"name":"B5","cat":"bwd","ts":4500.0,"dur":2000.0,"args":{"microbatch":5,"position":0,"stage":0,"chunk":0}},
{"ph":"X","pid":0,"tid":1,"name":"send act 5","cat":"act","ts":1000.0,"dur":100.0,"args":{"microbatch":5,"position":0,"stage":0,"chunk":0,"peer":1},"bind_id":2,"flow_out":true},
{"ph":"X","pid":0,"tid":2,"name":"recv grad 5","cat":"grad","ts":4400.0,"dur":100.0,"args":{"microbatch":5,"position":0,"stage":1,"chunk":0,"peer":1},"bind_id":5,"flow_in":true},
{"ph":"C","pid":0,"tid":0,"name":"memory","ts":0.0,"args":{"MB":200.0}},
{"ph":"C","pid":0,"tid":0,"name":"memory","ts":1000.0,"args":{"MB":100.0}},
{"ph":"C","pid":0,"tid":0,"name":"memory","ts":6500.0,"args":{"MB":0.0}},
{"ph":"M","pid":1,"tid":0,"name":"process_name","args":{"name":"1F1B device 01"}},
{"ph":"M","pid":1,"tid":0,"name":"process_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":1,"tid":0,"name":"thread_name","args":{"name":"0 compute"}},
{"ph":"M","pid":1,"tid":0,"name":"thread_sort_index","args":{"sort_index":0}},
{"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"1 send"}},
{"ph":"M","pid":1,"tid":1,"name":"thread_sort_index","args":{"sort_index":1}},
{"ph":"M","pid":1,"tid":2,"name":"thread_name","args":{"name":"2 recv"}},
{"ph":"M","pid":1,"tid":2,"name":"thread_sort_index","args":{"sort_index":2}},
{"ph":"X","pid":1,"tid":0,"name":"F5","cat":"fwd","ts":1100.0,"dur":1100.0,"args":{"microbatch":5,"position":0,"stage":1,"chunk":0}},
{"ph":"X","pid":1,"tid":0,"name":"B5","cat":"bwd","ts":2200.0,"dur":2200.0,"args":{"microbatch":5,"position":0,"stage":1,"chunk":0}},
{"ph":"X","pid":1,"tid":2,"name":"recv act 5","cat":"act","ts":1000.0,"dur":100.0,"args":{"microbatch":5,"position":0,"stage":0,"chunk":0,"peer":0},"bind_id":2,"flow_in":true},
{"ph":"X","pid":1,"tid":1,"name":"send grad 5","cat":"grad","ts":4400.0,"dur":100.0,"args":{"microbatch":5,"position":0,"stage":1,"chunk":0,"peer":0},"bind_id":5,"flow_out":true},
{"ph":"C","pid":1,"tid":0,"name":"memory","ts":0.0,"args":{"MB":0.0}},
{"ph":"C","pid":1,"tid":0,"name":"memory","ts":1100.0,"args":{"MB":200.0}},
{"ph":"C","pid":1,"tid":0,"name":"memory","ts":2200.0,"args":{"MB":100.0}},
{"ph":"C","pid":1,"tid":0,"name":"memory","ts":4400.0,"args":{"MB":0.0}}
]}
)";
    QCOMPARE(QString::fromStdString(trace), QString::fromStdString(expected));
}

void TestChromeTrace::perfettoRules_data()
{
    QTest::addColumn<std::vector<int>>("assignment");
    QTest::addColumn<int>("schedule");
    QTest::addColumn<double>("commMb");
    QTest::newRow("interleaved wfc") << std::vector<int> { 0, 1, 2, 3, 0, 1, 2, 3 }
                                     << static_cast<int>(ScheduleKind::WaitFreeCyclic) << 2.0;
    QTest::newRow("zigzag fifo") << std::vector<int> { 0, 1, 2, 3, 3, 2, 1, 0 } << static_cast<int>(ScheduleKind::Fifo)
                                 << 5.0;
    QTest::newRow("zb-h1 free links") << std::vector<int> { 0, 1, 2 } << static_cast<int>(ScheduleKind::ZbH1) << 0.0;
}

void TestChromeTrace::perfettoRules()
{
    QFETCH(std::vector<int>, assignment);
    QFETCH(int, schedule);
    QFETCH(double, commMb);
    const SimulationResult result = simulate(pipeline(assignment, 9, commMb), static_cast<ScheduleKind>(schedule));
    const std::string text = chromeTraceJson(result.timeline, "plan");
    QCOMPARE(text, chromeTraceJson(result.timeline, "plan")); // deterministic
    const nlohmann::json trace = nlohmann::json::parse(text);
    QCOMPARE(trace["displayTimeUnit"].get<std::string>(), std::string("ms"));

    std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;
    std::set<std::pair<int, int>> namedThreads;
    std::set<int> namedProcesses;
    std::map<std::uint64_t, std::pair<int, int>> flows; // bind id -> (outs, ins)
    std::map<std::uint64_t, double> flowStart;
    std::size_t counters = 0;
    std::size_t xEvents = 0;
    for (const auto& event : trace["traceEvents"]) {
        const std::string ph = event["ph"];
        const int pid = event["pid"];
        const int tid = event["tid"];
        if (ph == "M") {
            if (event["name"] == "process_name")
                namedProcesses.insert(pid);
            if (event["name"] == "thread_name")
                namedThreads.insert({ pid, tid });
        } else if (ph == "X") {
            ++xEvents;
            slices[{ pid, tid }].emplace_back(event["ts"].get<double>(), event["dur"].get<double>());
            if (event.contains("bind_id")) {
                const std::uint64_t id = event["bind_id"];
                auto& [outs, ins] = flows[id];
                (event.contains("flow_out") ? outs : ins) += 1;
                if (flowStart.count(id))
                    QCOMPARE(flowStart[id], event["ts"].get<double>()); // a transfer starts once
                flowStart[id] = event["ts"];
            }
        } else if (ph == "C") {
            ++counters;
        } else {
            QFAIL("unexpected phase");
        }
    }
    QCOMPARE(static_cast<int>(namedProcesses.size()), result.layout.n_devices);
    for (auto& [track, list] : slices) {
        QVERIFY(namedThreads.count(track));
        std::sort(list.begin(), list.end());
        for (std::size_t i = 1; i < list.size(); ++i)
            QVERIFY2(list[i - 1].first + list[i - 1].second <= list[i].first + 1e-6, "slices of a track nest");
    }
    QCOMPARE(xEvents, result.timeline.opCount());
    std::size_t memorySamples = 0;
    for (const DeviceTimeline& device : result.timeline.devices)
        memorySamples += device.memory.size();
    QCOMPARE(counters, memorySamples);
    QVERIFY(!flows.empty());
    for (const auto& [id, count] : flows)
        QCOMPARE(count, std::make_pair(1, 1));
}

void TestChromeTrace::twoPlans()
{
    const SimulationInput input = pipeline({ 0, 1, 2, 3 }, 8, 1.25);
    const SimulationResult a = simulate(input, ScheduleKind::OneFOneB);
    const SimulationResult b = simulate(input, ScheduleKind::WaitFreeCyclic);
    const nlohmann::json trace
        = nlohmann::json::parse(chromeTraceJson({ { "1F1B", &a.timeline }, { "WFC", &b.timeline } }));
    std::map<int, std::string> processes;
    std::map<std::uint64_t, int> flowEvents;
    for (const auto& event : trace["traceEvents"]) {
        if (event["ph"] == "M" && event["name"] == "process_name")
            processes[event["pid"]] = event["args"]["name"];
        if (event.contains("bind_id"))
            ++flowEvents[event["bind_id"].get<std::uint64_t>()];
    }
    QCOMPARE(processes.size(), std::size_t(8));
    QCOMPARE(processes[0], std::string("1F1B device 00"));
    QCOMPARE(processes[7], std::string("WFC device 03"));
    for (const auto& [id, count] : flowEvents)
        QCOMPARE(count, 2); // ids never collide across plans
    QCOMPARE(flowEvents.size(), std::size_t(2 * 8 * 2 * 3));
}

void TestChromeTrace::options()
{
    const SimulationResult free = simulate(pipeline({ 0, 1 }, 3, 0.0), ScheduleKind::GPipe);
    ChromeTraceOptions options;
    options.flows = false;
    options.memory_counters = false;
    options.zero_duration_transfers = false;
    const nlohmann::json trace = nlohmann::json::parse(chromeTraceJson(free.timeline, "", options));
    int x = 0;
    for (const auto& event : trace["traceEvents"]) {
        QVERIFY(event["ph"] != "C");
        QVERIFY(!event.contains("bind_id"));
        if (event["ph"] == "X") {
            ++x;
            QVERIFY(event["cat"] == "fwd" || event["cat"] == "bwd");
        }
        if (event["ph"] == "M" && event["name"] == "process_name")
            QVERIFY(event["args"]["name"].get<std::string>().starts_with("device "));
    }
    QCOMPARE(x, 2 * 2 * 3);
    QCOMPARE(chromeTraceJson(std::vector<ChromeTraceSection> {}),
        std::string("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n]}\n"));
}

void TestChromeTrace::writesAtomically()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const SimulationResult result = simulate(pipeline({ 0, 1 }, 2, 1.0), ScheduleKind::OneFOneB);
    const std::string path = dir.filePath(QStringLiteral("trace.json")).toStdString();
    writeChromeTrace(path, { { "x", &result.timeline } });
    QCOMPARE(readTextFile(path), chromeTraceJson(result.timeline, "x"));
    QVERIFY_THROWS_EXCEPTION(Error,
        writeChromeTrace(
            dir.filePath(QStringLiteral("missing/dir/t.json")).toStdString(), { { "x", &result.timeline } }));
}

QTEST_GUILESS_MAIN(TestChromeTrace)
#include "tst_chrome_trace.moc"
