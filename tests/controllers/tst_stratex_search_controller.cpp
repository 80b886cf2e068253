// SPDX-License-Identifier: GPL-3.0-or-later
// StratexSearchController without widgets: the form's inputs resolved the CLI's way (a synthesized
// set's model and cluster, a preset and a GPU, what is missing named), a search on a worker with
// its cancellation, and the plan's rank layout.
#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/common/error.h"
#include "core/hardware/hardware_model.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/profile_synthesizer.h"

#include "controllers/stratex_search_controller.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

const std::string kExample = STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8";

} // namespace

class TestStratexSearchController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void resolvesTheFormsInputs_data();
    void resolvesTheFormsInputs();
    void searchesOnAWorker();
    void cancels();
    void calibratedSetKeepsItsEfficiencies();
    void rankLayoutOfAPlan();
};

void TestStratexSearchController::resolvesTheFormsInputs_data()
{
    QTest::addColumn<QString>("folder"); // "example", "measured" or ""
    QTest::addColumn<QString>("modelName"); // given when not empty
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("globalBatch");
    QTest::addColumn<int>("settledBatch"); // the Galvatron batch field, -1: a range
    QTest::addColumn<QString>("error"); // empty: resolves
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("gpuName");
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("batch");
    QTest::newRow("synthesized set") << "example"
                                     << ""
                                     << "" << 64 << -1 << ""
                                     << "llama2-13b"
                                     << "a100-40gb" << 16 << 64;
    // The form hides Galvatron's batch with the stratex model: what it hides is never read.
    QTest::newRow("not the search table's batch") << "example"
                                                  << ""
                                                  << "" << 0 << 32 << "searches one global batch"
                                                  << ""
                                                  << "" << 0 << 0;
    QTest::newRow("another GPU for the set") << "example"
                                             << ""
                                             << "h100-80gb" << 64 << -1 << ""
                                             << "llama2-13b"
                                             << "h100-80gb" << 16 << 64;
    QTest::newRow("a preset and a GPU") << ""
                                        << "llama2-7b"
                                        << "a100-80gb" << 16 << -1 << ""
                                        << "llama2-7b"
                                        << "a100-80gb" << 8 << 16;
    QTest::newRow("no batch") << "example"
                              << ""
                              << "" << 0 << -1 << "searches one global batch"
                              << ""
                              << "" << 0 << 0;
    QTest::newRow("measured profiles") << "measured"
                                       << ""
                                       << "" << 16 << -1
                                       << "measured profiles, which the stratex cost model does not read"
                                       << ""
                                       << "" << 0 << 0;
    QTest::newRow("no model") << ""
                              << ""
                              << "a100-80gb" << 16 << -1 << "needs the model's architecture"
                              << ""
                              << "" << 0 << 0;
    QTest::newRow("no GPU") << ""
                            << "llama2-7b"
                            << "" << 16 << -1 << "needs the GPU"
                            << ""
                            << "" << 0 << 0;
    QTest::newRow("an unknown GPU") << ""
                                    << "llama2-7b"
                                    << "b200-999gb" << 16 << -1 << "b200-999gb"
                                    << ""
                                    << "" << 0 << 0;
}

void TestStratexSearchController::resolvesTheFormsInputs()
{
    QFETCH(QString, folder);
    QFETCH(QString, modelName);
    QFETCH(QString, gpu);
    QFETCH(int, globalBatch);
    QFETCH(int, settledBatch);
    QFETCH(QString, error);
    QFETCH(QString, model);
    QFETCH(QString, gpuName);
    QFETCH(int, world);
    QFETCH(int, batch);
    StratexSearchInputs inputs;
    if (folder == QStringLiteral("example"))
        inputs.profiles_dir = kExample;
    else if (folder == QStringLiteral("measured"))
        inputs.profiles_dir = stratex::test::fixture(QStringLiteral("galvatron")).toStdString();
    if (!modelName.isEmpty()) {
        inputs.settings.model.name = modelName.toStdString();
        inputs.given.insert("model-name");
    }
    inputs.stratex.gpu = gpu.toStdString();
    inputs.stratex.global_batch_size = globalBatch;
    inputs.settings.settle_bsz = settledBatch;
    try {
        const megatron::StrategySearchRequest request = resolveStratexRequest(inputs);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(QString::fromStdString(request.model.name), model);
        QCOMPARE(QString::fromStdString(request.cluster.gpu.name), gpuName);
        QCOMPARE(int(request.cluster.worldSize()), world);
        QCOMPARE(request.global_batch_size, batch);
        // Without the memory field given, the GPU's memory, in GB as GPUs count them (GiB).
        QCOMPARE(request.memory_limit_mb, request.cluster.gpu.memory_gb * 1073.741824);
    } catch (const Error& failure) {
        QVERIFY2(!error.isEmpty() && QString::fromUtf8(failure.what()).contains(error), failure.what());
    }
}

void TestStratexSearchController::searchesOnAWorker()
{
    StratexSearchController controller;
    QSignalSpy started(&controller, &StratexSearchController::searchStarted);
    QSignalSpy finished(&controller, &StratexSearchController::searchFinished);
    QSignalSpy views(&controller, &StratexSearchController::bestPlanViewsReady);
    StratexSearchInputs inputs;
    inputs.settings.model.name = "llama2-7b";
    inputs.given.insert("model-name");
    inputs.stratex.gpu = "a100-80gb";
    inputs.stratex.global_batch_size = 16;
    inputs.stratex.space.max_vpp = 2;
    inputs.stratex.space.max_micro_batch_size = 2;
    inputs.top = 5;
    controller.run(inputs, true);
    QCOMPARE(started.count(), 1);
    QVERIFY(controller.searchRunner()->isRunning()); // the GUI thread is free meanwhile
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    QTRY_COMPARE_WITH_TIMEOUT(views.count(), 1, 60000);
    const auto outcome = controller.outcome();
    QVERIFY(outcome);
    QVERIFY(!outcome->result.best.empty() && outcome->result.best.size() <= 5);
    QCOMPARE(outcome->cluster.worldSize(), 8);
    const auto config = views.front().front().value<ranks::ParallelConfig>();
    QCOMPARE(config.world, 8);
}

// A set synthesized for a calibrated cluster (profile synth --cluster) keeps the cluster's fitted
// efficiencies; choosing another GPU in the form drops them, as they were measured on the first.
void TestStratexSearchController::calibratedSetKeepsItsEfficiencies()
{
    QTemporaryDir dir;
    for (const QFileInfo& file : QDir(QString::fromStdString(kExample)).entryInfoList(QDir::Files))
        QVERIFY(QFile::copy(file.filePath(), dir.filePath(file.fileName())));
    const QString recordPath = dir.filePath(QString::fromUtf8(profile::synth::kSynthesisFileName));
    QFile record(recordPath);
    QVERIFY(record.open(QIODevice::ReadOnly));
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(record.readAll().toStdString());
    record.close();
    hardware::Efficiency calibrated = hardware::efficiencyFor(hardware::gpuPreset("a100-40gb"));
    calibrated.gemm = 0.4321;
    json["cluster"]["efficiency"] = hardware::toJson(calibrated);
    QVERIFY(record.open(QIODevice::WriteOnly | QIODevice::Truncate));
    record.write(QByteArray::fromStdString(json.dump(2)));
    record.close();

    StratexSearchInputs inputs;
    inputs.profiles_dir = dir.path().toStdString();
    inputs.stratex.global_batch_size = 64;
    QCOMPARE(resolveStratexRequest(inputs).efficiency.gemm, 0.4321);
    inputs.stratex.gpu = "h100-80gb";
    QCOMPARE(resolveStratexRequest(inputs).efficiency.gemm,
        hardware::efficiencyFor(hardware::gpuPreset("h100-80gb")).gemm);
}

void TestStratexSearchController::cancels()
{
    StratexSearchController controller;
    QSignalSpy cancelled(&controller, &StratexSearchController::searchCancelled);
    QSignalSpy finished(&controller, &StratexSearchController::searchFinished);
    StratexSearchInputs inputs;
    inputs.settings.model.name = "llama2-70b";
    inputs.given.insert("model-name");
    inputs.stratex.gpu = "h100-80gb";
    inputs.settings.num_nodes = 64;
    inputs.stratex.global_batch_size = 1024;
    controller.run(inputs);
    controller.cancel();
    QTRY_COMPARE_WITH_TIMEOUT(cancelled.count(), 1, 60000);
    QCOMPARE(finished.count(), 0);
    QVERIFY(!controller.outcome());
}

void TestStratexSearchController::rankLayoutOfAPlan()
{
    megatron::ParallelStrategy s;
    s.tp = 2;
    s.pp = 4;
    s.cp = 2;
    s.dp = 4;
    const ranks::ParallelConfig config = stratexRankLayout(s, 8);
    QCOMPARE(config.world, 64);
    QCOMPARE(config.tp, 2);
    QCOMPARE(config.pp, 4);
    QCOMPARE(config.cp, 2);
    QCOMPARE(config.gpusPerNode, 8);
}

QTEST_GUILESS_MAIN(TestStratexSearchController)
#include "tst_stratex_search_controller.moc"
