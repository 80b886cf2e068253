// SPDX-License-Identifier: GPL-3.0-or-later
// The Planner page's controller without widgets: it plans the bundled cost model in both modes
// (the pair ModePair defines), compares the modes over growing batches, reports bad inputs at
// once and failed jobs later, offers the search's cost model, selects the plan to detail, opens
// the plans as timelines and exports the comparison.
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "core/planner/dynapipe_cost_model.h"

#include "controllers/planner_controller.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::controllers;
using namespace stratex::planner;

namespace {

const int kWaitMs = 120000;

QString bundledModelFile()
{
    return QStringLiteral(STRATEX_RESOURCES_DIR "/examples/synthetic-gpt-1.3b-cost-model.json");
}

PlannerConfig pageConfig()
{
    PlannerConfig config;
    config.num_stages = 4;
    config.layers_per_stage = 6;
    config.device_memory_mb = 40000;
    return config;
}

SyntheticLengthSpec lengths(int count)
{
    return { 6.5, 0.8, count, 1 };
}

// Ways to break the inputs, for badInputsFail.
enum class Broken {
    MissingCostModel,
    MalformedCostModel,
    NoSearchCostModel,
    NoLengthsFile,
    MissingLengthsFile,
    NoCompareBatches,
    BatchLargerThanPool
};

} // namespace

Q_DECLARE_METATYPE(Broken)

class TestPlannerController : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void plansBothModesOfTheBundledModel();
    void comparesModes();
    void badInputsFail_data();
    void badInputsFail();
    void plansWithTheSearchCostModel();
    void selectsThePlanToDetail();
    void opensPlansInTimeline();
    void latestPlanRequestWins();

private:
    PlannerController* m_controller = nullptr;
    QTemporaryDir m_dir;
};

void TestPlannerController::init()
{
    m_controller = new PlannerController;
    m_controller->setCostModelFile(bundledModelFile());
    m_controller->setSyntheticLengths(lengths(64));
    m_controller->setConfig(pageConfig());
    m_controller->setCompareBatches({ 16, 32, 64 });
}

void TestPlannerController::cleanup()
{
    delete m_controller;
    m_controller = nullptr;
}

void TestPlannerController::plansBothModesOfTheBundledModel()
{
    QSignalSpy ready(m_controller, &PlannerController::plansReady);
    QSignalSpy failed(m_controller, &PlannerController::failed);
    m_controller->planBatch();
    QVERIFY(m_controller->planRunner()->isRunning());
    QVERIFY(ready.wait(kWaitMs));
    QCOMPARE(failed.count(), 0);
    const auto plans = ready.first().at(0).value<std::shared_ptr<const ModePair>>();
    QVERIFY(plans);
    QCOMPARE(plans, m_controller->plans());
    QVERIFY(ready.first().at(1).toString().startsWith(QStringLiteral("SYNTHETIC EXAMPLE")));
    QCOMPARE(plans->normal.mode, PlannerMode::Normal);
    QCOMPARE(plans->fast.mode, PlannerMode::Fast);
    QVERIFY(plans->normal.feasible && plans->fast.feasible);
    int samples = 0;
    for (const PlannedMicroBatch& planned : plans->normal.groups.front().microbatches)
        samples += int(planned.microbatch.sample_ids.size());
    QCOMPARE(samples, 64);

    // Speedup and quality loss are ModePair's, not recomputed elsewhere.
    const ModePair paired = pairModes(plans->normal, plans->fast);
    QCOMPARE(plans->speedup, paired.speedup);
    QCOMPARE(plans->quality_loss_percent, paired.quality_loss_percent);
    QVERIFY(plans->comparable);
    QCOMPARE(plans->speedup, plans->normal.planning_time_ms / plans->fast.planning_time_ms);
    // The same inputs planned directly give the same plans (planning is deterministic).
    NullProgress progress;
    const LoadedPlannerInputs loaded = loadPlannerInputs(m_controller->inputs());
    const ModePair direct = planBothModes(loaded.samples, *loaded.model, pageConfig(), progress);
    QCOMPARE(plans->normal.makespan_ms, direct.normal.makespan_ms);
    QCOMPARE(plans->fast.makespan_ms, direct.fast.makespan_ms);
    QCOMPARE(plans->quality_loss_percent, direct.quality_loss_percent);
}

void TestPlannerController::comparesModes()
{
    QSignalSpy ready(m_controller, &PlannerController::comparisonReady);
    QString error;
    QVERIFY(!m_controller->exportCompareCsv(m_dir.filePath(QStringLiteral("early.csv")), &error));
    QVERIFY(error.contains(QStringLiteral("Compare modes")));

    m_controller->compareModes();
    QVERIFY(ready.wait(kWaitMs));
    const auto rows = ready.first().at(0).value<std::vector<PlanCompareRow>>();
    QCOMPARE(rows.size(), std::size_t(3));
    QCOMPARE(m_controller->compareRows().size(), std::size_t(3));
    const int batches[] = { 16, 32, 64 };
    for (std::size_t i = 0; i < rows.size(); ++i) {
        QCOMPARE(rows[i].global_batch, batches[i]);
        QVERIFY(rows[i].comparable);
        QVERIFY(rows[i].fast_simulations < rows[i].normal_simulations);
    }

    const QString csv = m_dir.filePath(QStringLiteral("compare.csv"));
    QVERIFY2(m_controller->exportCompareCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll().toStdString(), planCompareCsv(m_controller->compareRows()));
}

void TestPlannerController::badInputsFail_data()
{
    QTest::addColumn<Broken>("broken");
    QTest::addColumn<bool>("atOnce"); // reported before any job starts
    QTest::addColumn<QStringList>("named");
    QTest::newRow("missing-cost-model") << Broken::MissingCostModel << true
                                        << QStringList { QStringLiteral("/nonexistent/model.json") };
    QTest::newRow("malformed-cost-model")
        << Broken::MalformedCostModel << false
        << QStringList { QStringLiteral("broken.json"), QStringLiteral("/cost_models/tp1_none") };
    QTest::newRow("no-search-cost-model")
        << Broken::NoSearchCostModel << true << QStringList { QStringLiteral("run a search") };
    QTest::newRow("no-lengths-file") << Broken::NoLengthsFile << true << QStringList { QStringLiteral("lengths file") };
    QTest::newRow("missing-lengths-file")
        << Broken::MissingLengthsFile << false << QStringList { QStringLiteral("/nonexistent/lengths.txt") };
    QTest::newRow("no-compare-batches") << Broken::NoCompareBatches << true
                                        << QStringList { QStringLiteral("compare batches") };
    QTest::newRow("batch-larger-than-pool")
        << Broken::BatchLargerThanPool << false << QStringList { QStringLiteral("global batch 65") };
}

void TestPlannerController::badInputsFail()
{
    QFETCH(Broken, broken);
    QFETCH(bool, atOnce);
    QFETCH(QStringList, named);

    bool compare = false;
    switch (broken) {
    case Broken::MissingCostModel:
        m_controller->setCostModelFile(QStringLiteral("/nonexistent/model.json"));
        break;
    case Broken::MalformedCostModel: {
        const QString path = m_dir.filePath(QStringLiteral("broken.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"model": "x", "cost_models": {"tp1_none": {"timing_ms": 3}}})");
        file.close();
        m_controller->setCostModelFile(path);
        break;
    }
    case Broken::NoSearchCostModel:
        m_controller->useSearchCostModel();
        break;
    case Broken::NoLengthsFile:
        m_controller->setLengthsFile(QString());
        break;
    case Broken::MissingLengthsFile:
        m_controller->setLengthsFile(QStringLiteral("/nonexistent/lengths.txt"));
        break;
    case Broken::NoCompareBatches:
        m_controller->setCompareBatches({});
        compare = true;
        break;
    case Broken::BatchLargerThanPool:
        m_controller->setCompareBatches({ 16, 65 });
        compare = true;
        break;
    }

    QSignalSpy failed(m_controller, &PlannerController::failed);
    QSignalSpy plans(m_controller, &PlannerController::plansReady);
    QSignalSpy rows(m_controller, &PlannerController::comparisonReady);
    if (compare)
        m_controller->compareModes();
    else
        m_controller->planBatch();
    if (atOnce) {
        QCOMPARE(failed.count(), 1);
        QVERIFY(!m_controller->planRunner()->isRunning() && !m_controller->compareRunner()->isRunning());
    } else {
        QVERIFY(failed.wait(kWaitMs));
    }
    const QString message = failed.first().at(0).toString();
    for (const QString& part : named)
        QVERIFY2(message.contains(part), qPrintable(message));
    QCOMPARE(plans.count(), 0);
    QCOMPARE(rows.count(), 0);
    QVERIFY(!m_controller->plans());
}

void TestPlannerController::plansWithTheSearchCostModel()
{
    QSignalSpy offered(m_controller, &PlannerController::searchCostModelOffered);
    auto model = std::make_shared<const DynapipeCostModel>(
        DynapipeCostModel::load(test::fixture(QStringLiteral("dynapipe/gpt_6.7b_cost_model.json")).toStdString()));
    m_controller->setSearchCostModel(model, QStringLiteral("gpt 6.7b"));
    QCOMPARE(offered.count(), 1);
    QCOMPARE(offered.first().at(0).toString(), QStringLiteral("gpt 6.7b"));
    // Offered is not chosen: the file stays the cost model until the search's is chosen.
    QVERIFY(!m_controller->inputs().useSearchCostModel);

    PlannerConfig config = pageConfig();
    config.layers_per_stage = 8;
    config.device_memory_mb = 36000;
    m_controller->setConfig(config);
    m_controller->useSearchCostModel();
    QSignalSpy ready(m_controller, &PlannerController::plansReady);
    m_controller->planBatch();
    QVERIFY(ready.wait(kWaitMs));
    QCOMPARE(ready.first().at(1).toString(), QString::fromStdString(model->name()));
}

void TestPlannerController::selectsThePlanToDetail()
{
    QSignalSpy changed(m_controller, &PlannerController::selectedPlanChanged);
    QCOMPARE(m_controller->selectedPlan(), nullptr);
    m_controller->planBatch();
    QVERIFY(changed.wait(kWaitMs)); // a new pair changes the shown plan
    QCOMPARE(m_controller->selectedMode(), PlannerMode::Normal);
    QCOMPARE(m_controller->selectedPlan(), &m_controller->plans()->normal);
    m_controller->selectMode(PlannerMode::Fast);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(m_controller->selectedPlan(), &m_controller->plans()->fast);
    m_controller->selectMode(PlannerMode::Fast);
    QCOMPARE(changed.count(), 2); // no change, no signal
}

void TestPlannerController::opensPlansInTimeline()
{
    QSignalSpy requested(m_controller, &PlannerController::timelinesRequested);
    m_controller->openInTimeline();
    QCOMPARE(requested.count(), 0); // nothing planned yet

    m_controller->planBatch();
    m_controller->planRunner()->waitForIdle();
    QVERIFY(m_controller->plans());
    // Later edits of the inputs do not change the limit the plans were made for.
    PlannerConfig config = pageConfig();
    config.device_memory_mb = 1000;
    m_controller->setConfig(config);
    m_controller->openInTimeline();
    QCOMPARE(requested.count(), 1);
    const auto requests = requested.first().at(0).value<TimelineRequests>();
    QCOMPARE(requests.size(), 2);
    QVERIFY(requests[0].name.startsWith(QStringLiteral("planner normal: ")));
    QVERIFY(requests[1].name.startsWith(QStringLiteral("planner fast: ")));
    QCOMPARE(requests[0].memoryLimitMb, 40000.0);
    QCOMPARE(requests[0].timeline.get(), &m_controller->plans()->normal.groups.front().simulation.timeline);
    QCOMPARE(requests[1].timeline.get(), &m_controller->plans()->fast.groups.front().simulation.timeline);
}

void TestPlannerController::latestPlanRequestWins()
{
    QSignalSpy ready(m_controller, &PlannerController::plansReady);
    QSignalSpy cancelled(m_controller->planRunner(), &jobs::JobRunner::cancelled);
    m_controller->setSyntheticLengths(lengths(2048)); // long enough to be superseded
    m_controller->planBatch();
    m_controller->setSyntheticLengths(lengths(32));
    m_controller->planBatch();
    m_controller->planRunner()->waitForIdle();
    QCOMPARE(ready.count(), 1);
    int samples = 0;
    for (const PlannedMicroBatch& planned : m_controller->plans()->normal.groups.front().microbatches)
        samples += int(planned.microbatch.sample_ids.size());
    QCOMPARE(samples, 32);
}

QTEST_GUILESS_MAIN(TestPlannerController)
#include "tst_planner_controller.moc"
