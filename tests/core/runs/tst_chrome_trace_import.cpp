// SPDX-License-Identifier: GPL-3.0-or-later
// PyTorch-profiler Chrome traces (the JSON kineto's ChromeTraceLogger writes, pytorch/kineto
// libkineto/src/output_json.cpp @ 114171dfba68; samples in tests/data/measured) read into per-rank
// GPU time: compute by phase, NCCL kernels by collective and process group, exposed
// communication; ranks mapped to pipeline stages with Megatron's rank order; bad events named by
// their JSON path.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/common/error.h"
#include "core/runs/chrome_trace_import.h"
#include "core/runs/run_comparison.h"
#include "core/runs/run_import.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;
using namespace stratex::runs;

namespace {

const QString kTraceDir = QStringLiteral("measured/pytorch-trace-llama2-7b-tp2-pp2-dp4");
const QString kRank0 = kTraceDir + QStringLiteral("/node0_2817.1741687395118405123.pt.trace.json");
const QString kLog = QStringLiteral("measured/megatron-llama2-7b-tp2-pp2-dp4.log");

QJsonObject kernel(const QString& name, double tsUs, double durUs, const QJsonObject& extra = {})
{
    QJsonObject args { { QStringLiteral("device"), 0 }, { QStringLiteral("stream"), 7 } };
    for (auto it = extra.begin(); it != extra.end(); ++it)
        args.insert(it.key(), it.value());
    return { { QStringLiteral("ph"), QStringLiteral("X") }, { QStringLiteral("cat"), QStringLiteral("kernel") },
        { QStringLiteral("name"), name }, { QStringLiteral("pid"), 0 }, { QStringLiteral("tid"), 7 },
        { QStringLiteral("ts"), tsUs }, { QStringLiteral("dur"), durUs }, { QStringLiteral("args"), args } };
}

std::string traceText(const QJsonArray& events, int rank = 3)
{
    const QJsonObject info { { QStringLiteral("backend"), QStringLiteral("nccl") }, { QStringLiteral("rank"), rank },
        { QStringLiteral("world_size"), 8 } };
    const QJsonObject root { { QStringLiteral("schemaVersion"), 1 }, { QStringLiteral("distributedInfo"), info },
        { QStringLiteral("traceEvents"), events } };
    return QJsonDocument(root).toJson().toStdString();
}

bool near(double a, double b)
{
    return qAbs(a - b) < 1e-3;
}

} // namespace

class TestChromeTraceImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Rank 0 (stage 0) of the sample: 16 micro-batches of 110 ms forward (86 % GEMM, 14 % TP
    // all-reduce) and 205 ms backward (88 % / 12 %), 2 ms send/recv each way, a 58 ms DP
    // reduce-scatter in the backward, a 31 ms optimizer kernel and a 24 ms DP all-gather.
    void sumsTheSampleByPhaseAndGroup()
    {
        const MeasuredRun run = readChromeTrace(test::fixture(kRank0).toStdString());
        QCOMPARE(run.world_size.value_or(0), 16);
        QCOMPARE(run.gpu_name, std::string("NVIDIA A100-SXM4-80GB"));
        QCOMPARE(int(run.traces.size()), 1);
        const RankTrace& t = run.traces.front();
        QCOMPARE(t.rank, 0);
        QVERIFY(near(t.forward_compute_ms, 16 * 110 * 0.86));
        QVERIFY(near(t.layer_comm_forward_ms, 16 * 110 * 0.14));
        QVERIFY(near(t.backward_compute_ms, 16 * 205 * 0.88));
        QVERIFY(near(t.layer_comm_backward_ms, 16 * 205 * 0.12));
        QVERIFY(near(t.pp_comm_ms, 64));
        QVERIFY(near(t.dp_comm_ms, 58 + 24));
        QVERIFY(near(t.other_compute_ms, 31));
        QVERIFY(near(t.all_reduce_ms, 16 * 110 * 0.14 + 16 * 205 * 0.12));
        QVERIFY(near(t.send_recv_ms, 64));
        QVERIFY(near(t.reduce_scatter_ms, 58));
        QVERIFY(near(t.all_gather_ms, 24));
        QCOMPARE(t.kernels, 99);
        QCOMPARE(t.nccl_kernels, 66);
        QVERIFY(t.span_ms > t.forwardMs() + t.backwardMs());
        QVERIFY(run.iteration_ms && near(*run.iteration_ms, t.span_ms));
        QVERIFY(!t.intervals.empty());
    }

    // A directory of per-rank traces plus the log: the traces fill the stages' times.
    void comparesTracesPerStage()
    {
        const MeasuredRun run = importRuns({ test::fixture(kLog).toStdString(), test::fixture(kTraceDir).toStdString() });
        QCOMPARE(int(run.traces.size()), 2);
        QVERIFY(run.iteration_from.starts_with("megatron-log")); // the log's mean wins over one traced iteration
        const hardware::ClusterDescription cluster = resolveCluster(run, { std::nullopt, 8 });
        QCOMPARE(cluster.gpu.name, std::string("a100-80gb")); // from the trace's device name
        const RunComparison c = compareRun(run, cluster, efficiencyFor(cluster.gpu));
        QCOMPARE(c.stages[0].traced_ranks, std::vector<int> { 0 });
        QCOMPARE(c.stages[1].traced_ranks, std::vector<int> { 8 });
        QCOMPARE(c.stages[1].times_from, std::string("chrome-trace"));
        QVERIFY(near(*c.stages[1].forward_ms.measured, 16 * 118.0));
        QVERIFY(near(*c.stages[1].backward_ms.measured, 16 * 222.0));
        QVERIFY(c.stages[0].forward_ms.predicted && c.stages[0].forward_ms.error());
        const nlohmann::ordered_json json = comparisonJson(c);
        QCOMPARE(json["traced_ranks"].size(), std::size_t(2));
        QVERIFY(json["stages"][1]["measured_pp_comm_ms"].is_number());
    }

    void collectivesByNameAndGroup_data()
    {
        QTest::addColumn<QString>("kernelName");
        QTest::addColumn<QString>("collectiveName");
        QTest::addColumn<QString>("group");
        QTest::addColumn<QString>("expectKind");
        QTest::addColumn<QString>("expectGroup");
        QTest::newRow("old NCCL all-reduce") << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)" << ""
                                              << "" << "all_reduce" << "layer";
        QTest::newRow("all-gather of the dp group")
            << "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)" << "_allgather_base"
            << "DATA_PARALLEL_GROUP_WITH_CP" << "all_gather" << "dp";
        QTest::newRow("reduce-scatter, expert dp") << "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL" << ""
                                                   << "EXPERT_DATA_PARALLEL_GROUP" << "reduce_scatter" << "dp";
        QTest::newRow("send/recv without group") << "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)" << ""
                                                 << "" << "send_recv" << "pp";
        QTest::newRow("all-to-all is send/recv to NCCL")
            << "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)" << "all_to_all"
            << "EXPERT_MODEL_PARALLEL_GROUP" << "all_to_all" << "layer";
        QTest::newRow("broadcast") << "ncclDevKernel_Broadcast_RING_LL" << "broadcast" << "default_pg" << "other"
                                   << "layer";
    }

    void collectivesByNameAndGroup()
    {
        QFETCH(QString, kernelName);
        QFETCH(QString, collectiveName);
        QFETCH(QString, group);
        QFETCH(QString, expectKind);
        QFETCH(QString, expectGroup);
        QJsonObject extra;
        if (!collectiveName.isEmpty())
            extra.insert(QStringLiteral("Collective name"), collectiveName);
        if (!group.isEmpty())
            extra.insert(QStringLiteral("Process Group Description"), group);
        const MeasuredRun run = parseChromeTrace(traceText({ kernel(kernelName, 100, 2000, extra) }), "t.json");
        QCOMPARE(int(run.traces.size()), 1);
        const RankTrace& t = run.traces.front();
        QCOMPARE(t.rank, 3);
        QCOMPARE(t.nccl_kernels, 1);
        const std::map<QString, double> kinds { { "all_reduce", t.all_reduce_ms }, { "all_gather", t.all_gather_ms },
            { "reduce_scatter", t.reduce_scatter_ms }, { "all_to_all", t.all_to_all_ms }, { "send_recv", t.send_recv_ms },
            { "other", t.other_comm_ms } };
        QCOMPARE(kinds.at(expectKind), 2.0);
        const std::map<QString, double> groups { { "layer", t.layer_comm_forward_ms + t.layer_comm_backward_ms },
            { "dp", t.dp_comm_ms }, { "pp", t.pp_comm_ms } };
        QCOMPARE(groups.at(expectGroup), 2.0);
    }

    // Backward: the launching CPU op lies inside an autograd engine function of its thread.
    void phasesFromTheLaunchingOp()
    {
        const auto cpuOp = [](const QString& name, double ts, double dur, int tid, int id) {
            return QJsonObject { { "ph", "X" }, { "cat", "cpu_op" }, { "name", name }, { "pid", 9 }, { "tid", tid },
                { "ts", ts }, { "dur", dur }, { "args", QJsonObject { { "External id", id } } } };
        };
        const QJsonArray events { cpuOp("aten::mm", 10, 5, 1, 1), kernel("gemm_a", 20, 1000, { { "External id", 1 } }),
            cpuOp("autograd::engine::evaluate_function: MmBackward0", 2000, 50, 2, 2),
            cpuOp("aten::mm", 2010, 5, 2, 3), kernel("gemm_b", 2020, 3000, { { "External id", 3 } }),
            // Same time on another thread: not inside that thread's backward.
            cpuOp("aten::add", 2011, 2, 1, 4), kernel("add", 5100, 500, { { "External id", 4 } }),
            kernel("orphan", 6000, 250) };
        const MeasuredRun run = parseChromeTrace(traceText(events), "t.json");
        const RankTrace& t = run.traces.front();
        QCOMPARE(t.forward_compute_ms, 1.5);
        QCOMPARE(t.backward_compute_ms, 3.0);
        QCOMPARE(t.other_compute_ms, 0.25);
        QCOMPARE(t.span_ms, (6250 - 20) / 1e3);
    }

    // Communication while no compute kernel runs, over the union of overlapping kernels.
    void exposedCommunication()
    {
        const QJsonObject nccl { { "Collective name", "allreduce" } };
        const QJsonArray events { kernel("gemm", 0, 10000), kernel("gemm", 8000, 4000),
            kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 5000, 10000, nccl),
            kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 14000, 2000, nccl) };
        const RankTrace t = parseChromeTrace(traceText(events), "t.json").traces.front();
        QCOMPARE(t.exposed_comm_ms, 4.0); // comm 5..16 ms, compute 0..12 ms
        QCOMPARE(t.all_reduce_ms, 12.0);
    }

    void badEventsAreNamed_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("events not an array") << QByteArray("{\"traceEvents\": {}}") << "/traceEvents: expected an array";
        QTest::newRow("event not an object") << QByteArray("{\"traceEvents\": [1]}") << "/traceEvents/0: expected an event object";
        QTest::newRow("no ph") << QByteArray("{\"traceEvents\": [{\"name\": \"x\"}]}") << "/traceEvents/0";
        QTest::newRow("kernel without dur")
            << QByteArray("{\"traceEvents\": [{\"ph\": \"M\"}, {\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"pid\": 0}]}")
            << "/traceEvents/1";
        QTest::newRow("negative dur")
            << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": -4, \"pid\": 0}]}")
            << "/traceEvents/0/dur: expected a finite number >= 0";
        QTest::newRow("kernel without device")
            << QByteArray("{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1, \"dur\": 4, \"pid\": \"\"}]}")
            << "/traceEvents/0/args";
        QTest::newRow("negative rank") << QByteArray("{\"distributedInfo\": {\"rank\": -1}, \"traceEvents\": []}")
                                       << "/distributedInfo/rank";
        QTest::newRow("not JSON") << QByteArray("{\"traceEvents\": [") << "expected valid JSON";
    }

    void badEventsAreNamed()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        try {
            parseChromeTrace(json.toStdString(), "t.json");
            QFAIL("a bad trace was accepted");
        } catch (const InputError& error) {
            const QString message = QString::fromStdString(error.what());
            QVERIFY2(message.startsWith(QStringLiteral("t.json")) && message.contains(expected), qPrintable(message));
        }
    }

    // Kineto's end-of-window marker has string pid/tid; metadata and flows are skipped.
    void skipsWhatIsNotAnActivity()
    {
        const QJsonArray events { QJsonObject { { "name", "Record Window End" }, { "ph", "i" }, { "s", "g" }, { "pid", "" },
                                      { "tid", "" }, { "ts", 5.5 } },
            QJsonObject { { "ph", "f" }, { "id", 3 }, { "pid", 0 }, { "tid", 7 }, { "ts", 1 }, { "cat", "ac2g" } },
            kernel("gemm", 0, 1000) };
        const MeasuredRun run = parseChromeTrace(traceText(events), "t.json");
        QCOMPARE(run.traces.front().kernels, 1);
    }

    void sameRankTwiceIsAnError()
    {
        const std::string dir = test::fixture(kTraceDir).toStdString();
        try {
            importRuns({ test::fixture(kRank0).toStdString(), dir });
            QFAIL("rank 0 was taken twice");
        } catch (const Error& error) {
            QVERIFY2(QString::fromStdString(error.what()).contains(QStringLiteral("rank 0 is traced twice")), error.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestChromeTraceImport)
#include "tst_chrome_trace_import.moc"
