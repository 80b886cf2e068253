// SPDX-License-Identifier: GPL-3.0-or-later
// The Search page's logic without widgets: SearchController runs the search, costs the selected
// plan, simulates timelines and delivers the best plan's views, each job on its own runner.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "controllers/search_controller.h"
#include "jobs/job_runner.h"

using namespace stratex;
using namespace stratex::controllers;

namespace {

const QString kExample = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");

// The bundled example as the GUI searches it at start: 40 GB per GPU, global batch 64.
SearchRequest exampleRequest(bool showBestPlan)
{
    SearchRequest request;
    request.discovery.profilesDir = kExample.toStdString();
    request.settings.memory_constraint_gb = 40;
    request.settings.settle_bsz = 64;
    request.given = { "memory-constraint", "settle-bsz" };
    request.threads = 2;
    request.show_best_plan = showBestPlan;
    return request;
}

bool idle(const SearchController& controller)
{
    for (jobs::JobRunner* runner : controller.runners()) {
        if (runner->isRunning())
            return false;
    }
    return true;
}

} // namespace

class TestSearchController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void searchesAndAdoptsTheSynthesizedModel();
    void deliversTheBestPlanViews();
    void costsTheSelectedPlan();
    void aNewSelectionKeepsTheRequestedTimeline();
    void exportsTheSelectedPlan_data();
    void exportsTheSelectedPlan();
    void reportsAFailedSearch_data();
    void reportsAFailedSearch();
};

void TestSearchController::searchesAndAdoptsTheSynthesizedModel()
{
    SearchController controller;
    QSignalSpy started(&controller, &SearchController::searchStarted);
    QSignalSpy finished(&controller, &SearchController::searchFinished);
    QSignalSpy costModel(&controller, &SearchController::layerCostModelReady);
    controller.run(exampleRequest(false));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.first().first().toString(), kExample);
    const auto outcome = controller.outcome();
    QVERIFY(outcome && outcome->result.best);
    // The record of the synthesized set gives the model and the cluster; the user's 40 GB stays.
    QCOMPARE(outcome->settings.model.num_layers, 40);
    QCOMPARE(outcome->settings.model.hidden_size, 5120);
    QCOMPARE(outcome->settings.num_nodes, 2);
    QCOMPARE(outcome->settings.memory_constraint_gb, 40);
    QCOMPARE(outcome->settings.model.name, std::string("llama2-13b"));
    QVERIFY(outcome->estimated_profiles);
    QCOMPARE(outcome->profiles_dir, kExample);
    QCOMPARE(costModel.count(), 1);
    QVERIFY(!controller.plans(PlanSet::Top).empty());
    QVERIFY(!controller.plans(PlanSet::Pareto).empty());
    QCOMPARE(controller.plans(PlanSet::Top).front().throughput_samples_per_s,
        outcome->result.best->throughput_samples_per_s);
}

void TestSearchController::deliversTheBestPlanViews()
{
    SearchController controller;
    QSignalSpy views(&controller, &SearchController::bestPlanViewsReady);
    controller.run(exampleRequest(true));
    QTRY_COMPARE_WITH_TIMEOUT(views.count(), 1, 60000);
    const auto config = views.first().at(0).value<ranks::ParallelConfig>();
    const auto timeline = views.first().at(1).value<TimelineRequest>();
    const galvatron::Plan& best = *controller.outcome()->result.best;
    QCOMPARE(config.world, 16);
    QCOMPARE(config.pp, best.pp);
    QVERIFY(timeline.timeline);
    QCOMPARE(int(timeline.timeline->devices.size()), best.pp);
    QVERIFY(timeline.name.startsWith(QStringLiteral("search plan: pp %1").arg(best.pp)));
    // Without show_best_plan no views follow.
    QSignalSpy none(&controller, &SearchController::bestPlanViewsReady);
    controller.run(exampleRequest(false));
    QTRY_VERIFY_WITH_TIMEOUT(idle(controller), 60000);
    QCOMPARE(none.count(), 0);
}

void TestSearchController::costsTheSelectedPlan()
{
    SearchController controller;
    QSignalSpy finished(&controller, &SearchController::searchFinished);
    controller.run(exampleRequest(false));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QVERIFY(!controller.selectedEvaluation());
    QVERIFY(!controller.selectedRankLayout());

    QSignalSpy evaluated(&controller, &SearchController::evaluationReady);
    const std::vector<galvatron::Plan>& top = controller.plans(PlanSet::Top);
    QVERIFY(top.size() >= 2);
    controller.selectPlan(&top[1]);
    QTRY_COMPARE_WITH_TIMEOUT(evaluated.count(), 1, 20000);
    QVERIFY(controller.selectedEvaluation());
    QCOMPARE(controller.selectedEvaluation()->plan.time_cost_s, top[1].time_cost_s);
    QCOMPARE(controller.selectedRankLayout()->pp, top[1].pp);

    QSignalSpy cleared(&controller, &SearchController::selectionCleared);
    controller.selectPlan(nullptr);
    QCOMPARE(cleared.count(), 1);
    QVERIFY(!controller.selectedEvaluation());
}

// The page used to run costing and simulation on one runner: selecting another plan while a
// timeline was being simulated dropped the timeline the user had asked for.
void TestSearchController::aNewSelectionKeepsTheRequestedTimeline()
{
    SearchController controller;
    QSignalSpy finished(&controller, &SearchController::searchFinished);
    controller.run(exampleRequest(false));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    QSignalSpy evaluated(&controller, &SearchController::evaluationReady);
    const std::vector<galvatron::Plan>& top = controller.plans(PlanSet::Top);
    controller.selectPlan(&top[0]);
    QTRY_COMPARE_WITH_TIMEOUT(evaluated.count(), 1, 20000);

    QSignalSpy timelines(&controller, &SearchController::timelineReady);
    controller.simulateSelectedPlan();
    controller.selectPlan(&top[1]);
    QTRY_VERIFY_WITH_TIMEOUT(idle(controller), 20000);
    QCOMPARE(timelines.count(), 1);
    QCOMPARE(evaluated.count(), 2);
    const auto timeline = timelines.first().first().value<TimelineRequest>();
    QCOMPARE(int(timeline.timeline->devices.size()), top[0].pp);
}

void TestSearchController::exportsTheSelectedPlan_data()
{
    QTest::addColumn<int>("format");
    for (const exporting::ExportFormat format : exporting::exportFormats())
        QTest::newRow(std::string(exporting::exportFormatName(format)).c_str()) << int(format);
}

// The page's exports go through the one core entry point: the file holds what exportPlan gives.
void TestSearchController::exportsTheSelectedPlan()
{
    QFETCH(int, format);
    const auto chosen = exporting::ExportFormat(format);
    SearchController controller;
    QTemporaryDir dir;
    QString error;
    QVERIFY(!controller.exportSelectedPlan(chosen, dir.filePath(QStringLiteral("none")), &error));
    QVERIFY(error.contains(QStringLiteral("no plan selected")));

    QSignalSpy finished(&controller, &SearchController::searchFinished);
    QSignalSpy evaluated(&controller, &SearchController::evaluationReady);
    controller.run(exampleRequest(false));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    controller.selectPlan(&*controller.outcome()->result.best);
    QTRY_COMPARE_WITH_TIMEOUT(evaluated.count(), 1, 20000);
    const QString path = dir.filePath(controller.defaultExportName(chosen));
    QVERIFY2(controller.exportSelectedPlan(chosen, path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const SearchOutcome& outcome = *controller.outcome();
    QVERIFY(outcome.description.model); // the bundled set is synthesized: it names its model
    const exporting::ExportedFile expected = exporting::exportPlan(
        chosen, *outcome.result.best, outcome.settings, { outcome.description.model, outcome.cluster, outcome.model });
    QCOMPARE(file.readAll().toStdString(), expected.text);
    QCOMPARE(bool(file.permissions() & QFileDevice::ExeOwner), expected.executable);
    QVERIFY(!controller.exportSelectedPlan(chosen, dir.filePath(QStringLiteral("no/such/dir/file")), &error));
}

void TestSearchController::reportsAFailedSearch_data()
{
    QTest::addColumn<QString>("dir");
    QTest::addColumn<int>("memoryGb");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing folder") << QStringLiteral("/nonexistent/profiles") << 40
                                    << QStringLiteral("/nonexistent/profiles");
    QTest::newRow("invalid settings") << kExample << 0 << QStringLiteral("memory_constraint");
}

void TestSearchController::reportsAFailedSearch()
{
    QFETCH(QString, dir);
    QFETCH(int, memoryGb);
    QFETCH(QString, message);
    SearchController controller;
    QSignalSpy failed(&controller, &SearchController::searchFailed);
    QSignalSpy finished(&controller, &SearchController::searchFinished);
    SearchRequest request = exampleRequest(true);
    request.discovery.profilesDir = dir.toStdString();
    request.settings.memory_constraint_gb = memoryGb;
    controller.run(request);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 20000);
    QVERIFY2(failed.first().first().toString().contains(message), qPrintable(failed.first().first().toString()));
    QCOMPARE(finished.count(), 0);
    QVERIFY(!controller.outcome());
}

QTEST_GUILESS_MAIN(TestSearchController)
#include "tst_search_controller.moc"
