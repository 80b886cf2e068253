// SPDX-License-Identifier: GPL-3.0-or-later
// The Profiles page's logic without widgets: ProfilesController reads a profile set on a worker
// the search's way and keeps what it says; a new folder supersedes the one still loading.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/model/model_presets.h"
#include "core/profile/synth/profile_synthesizer.h"

#include "controllers/profiles_controller.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

const QString kExample = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");

bool synthesize(const QString& dir, const QString& model, const QString& gpu, int nodes)
{
    using namespace stratex::profile::synth;
using namespace stratex::hardware;
    ClusterDescription cluster;
    cluster.gpu = gpuPreset(gpu.toStdString());
    cluster.num_nodes = nodes;
    writeProfileFiles(dir.toStdString(), synthesizeProfiles(model::modelPreset(model.toStdString()), cluster));
    return true;
}

} // namespace

class TestProfilesController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsTheBundledExample();
    void readsASynthesizedSet_data();
    void readsASynthesizedSet();
    void reportsAFolderItCannotRead_data();
    void reportsAFolderItCannotRead();
    void aNewFolderSupersedesTheOneLoading();
};

void TestProfilesController::readsTheBundledExample()
{
    ProfilesController controller;
    QSignalSpy started(&controller, &ProfilesController::loadStarted);
    QSignalSpy ready(&controller, &ProfilesController::overviewReady);
    QSignalSpy failed(&controller, &ProfilesController::loadFailed);
    controller.load(kExample);
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.first().first().toString(), kExample);
    QCOMPARE(controller.folder(), kExample);
    QVERIFY(!controller.overview()); // on a worker: nothing yet
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QCOMPARE(failed.count(), 0);
    const auto overview = controller.overview();
    QVERIFY(overview);
    QCOMPARE(ready.first().first().value<std::shared_ptr<const profile::ProfileOverview>>(), overview);
    QCOMPARE(overview->model_name, std::string("llama2-13b"));
    QCOMPARE(overview->seq_length, 4096);
    QVERIFY(overview->estimated);
    QCOMPARE(overview->layer_ms_per_sample_by_bsz.size(), std::size_t(8));
    QVERIFY(overview->layer_seq_fit.has_value());
    QCOMPARE(overview->allreduce.back().size, 16); // 2 nodes x 8 GPUs
}

void TestProfilesController::readsASynthesizedSet_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("largestGroup"); // all-reduce over every GPU
    QTest::addColumn<int>("seqLength");
    QTest::newRow("llama3-70b on 4 x 8 H800")
        << QStringLiteral("llama3-70b") << QStringLiteral("h800-80gb") << 4 << 32 << 8192;
    QTest::newRow("gpt3-13b on 2 x 8 A100")
        << QStringLiteral("gpt3-13b") << QStringLiteral("a100-80gb") << 2 << 16 << 2048;
    QTest::newRow("llama2-7b on 1 x 8 H100")
        << QStringLiteral("llama2-7b") << QStringLiteral("h100-80gb") << 1 << 8 << 4096;
}

void TestProfilesController::readsASynthesizedSet()
{
    QFETCH(QString, model);
    QFETCH(QString, gpu);
    QFETCH(int, nodes);
    QFETCH(int, largestGroup);
    QFETCH(int, seqLength);
    QTemporaryDir dir;
    QVERIFY(synthesize(dir.path(), model, gpu, nodes));
    ProfilesController controller;
    QSignalSpy ready(&controller, &ProfilesController::overviewReady);
    controller.load(dir.path());
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    const auto overview = controller.overview();
    QVERIFY(overview);
    QCOMPARE(QString::fromStdString(overview->model_name), model);
    QCOMPARE(overview->seq_length, seqLength);
    QVERIFY(overview->estimated);
    QCOMPARE(overview->allreduce.back().size, largestGroup);
    QCOMPARE(overview->activation_mb_per_sample_by_tp.back().first, largestGroup);
    // The same overview as the function the worker runs.
    const profile::ProfileOverview direct = readProfileOverview(dir.path());
    QCOMPARE(direct.model_name, overview->model_name);
    QVERIFY(direct.layer_ms_per_sample_by_bsz == overview->layer_ms_per_sample_by_bsz);
}

void TestProfilesController::reportsAFolderItCannotRead_data()
{
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("named"); // what the message must name
    // Several models and no name to choose by: the message lists what was found.
    QTest::newRow("several models") << stratex::test::fixture(QStringLiteral("galvatron"))
                                    << "computation_profiling_bf16_llama2-7b_all.json";
    QTest::newRow("no such folder") << QStringLiteral("/no/such/profiles") << "/no/such/profiles";
}

void TestProfilesController::reportsAFolderItCannotRead()
{
    QFETCH(QString, folder);
    QFETCH(QString, named);
    ProfilesController controller;
    QSignalSpy ready(&controller, &ProfilesController::overviewReady);
    QSignalSpy failed(&controller, &ProfilesController::loadFailed);
    // A good set first: a failure drops its overview.
    controller.load(kExample);
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QVERIFY(controller.overview());
    controller.load(folder);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
    QCOMPARE(ready.count(), 1);
    QVERIFY(!controller.overview());
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(named), qPrintable(message));
}

void TestProfilesController::aNewFolderSupersedesTheOneLoading()
{
    QTemporaryDir dir;
    QVERIFY(synthesize(dir.path(), QStringLiteral("gpt3-13b"), QStringLiteral("a100-40gb"), 1));
    ProfilesController controller;
    QSignalSpy ready(&controller, &ProfilesController::overviewReady);
    QSignalSpy failed(&controller, &ProfilesController::loadFailed);
    controller.load(stratex::test::fixture(QStringLiteral("galvatron"))); // would fail
    controller.load(kExample);
    controller.load(dir.path()); // the one asked for last
    controller.runner()->waitForIdle();
    QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 30000);
    QTest::qWait(50);
    QCOMPARE(ready.count(), 1);
    QCOMPARE(failed.count(), 0);
    QCOMPARE(controller.folder(), dir.path());
    QCOMPARE(controller.overview()->model_name, std::string("gpt3-13b"));
}

QTEST_GUILESS_MAIN(TestProfilesController)
#include "tst_profiles_controller.moc"
