// SPDX-License-Identifier: GPL-3.0-or-later
// Galvatron main's semantics beyond the worked cases of docs/galvatron-search.md §7: every task of eight more searches
// (oracle_runs.h, from the independent reference implementation with least-squares fits) must come
// out bit for bit: time cost, throughput, memory per stage and embedding choice. Uneven batches
// are costed as Galvatron does here (UnevenBatch::Galvatron), since that is what is compared.
#include <QTest>

#include "core/common/progress.h"
#include "core/galvatron/search_engine.h"

#include "oracle_runs.h"
#include "search_test_util.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::test;

namespace {

// Optima of nineteen more searches on random settings (tools/galvatron-oracle, --fit ols), checked
// against this engine by a differential run; rows with no plan are settings where nothing fits.
struct OracleOptimum {
    const char* name;
    int nodes;
    int memoryGb;
    int bsz;
    bool staticTime;
    int maxPp;
    int maxTp;
    int maxSp;
    bool gpipe;
    bool ddp;
    bool noAsync;
    int gbsz; // 0: no plan
    int chunks;
    int pp;
    double timeCost;
    std::vector<int> memory;
};

const std::vector<OracleOptimum>& oracleOptima()
{
    static const std::vector<OracleOptimum> optima = {
        { "1x8 48GB bsz8 batch pp<=2 tp<=4 sp<=1 pipedream_flush ddp noasync", 1, 48, 8, false, 2, 4, 1, false, true,
            true, 8, 1, 1, 0.5130471093512415, { 48184 } },
        { "1x8 32GB bsz8 static pp<=8 tp<=4 sp<=1 pipedream_flush zero2", 1, 32, 8, true, 8, 4, 1, false, false, false,
            8, 2, 1, 0.50705093288909, { 32761 } },
        { "1x8 21GB bsz96 batch pp<=4 tp<=2 sp<=4 pipedream_flush zero2 noasync", 1, 21, 96, false, 4, 2, 4, false,
            false, true, 96, 32, 4, 7.756128512787003, { 21430, 21451, 21420, 20973 } },
        { "2x8 28GB bsz16 static pp<=1 tp<=4 sp<=8 pipedream_flush zero2", 2, 28, 16, true, 1, 4, 8, false, false,
            false, 16, 1, 1, 0.5760714589762559, { 28435 } },
        { "1x8 48GB bsz32 static pp<=2 tp<=2 sp<=4 gpipe zero2", 1, 48, 32, true, 2, 2, 4, true, false, false, 32, 8, 1,
            1.8737256145202645, { 43314 } },
        { "1x8 48GB bsz16 batch pp<=4 tp<=2 sp<=4 gpipe zero2", 1, 48, 16, false, 4, 2, 4, true, false, false, 16, 1, 1,
            1.0005359349088119, { 49144 } },
        { "1x8 18GB bsz24 static pp<=2 tp<=2 sp<=1 pipedream_flush ddp noasync", 1, 18, 24, true, 2, 2, 1, false, true,
            true, 24, 4, 1, 1.3668215145628952, { 18430 } },
        { "1x8 28GB bsz8 static pp<=2 tp<=2 sp<=4 gpipe zero2 noasync", 1, 28, 8, true, 2, 2, 4, true, false, true, 8,
            1, 1, 0.5812469119648904, { 28654 } },
        { "1x8 40GB bsz40 batch pp<=4 tp<=4 sp<=8 pipedream_flush ddp", 1, 40, 40, false, 4, 4, 8, false, true, false,
            40, 8, 2, 2.2392031000263453, { 40893, 40953 } },
        { "2x8 20GB bsz96 static pp<=4 tp<=2 sp<=1 pipedream_flush zero2 noasync", 2, 20, 96, true, 4, 2, 1, false,
            false, true, 96, 8, 2, 2.272702295876077, { 20456, 20417 } },
        { "1x8 40GB bsz96 static pp<=8 tp<=4 sp<=8 pipedream_flush zero2 noasync", 1, 40, 96, true, 8, 4, 8, false,
            false, true, 96, 16, 1, 3.749745629040529, { 40941 } },
        { "1x8 21GB bsz96 static pp<=4 tp<=4 sp<=4 pipedream_flush zero2 noasync", 1, 21, 96, true, 4, 4, 4, false,
            false, true, 96, 32, 2, 6.325991358044764, { 21435, 21436 } },
        { "1x8 40GB bsz32 batch pp<=8 tp<=4 sp<=8 pipedream_flush zero2", 1, 40, 32, false, 8, 4, 8, false, false,
            false, 32, 1, 1, 2.0950343313330135, { 40807 } },
        { "2x8 18GB bsz128 batch pp<=4 tp<=2 sp<=4 pipedream_flush zero2", 2, 18, 128, false, 4, 2, 4, false, false,
            false, 128, 32, 4, 4.873672667434018, { 18422, 18246, 18284, 17672 } },
        { "1x8 24GB bsz16 batch pp<=1 tp<=4 sp<=1 pipedream_flush zero2", 1, 24, 16, false, 1, 4, 1, false, false,
            false, 16, 1, 1, 1.1759128539123465, { 24485 } },
        { "1x8 14GB bsz8 static pp<=2 tp<=4 sp<=4 gpipe zero2 noasync", 1, 14, 8, true, 2, 4, 4, true, false, true, 0,
            0, 0, 0.0, {} },
        { "1x8 10GB bsz64 batch gpipe zero2", 1, 10, 64, false, 8, 8, 8, true, false, false, 0, 0, 0, 0.0, {} },
        { "1x8 21GB bsz16 batch pp<=4 tp<=4 sp<=1 gpipe zero2 noasync", 1, 21, 16, false, 4, 4, 1, true, false, true, 0,
            0, 0, 0.0, {} },
        { "1x8 14GB bsz96 batch pp<=4 tp<=8 sp<=1 gpipe ddp noasync", 1, 14, 96, false, 4, 8, 1, true, true, true, 0, 0,
            0, 0.0, {} },
    };
    return optima;
}

// The search with an oracle run's settings (OracleRun and OracleOptimum name them alike). Uneven
// batches are costed as Galvatron does, since that is what the oracle computes.
template <typename Run> SearchResult searchAsOracle(const Run& run)
{
    SearchSettings settings = llamaSettings(run.memoryGb, run.bsz);
    settings.num_nodes = run.nodes;
    settings.pipeline_type = run.gpipe ? galvatron::PipelineType::GPipe : galvatron::PipelineType::PipeDreamFlush;
    settings.default_dp_type = run.ddp ? galvatron::DpType::Ddp : galvatron::DpType::Zero2;
    settings.async_grad_reduce = !run.noAsync;
    settings.max_tp_deg = run.maxTp;
    settings.max_pp_deg = run.maxPp;
    settings.max_sp_deg = run.maxSp;
    if (run.staticTime)
        settings.time_profile_mode = profile::TimeProfileMode::Static;
    settings.uneven_batch = UnevenBatch::Galvatron;
    NullProgress progress;
    return stratex::galvatron::search(llamaInputs(run.nodes), settings, progress, 2);
}

} // namespace

class TestOracleRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyTask_data();
    void everyTask();
    void optimaOnRandomSettings_data();
    void optimaOnRandomSettings();
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
    const SearchResult result = searchAsOracle(run);
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

void TestOracleRuns::optimaOnRandomSettings_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < oracleOptima().size(); ++i)
        QTest::newRow(oracleOptima()[i].name) << int(i);
}

void TestOracleRuns::optimaOnRandomSettings()
{
    QFETCH(int, index);
    const OracleOptimum& run = oracleOptima()[std::size_t(index)];
    const SearchResult result = searchAsOracle(run);
    if (run.gbsz == 0) {
        QVERIFY(!result.best);
        return;
    }
    QVERIFY(result.best);
    QCOMPARE(result.best->gbsz, run.gbsz);
    QCOMPARE(result.best->chunks, run.chunks);
    QCOMPARE(result.best->pp, run.pp);
    QCOMPARE_EXACT(result.best->time_cost_s, run.timeCost);
    QCOMPARE(result.best->memory_cost_mb_per_stage, run.memory);
}

QTEST_GUILESS_MAIN(TestOracleRuns)
#include "tst_oracle_runs.moc"
