// SPDX-License-Identifier: GPL-3.0-or-later
// Galvatron main's semantics beyond the spec's worked cases: every task of eight more searches
// (oracle_runs.h, from the independent reference implementation with least-squares fits) must come
// out bit for bit: time cost, throughput, memory per stage and embedding choice. Uneven batches
// are costed as Galvatron does here (UnevenBatch::Galvatron), since that is what is compared.
#include <QTest>

#include "core/common/progress.h"
#include "core/search/search_engine.h"

#include "oracle_runs.h"
#include "search_test_util.h"

using namespace stratex;
using namespace stratex::search;
using namespace stratex::test;

namespace {

SearchInputs inputsFor(int nodes)
{
    const std::string n = std::to_string(nodes);
    profile::ProfilePaths paths;
    paths.computation = galvatronFixture("computation_profiling_bf16_llama2-7b_all.json");
    paths.memory = galvatronFixture("memory_profiling_bf16_llama2-7b_all.json");
    paths.allreduce = galvatronFixture(("allreduce_bandwidth_" + n + "nodes_8gpus_per_node.json").c_str());
    paths.p2p = galvatronFixture(("p2p_bandwidth_" + n + "nodes_8gpus_per_node.json").c_str());
    paths.overlap = galvatronFixture("overlap_coefficient.json");
    // The oracle ran the 2-node case with the 1-node latency table (no 2-node file exists).
    paths.spTime = galvatronFixture("sp_time_1nodes_8gpus_per_node.json");
    return SearchInputs::load(paths);
}

} // namespace

class TestOracleRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyTask_data();
    void everyTask();
};

void TestOracleRuns::everyTask_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < oracleRuns().size(); ++i)
        QTest::newRow(oracleRuns()[i].name) << int(i);
}

void TestOracleRuns::everyTask()
{
    QFETCH(int, index);
    const OracleRun& run = oracleRuns()[std::size_t(index)];
    SearchSettings settings = llamaSettings(run.memoryGb, run.bsz);
    settings.num_nodes = run.nodes;
    settings.pipeline_type = run.gpipe ? cost::PipelineType::GPipe : cost::PipelineType::PipeDreamFlush;
    settings.default_dp_type = run.ddp ? cost::DpType::Ddp : cost::DpType::Zero2;
    settings.async_grad_reduce = !run.noAsync;
    settings.max_tp_deg = run.maxTp;
    settings.max_pp_deg = run.maxPp;
    settings.max_sp_deg = run.maxSp;
    if (run.staticTime)
        settings.time_profile_mode = profile::TimeProfileMode::Static;
    settings.uneven_batch = UnevenBatch::Galvatron;
    NullProgress progress;
    const SearchResult result = stratex::search::search(inputsFor(run.nodes), settings, progress, 2);
    QCOMPARE(result.tasks.size(), run.tasks.size());
    for (std::size_t i = 0; i < run.tasks.size(); ++i) {
        const TaskSummary& task = result.tasks[i];
        const OracleTask& expected = run.tasks[i];
        const QByteArray where = "task #" + QByteArray::number(int(i));
        QVERIFY2(task.task.chunks == expected.chunks && task.task.pp == expected.pp
                && std::string(tpSpModeName(task.task.mode)) == expected.mode
                && task.task.buffer_tp == expected.bufferTp,
            where.constData());
        QVERIFY2(task.throughput_samples_per_s == expected.throughput,
            qPrintable(QStringLiteral("%1: throughput %2, expected %3")
                           .arg(QString::fromLatin1(where))
                           .arg(task.throughput_samples_per_s, 0, 'g', 17)
                           .arg(expected.throughput, 0, 'g', 17)));
        if (expected.timeCost == 0.0)
            continue;
        QVERIFY2(task.time_cost_s == expected.timeCost, where.constData());
        QVERIFY2(task.memory_cost_mb_per_stage == expected.memory, where.constData());
        QVERIFY2(task.vtp == expected.vtp && task.vsp == expected.vsp && task.embed_sdp == expected.embedSdp,
            where.constData());
    }
    if (run.bestTime > 0) {
        QVERIFY(result.best);
        QCOMPARE_EXACT(result.best->time_cost_s, run.bestTime);
    } else {
        QVERIFY(!result.best);
    }
}

QTEST_GUILESS_MAIN(TestOracleRuns)
#include "tst_oracle_runs.moc"
