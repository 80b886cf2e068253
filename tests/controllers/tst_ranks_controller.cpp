// SPDX-License-Identifier: GPL-3.0-or-later
// The Ranks page's logic without widgets: RanksController lays a parallel layout out as a rank
// grid and plans the workload tracer's batch configs on workers, after a quiet period that
// coalesces a burst of edits, and writes the tracer script.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/ranks/batch_config.h"

#include "controllers/ranks_controller.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::controllers;
using stratex::ranks::BatchConfig;
using stratex::ranks::ParallelConfig;

namespace {

ParallelConfig layout(int world, int tp, int pp, int cp = 1, int ep = 1)
{
    ParallelConfig config;
    config.world = world;
    config.tp = tp;
    config.pp = pp;
    config.cp = cp;
    config.ep = ep;
    return config;
}

std::vector<BatchConfig> configs(const QStringList& lines)
{
    std::vector<BatchConfig> parsed;
    for (const QString& line : lines)
        parsed.push_back(ranks::parseBatchConfigLine(line.toStdString()));
    return parsed;
}

// Waits out the quiet periods and the jobs they start.
bool settle(RanksController& controller, int timeoutMs = 20000)
{
    QDeadlineTimer deadline(timeoutMs);
    int quiet = 0;
    while (!deadline.hasExpired()) {
        QTest::qWait(20);
        bool busy = controller.hasPendingWork();
        for (jobs::JobRunner* runner : controller.runners())
            busy = busy || runner->isRunning();
        quiet = busy ? 0 : quiet + 1;
        if (quiet >= 3)
            return true;
    }
    return false;
}

} // namespace

class TestRanksController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void laysOutALayout_data();
    void laysOutALayout();
    void refusesAnInvalidLayout_data();
    void refusesAnInvalidLayout();
    void aBurstOfEditsLaysOutOnce();
    void plansTheTracerConfigs_data();
    void plansTheTracerConfigs();
    void summarizesThePlans();
    void theTracerFollowsTheLayout();
    void loadsABatchFile();
    void writesTheTracerScript();
};

void TestRanksController::laysOutALayout_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("ranksPerBand");
    QTest::addColumn<int>("traced"); // the dense tracer: one rank per stage
    QTest::newRow("64 = tp4 pp4 dp4") << 64 << 4 << 4 << 1 << 4 << 16 << 4;
    QTest::newRow("8192 = tp8 pp16 dp64") << 8192 << 8 << 16 << 1 << 64 << 512 << 16;
    QTest::newRow("32 = tp2 cp2 pp2 dp4") << 32 << 2 << 2 << 2 << 4 << 16 << 2;
    QTest::newRow("8 = dp8") << 8 << 1 << 1 << 1 << 8 << 8 << 1;
}

void TestRanksController::laysOutALayout()
{
    QFETCH(int, world);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, cp);
    QFETCH(int, dp);
    QFETCH(int, ranksPerBand);
    QFETCH(int, traced);
    RanksController controller;
    QSignalSpy ready(&controller, &RanksController::viewReady);
    QSignalSpy failed(&controller, &RanksController::layoutFailed);
    controller.setLayout(layout(world, tp, pp, cp));
    QVERIFY(controller.hasPendingWork()); // waits for the quiet period
    QVERIFY(!controller.view());
    QVERIFY(settle(controller));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(failed.count(), 0);
    const auto view = controller.view();
    QVERIFY(view);
    QCOMPARE(ready.first().first().value<std::shared_ptr<const RankGridView>>(), view);
    QCOMPARE(view->world(), world);
    QCOMPARE(view->stages(), pp);
    QCOMPARE(view->grid.sizes().dp, dp);
    QCOMPARE(view->ranksPerBand, ranksPerBand);
    QCOMPARE(int(std::count(view->traced.begin(), view->traced.end(), 1)), traced);
    // Every rank has its place in its stage's band.
    for (int rank = 0; rank < world; ++rank)
        QCOMPARE(view->rankInBand(view->stageOf(rank), view->indexInBand[std::size_t(rank)]), rank);
}

void TestRanksController::refusesAnInvalidLayout_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::newRow("tp does not divide") << 64 << 3 << 1;
    QTest::newRow("tp x pp beyond the world") << 64 << 8 << 16;
}

void TestRanksController::refusesAnInvalidLayout()
{
    QFETCH(int, world);
    QFETCH(int, tp);
    QFETCH(int, pp);
    RanksController controller;
    QSignalSpy ready(&controller, &RanksController::viewReady);
    QSignalSpy failed(&controller, &RanksController::layoutFailed);
    controller.setLayout(layout(64, 4, 4)); // a valid one first: the failure drops it
    QVERIFY(settle(controller));
    QVERIFY(controller.view());
    controller.setLayout(layout(world, tp, pp));
    QVERIFY(settle(controller));
    QCOMPARE(ready.count(), 1);
    QCOMPARE(failed.count(), 1);
    QVERIFY(!failed.first().first().toString().isEmpty());
    QVERIFY(!controller.view());
}

void TestRanksController::aBurstOfEditsLaysOutOnce()
{
    RanksController controller;
    QSignalSpy ready(&controller, &RanksController::viewReady);
    QSignalSpy started(controller.layoutRunner(), &jobs::JobRunner::started);
    // Typing 1, 12, 128 into the world field.
    for (int world : { 16, 128, 1024, 8192 })
        controller.setLayout(layout(world, 8, 16));
    QVERIFY(settle(controller));
    QCOMPARE(started.count(), 1);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(controller.view()->world(), 8192);
    QCOMPARE(controller.layout().world, 8192);
}

void TestRanksController::plansTheTracerConfigs_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("traced");
    QTest::addColumn<double>("saving"); // percent, one decimal
    QTest::newRow("8192 16 8") << "8192 16 8" << true << 64 << 16 << 99.8;
    QTest::newRow("8192 32 4") << "8192 32 4" << true << 64 << 32 << 99.6;
    QTest::newRow("64 4 4") << "64 4 4" << true << 4 << 4 << 93.8;
    QTest::newRow("not divisible") << "4096 16 3" << false << 0 << 0 << 0.0;
}

void TestRanksController::plansTheTracerConfigs()
{
    QFETCH(QString, line);
    QFETCH(bool, valid);
    QFETCH(int, dp);
    QFETCH(int, traced);
    QFETCH(double, saving);
    RanksController controller;
    QSignalSpy planned(&controller, &RanksController::tracerPlansReady);
    controller.setBatchConfigs(configs({ line }));
    QVERIFY(controller.hasPendingWork());
    QVERIFY(settle(controller));
    QCOMPARE(planned.count(), 1);
    QCOMPARE(controller.tracerPlans().size(), std::size_t(1));
    const ranks::TraceConfigPlan& plan = controller.tracerPlans().front();
    QCOMPARE(plan.index, 1);
    QCOMPARE(plan.valid, valid);
    if (!valid) {
        QVERIFY2(QString::fromStdString(plan.error).contains(QStringLiteral("not divisible")), plan.error.c_str());
        return;
    }
    QCOMPARE(plan.dp, dp);
    QCOMPARE(int(plan.ranks.size()), traced);
    QCOMPARE(plan.originalRanks, plan.input.world);
    QCOMPARE(plan.savingPercent, saving);
}

void TestRanksController::summarizesThePlans()
{
    RanksController controller;
    controller.setBatchConfigs(configs({ "8192 16 8", "8192 32 4", "4096 16 3" }));
    QVERIFY(settle(controller));
    const ranks::TracerSummary summary = controller.tracerSummary();
    QCOMPARE(controller.tracerPlans().size(), std::size_t(3));
    QCOMPARE(summary.valid, 2);
    QCOMPARE(summary.selected_ranks, 16LL + 32LL);
    QCOMPARE(summary.original_ranks, 2LL * 8192);
    QVERIFY(qAbs(summary.saving_percent - 100.0 * (1.0 - 48.0 / 16384.0)) < 1e-9);
    QCOMPARE(ranks::summarizeTracer({}).valid, 0);
    QCOMPARE(ranks::summarizeTracer({}).saving_percent, 0.0);
}

void TestRanksController::theTracerFollowsTheLayout()
{
    RanksController controller;
    ranks::TracerSettings settings;
    settings.model = "gpt-7b";
    settings.microBatchSize = 2;
    settings.cp = 8; // the layout's, not the tracer's: ignored
    controller.setTracerSettings(settings);
    ParallelConfig config = layout(64, 2, 4, 2, 1);
    config.gpusPerNode = 4;
    controller.setLayout(config);
    const ranks::TracerSettings used = controller.tracerSettings();
    QCOMPARE(used.model, std::string("gpt-7b"));
    QCOMPARE(used.microBatchSize, 2);
    QCOMPARE(used.cp, 2);
    QCOMPARE(used.gpusPerNode, 4);
    // A new layout plans the configs again, with its degrees.
    controller.setBatchConfigs(configs({ "64 4 2" }));
    QVERIFY(settle(controller));
    QVERIFY(controller.tracerPlans().front().valid);
    QCOMPARE(controller.tracerPlans().front().dp, 4); // 64 / (4 x 2 x cp 2)
    QSignalSpy planned(&controller, &RanksController::tracerPlansReady);
    controller.setLayout(layout(64, 2, 4, 1, 1));
    QVERIFY(settle(controller));
    QCOMPARE(planned.count(), 1);
    QCOMPARE(controller.tracerPlans().front().dp, 8);
}

void TestRanksController::loadsABatchFile()
{
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("batch.txt"));
    QVERIFY(stratex::test::writeTestFile(good, "# world pp tp\n8192 16 8\n64 4 4  # small\n"));
    RanksController controller;
    QSignalSpy loaded(&controller, &RanksController::batchConfigsLoaded);
    QString error;
    QVERIFY2(controller.loadBatchFile(good, &error), qPrintable(error));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(loaded.first().first().toString(), good);
    QCOMPARE(controller.batchConfigs().size(), std::size_t(2));
    QCOMPARE(controller.batchConfigs()[1].world, 64);
    QVERIFY(settle(controller));
    QCOMPARE(controller.tracerPlans().size(), std::size_t(2));

    // A bad field is a config the table reports, not a bad file (a file in which no line reads is
    // not a batch list: tst_ranks_open).
    const QString field = dir.filePath(QStringLiteral("field.txt"));
    QVERIFY(stratex::test::writeTestFile(field, "8192 sixteen 8\n64 4 4\n"));
    QVERIFY2(controller.loadBatchFile(field, &error), qPrintable(error));
    QCOMPARE(controller.batchConfigs().size(), std::size_t(2));
    QVERIFY(!controller.batchConfigs()[0].parseError.empty());
    QVERIFY(settle(controller));
    QVERIFY(!controller.tracerPlans().front().valid);
    QVERIFY2(controller.loadBatchFile(good, &error), qPrintable(error));
    QCOMPARE(loaded.count(), 3);

    // A file with no configs, a control character, or not there: an error naming it, the
    // configs stay.
    const QString empty = dir.filePath(QStringLiteral("empty.txt"));
    QVERIFY(stratex::test::writeTestFile(empty, "# nothing here\n"));
    QVERIFY(!controller.loadBatchFile(empty, &error));
    QVERIFY2(error.contains(QStringLiteral("empty.txt")), qPrintable(error));
    const QString control = dir.filePath(QStringLiteral("control.txt"));
    QVERIFY(stratex::test::writeTestFile(control, "8192 16 8\n64 4\x01 4\n"));
    QVERIFY(!controller.loadBatchFile(control, &error));
    QVERIFY2(error.contains(QStringLiteral("control.txt")), qPrintable(error));
    QVERIFY(!controller.loadBatchFile(dir.filePath(QStringLiteral("missing.txt")), &error));
    QVERIFY2(error.contains(QStringLiteral("missing.txt")), qPrintable(error));
    QCOMPARE(loaded.count(), 3);
    QCOMPARE(controller.batchConfigs().size(), std::size_t(2));
}

void TestRanksController::writesTheTracerScript()
{
    QTemporaryDir dir;
    RanksController controller;
    controller.setBatchConfigs(configs({ "8192 16 8", "4096 16 3" }));
    QSignalSpy exported(&controller, &RanksController::scriptExported);
    QSignalSpy failed(&controller, &RanksController::scriptExportFailed);
    const QString path = dir.filePath(QStringLiteral("trace.sh"));
    controller.exportScript(path, QStringLiteral("echo {rank} {world}"));
    QVERIFY(exported.wait(10000));
    QCOMPARE(exported.first().first().toString(), path);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray script = file.readAll();
    QVERIFY(script.contains("run_config 1 8192 16 8 64"));
    QVERIFY(script.contains("echo"));
    QVERIFY(file.permissions() & QFileDevice::ExeOwner);

    // No command: refused, nothing written.
    controller.exportScript(dir.filePath(QStringLiteral("empty.sh")), QString());
    QVERIFY(failed.wait(10000));
    QVERIFY(!failed.first().first().toString().isEmpty());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("empty.sh"))));
    QCOMPARE(exported.count(), 1);
}

QTEST_GUILESS_MAIN(TestRanksController)
#include "tst_ranks_controller.moc"
