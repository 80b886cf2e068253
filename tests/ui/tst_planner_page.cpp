// SPDX-License-Identifier: GPL-3.0-or-later
// The Planner page, offscreen: plan the bundled example in both modes, compare modes over
// growing batches (chart and table), cancel a run, open the plans in the Timeline page, and the
// real DynaPipe cost model from the fixtures.
#include <QAbstractItemModelTester>
#include <QChart>
#include <QChartView>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableView>
#include <QLabel>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QXYSeries>

#include "core/planner/planner_setting_table.h"
#include "ui/main_window.h"
#include "ui/planner/mode_compare_chart.h"
#include "ui/planner/plan_compare_model.h"
#include "ui/planner/planner_form.h"
#include "ui/planner/planner_page.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_widget.h"

#include "controllers/planner_controller.h"
#include "controllers/planner_inputs.h"
#include "gui_test_helpers.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using namespace stratex::controllers;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

class TestPlannerPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void plansBundledExampleInBothModes();
    void comparesModesWithChartAndTable();
    void comparesOverSeedsWithRangeBars();
    void cancelStopsPlanning();
    void opensPlansInTimeline();
    void plansWithFixtureCostModel();
    void badInputsAreReported();
    void badFilesShowAMessageBox_data();
    void badFilesShowAMessageBox();
    void formIsGeneratedFromTheSettingsTable();
    void plansEncoderDecoderOverDataParallelGroupsWithLinks();
    void qualityAndRecommendationVisibleAt1280x800();
    void recommendsAModePerBatch();
    void formIsNotClipped_data();
    void formIsNotClipped();

private:
    MainWindow* m_window = nullptr;
    PlannerPage* m_page = nullptr;
};

void TestPlannerPage::init()
{
    m_page = showOnPage<PlannerPage>(m_window, QStringLiteral("planner"));
    QVERIFY(m_page);
    // A small batch keeps the test quick: 96 samples, compare 16..96.
    m_page->form()->setSyntheticSpec(6.5, 0.8, 96, 1);
    m_page->form()->setGlobalBatches(QStringLiteral("16,32,64,96"));
}

void TestPlannerPage::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void TestPlannerPage::plansBundledExampleInBothModes()
{
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("planButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QVERIFY(m_page->hasPlans());
    const QString summary = m_page->planSummary();
    QVERIFY2(summary.contains(QStringLiteral("<b>normal</b>: makespan")), qPrintable(summary));
    QVERIFY(summary.contains(QStringLiteral("<b>fast</b>: makespan")));
    QVERIFY(summary.contains(QStringLiteral("planned")));
    QTableWidget* table = m_page->microbatchTable();
    QVERIFY(table->rowCount() > 4);
    // Every sample is in exactly one micro-batch.
    int samples = 0;
    for (int row = 0; row < table->rowCount(); ++row)
        samples += table->item(row, 2)->text().toInt();
    QCOMPARE(samples, 96);
    // Recompute per device: one letter per pipeline stage.
    QCOMPARE(table->item(0, 4)->text().size(), 4);
}

void TestPlannerPage::comparesModesWithChartAndTable()
{
    QAbstractItemModelTester tester(m_page->compareModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("compareButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 120000));
    PlanCompareModel* model = m_page->compareModel();
    QCOMPARE(model->rowCount(), 4);
    QCOMPARE(model->data(model->index(3, PlanCompareModel::BatchColumn)).toInt(), 96);
    for (int row = 0; row < 4; ++row) {
        QVERIFY(model->rows()[std::size_t(row)].normal_feasible);
        QVERIFY(model->rows()[std::size_t(row)].fast_feasible);
        QVERIFY(model->data(model->index(row, PlanCompareModel::NormalMakespanColumn), Qt::UserRole).toDouble() > 0);
    }
    // Two curves (normal, fast) with one point per batch in each chart.
    for (QChart* chart : { m_page->chart()->timeChart(), m_page->chart()->makespanChart() }) {
        int lines = 0;
        for (QAbstractSeries* series : chart->series()) {
            if (auto* xy = qobject_cast<QXYSeries*>(series); xy && series->type() == QAbstractSeries::SeriesTypeLine) {
                ++lines;
                QCOMPARE(xy->count(), 4);
            }
        }
        QCOMPARE(lines, 2);
    }
    const QImage chart = m_page->chart()->makespanView()->grab().toImage();
    QVERIFY(stratex::test::distinctColours(chart) > 6);
    QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-planner.png"))));

    QTemporaryDir dir;
    QString error;
    const QString csv = dir.filePath(QStringLiteral("compare.csv"));
    QVERIFY2(m_page->exportCompareCsv(csv, &error), qPrintable(error));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = file.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 5);
    QVERIFY(lines[0].startsWith("batch,microbatches,normal_time_ms,fast_time_ms,speedup"));
}

// "Compare seeds" > 1: plan-compare's spread reaches the chart as one min-max bar per mode and
// batch (a 6-point line: bottom cap, bar, top cap) around the first seed's point.
void TestPlannerPage::comparesOverSeedsWithRangeBars()
{
    m_page->form()->setGlobalBatches(QStringLiteral("16,32,64"));
    m_page->form()->setCompareSeeds(3);
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("compareButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 120000));
    const std::vector<planner::PlanCompareRow>& rows = m_page->compareModel()->rows();
    QCOMPARE(rows.size(), std::size_t(3));
    int expectedBars = 0;
    for (const planner::PlanCompareRow& row : rows) {
        QCOMPARE(row.normal_spread.seeds, 3);
        QCOMPARE(row.fast_spread.seeds, 3);
        QVERIFY(
            row.normal_spread.min_ms <= row.normal_makespan_ms && row.normal_makespan_ms <= row.normal_spread.max_ms);
        QVERIFY(row.fast_spread.min_ms <= row.fast_makespan_ms && row.fast_makespan_ms <= row.fast_spread.max_ms);
        expectedBars += (row.normal_spread.feasible > 0) + (row.fast_spread.feasible > 0);
    }
    QChart* chart = m_page->chart()->makespanChart();
    QVERIFY(chart->title().contains(QStringLiteral("3 seeds")));
    int curves = 0;
    int bars = 0;
    for (QAbstractSeries* series : chart->series()) {
        auto* xy = qobject_cast<QXYSeries*>(series);
        if (!xy || series->type() != QAbstractSeries::SeriesTypeLine)
            continue;
        if (xy->count() == 3) {
            ++curves;
            continue;
        }
        QCOMPARE(xy->count(), 6);
        ++bars;
        // Bottom at a seed's minimum, top at its maximum: never upside down.
        QVERIFY(xy->at(2).y() <= xy->at(3).y());
    }
    QCOMPARE(curves, 2);
    QCOMPARE(bars, expectedBars);
    // Only the makespan chart gets bars.
    int timeLines = 0;
    for (QAbstractSeries* series : m_page->chart()->timeChart()->series())
        timeLines += series->type() == QAbstractSeries::SeriesTypeLine;
    QCOMPARE(timeLines, 2);
    const QImage image = m_page->chart()->makespanView()->grab().toImage();
    QVERIFY(stratex::test::distinctColours(image) > 6);
    QVERIFY(image.save(QDir::temp().filePath(QStringLiteral("stratex-tst-planner-seeds.png"))));
}

void TestPlannerPage::cancelStopsPlanning()
{
    // A large batch planned in normal mode takes long enough to cancel it midway.
    m_page->form()->setSyntheticSpec(6.5, 1.0, 2048, 3);
    QSignalSpy cancelled(m_page->jobRunners().first(), &jobs::JobRunner::cancelled);
    m_page->planBatch();
    QTRY_VERIFY_WITH_TIMEOUT(m_window->isBusy(), 5000);
    // Cancelled as soon as it runs: the planning takes a few hundred ms, and a 50 ms pause before
    // the cancel let it finish first now and then (the job then succeeds and no `cancelled` comes).
    m_window->cancelJobs();
    QVERIFY(cancelled.count() > 0 || cancelled.wait(10000));
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(!m_page->hasPlans());
}

void TestPlannerPage::opensPlansInTimeline()
{
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("openTimelineButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window));
    auto* timeline = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(timeline);
    const TimelineDocument* document = timeline->timeline()->document();
    QVERIFY(document);
    QCOMPARE(int(document->plans.size()), 2);
    QVERIFY(document->plans[0].name.startsWith(QStringLiteral("planner normal")));
    QVERIFY(document->plans[1].name.startsWith(QStringLiteral("planner fast")));
    QCOMPARE(document->plans[0].memoryLimitMb, 40000.0);
    QVERIFY(document->plans[0].timeline.makespan_us > 0);
    // The memory curves stay under the limit the plans were made for.
    for (const TimelinePlanView& plan : document->plans) {
        for (const auto& device : plan.timeline.devices)
            QVERIFY(device.peak_memory_mb <= 40000.0 + 1e-6);
    }
}

void TestPlannerPage::plansWithFixtureCostModel()
{
    // DynaPipe's real GPT-6.7B cost model, at the setup of dp_ground_truth.json.
    m_page->form()->setCostModelPath(stratex::test::fixture(QStringLiteral("dynapipe/gpt_6.7b_cost_model.json")));
    m_page->form()->setPipeline(4, 8, 36000);
    m_page->form()->setSyntheticSpec(6.0, 0.9, 64, 0);
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QVERIFY2(m_page->planSummary().contains(QStringLiteral("GPT 6.7B")), qPrintable(m_page->planSummary()));
    QVERIFY(m_page->hasPlans());
}

void TestPlannerPage::badInputsAreReported()
{
    m_page->form()->setCostModelPath(QStringLiteral("/nonexistent/model.json"));
    m_page->planBatch();
    QVERIFY(m_page->planSummary().contains(QStringLiteral("/nonexistent/model.json")));
    QVERIFY(!m_window->isBusy());

    QTemporaryDir dir;
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile file(broken);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"model": "x", "cost_models": {"tp1_none": {"timing_ms": 3}}})");
    file.close();
    m_page->form()->setCostModelPath(broken);
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window));
    // The error names the file and the key path.
    QVERIFY2(m_page->planSummary().contains(QStringLiteral("broken.json")), qPrintable(m_page->planSummary()));
    QVERIFY(m_page->planSummary().contains(QStringLiteral("/cost_models/tp1_none")));
}

void TestPlannerPage::badFilesShowAMessageBox_data()
{
    // Issue 12: a bad cost model or lengths file is a message box naming the file, never a crash
    // and never only a line in the summary.
    QTest::addColumn<bool>("costModel"); // else the lengths file is the bad one
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected"); // besides the file name
    QTest::newRow("cost model: not JSON") << true << QByteArray("{ not json") << QString();
    QTest::newRow("cost model: wrong type")
        << true << QByteArray("{\"model\": \"x\", \"cost_models\": {\"tp1_none\": 3}}")
        << QStringLiteral("/cost_models/tp1_none");
    QTest::newRow("cost model: empty") << true << QByteArray() << QString();
    QTest::newRow("lengths: a word") << false << QByteArray("128\nlong\n") << QString();
    QTest::newRow("lengths: negative") << false << QByteArray("[12, -3]") << QString();
    QTest::newRow("lengths: empty") << false << QByteArray() << QString();
}

void TestPlannerPage::badFilesShowAMessageBox()
{
    QFETCH(bool, costModel);
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(costModel ? QStringLiteral("bad-model.json") : QStringLiteral("bad-lengths.txt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(content);
    file.close();
    if (costModel)
        m_page->form()->setCostModelPath(path);
    else
        m_page->form()->setLengthsFile(path);
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window));
    auto* box = m_page->findChild<QMessageBox*>(QStringLiteral("plannerFailedBox"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY2(box->text().contains(QFileInfo(path).fileName()), qPrintable(box->text()));
    if (!expected.isEmpty())
        QVERIFY2(box->text().contains(expected), qPrintable(box->text()));
    QVERIFY2(m_page->planSummary().contains(QStringLiteral("failed")), qPrintable(m_page->planSummary()));
    // OK closes it; the page plans again afterwards.
    box->button(QMessageBox::Ok)->click();
    QTRY_VERIFY(!m_page->findChild<QMessageBox*>(QStringLiteral("plannerFailedBox")));
    m_page->form()->setCostModelPath(stratex::controllers::bundledCostModelPath());
    m_page->form()->setSyntheticSpec(6.5, 0.8, 32, 1);
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QVERIFY(m_page->hasPlans());
}

void TestPlannerPage::plansEncoderDecoderOverDataParallelGroupsWithLinks()
{
    // Issue 13: T5 (encoder-decoder) and data-parallel groups end to end on the page, with the
    // Network fields of the form: both modes plan, the table lists every group's micro-batches
    // with both lengths, the summary says transfers were modelled.
    PlannerForm* form = m_page->form();
    form->setCostModelPath(stratex::test::fixture(QStringLiteral("dynapipe/t5_11b_cost_model_tp1_none.json")));
    form->setPipeline(4, 6, 80000);
    form->setSyntheticSpec(5.0, 0.6, 48, 5);
    auto* dp = qobject_cast<QSpinBox*>(form->field("dp"));
    QVERIFY(dp);
    dp->setFocus();
    dp->selectAll();
    QTest::keyClicks(dp, QStringLiteral("2"));
    QCOMPARE(dp->value(), 2);
    auto* gbps = qobject_cast<QDoubleSpinBox*>(form->field("intra-node-gbps"));
    QVERIFY(gbps);
    gbps->setValue(100);
    QCOMPARE(form->config().comm.intra_node_bw_gbps, 100.0);
    QCOMPARE(form->config().dp_size, 2);
    m_page->planBatch();
    QVERIFY(waitUntilIdle(*m_window, 120000));
    QVERIFY(m_page->hasPlans());
    QVERIFY2(
        m_page->planSummary().contains(QStringLiteral("2 data-parallel groups")), qPrintable(m_page->planSummary()));
    QVERIFY(m_page->planSummary().contains(QStringLiteral("transfers modelled (hidden 1024)")));
    const auto plans = m_page->controller()->plans();
    QVERIFY(plans->normal.feasible && plans->fast.feasible);
    QVERIFY(plans->normal.makespan_ms <= plans->fast.makespan_ms);
    QTableWidget* table = m_page->microbatchTable();
    QCOMPARE(table->rowCount(), plans->normal.global_microbatches());
    QVERIFY(table->item(0, 0)->text().startsWith(QStringLiteral("0:")));
    QVERIFY(table->item(table->rowCount() - 1, 0)->text().startsWith(QStringLiteral("1:")));
    QVERIFY(table->item(0, 3)->text().contains(QLatin1Char('/')));
}

namespace {

// The column whose header reads `title`; -1 when there is none.
int columnTitled(const QAbstractItemModel* model, const QString& title)
{
    for (int column = 0; column < model->columnCount(); ++column) {
        if (model->headerData(column, Qt::Horizontal).toString() == title)
            return column;
    }
    return -1;
}

void keepScreenshot(QWidget* widget, const QString& name)
{
    if (const QString shots = qEnvironmentVariable("STRATEX_SCREENSHOT_DIR"); !shots.isEmpty())
        QVERIFY(widget->grab().save(QDir(shots).filePath(name)));
}

} // namespace

// Issue 24 finding 10: at 1280x800 the "Quality loss" column was off-screen. It and the mode
// recommended must lie inside the table's viewport without scrolling.
void TestPlannerPage::qualityAndRecommendationVisibleAt1280x800()
{
    m_window->resize(1280, 800);
    m_page->form()->setGlobalBatches(QStringLiteral("16,32"));
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("compareButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 120000));
    auto* table = m_page->findChild<QTableView*>(QStringLiteral("compareTable"));
    QVERIFY(table && table->isVisible());
    QCOMPARE(table->model()->rowCount(), 2);
    QCoreApplication::processEvents();
    const QRect viewport = table->viewport()->rect();
    for (const QString& title : { QStringLiteral("Quality loss (%)"), QStringLiteral("Recommended") }) {
        const int column = columnTitled(table->model(), title);
        QVERIFY2(column >= 0, qPrintable(title));
        const QRect cell = table->visualRect(table->model()->index(0, column));
        QVERIFY2(viewport.contains(cell), qPrintable(QStringLiteral("%1: cell %2,%3 %4x%5 outside the %6 px viewport")
                                                         .arg(title)
                                                         .arg(cell.x())
                                                         .arg(cell.y())
                                                         .arg(cell.width())
                                                         .arg(cell.height())
                                                         .arg(viewport.width())));
    }
    keepScreenshot(m_window, QStringLiteral("planner-compare-1280x800.png"));
}

// The page leads to a decision: a mode per batch from the measured trade-off, `auto` from the
// comparison, planning times as medians of repeats (finding 10).
void TestPlannerPage::recommendsAModePerBatch()
{
    m_page->form()->setGlobalBatches(QStringLiteral("16,32"));
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("compareButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 120000));
    const QAbstractItemModel* model = m_page->findChild<QTableView*>(QStringLiteral("compareTable"))->model();
    const int recommended = columnTitled(model, QStringLiteral("Recommended"));
    QVERIFY(recommended >= 0);
    for (int row = 0; row < model->rowCount(); ++row) {
        const QString mode = model->data(model->index(row, recommended)).toString();
        QVERIFY2(mode == QStringLiteral("normal") || mode == QStringLiteral("fast"), qPrintable(mode));
        QVERIFY(!model->data(model->index(row, recommended), Qt::ToolTipRole).toString().isEmpty());
    }
    auto* summary = m_page->findChild<QLabel*>(QStringLiteral("compareSummary"));
    QVERIFY(summary);
    QVERIFY2(summary->text().contains(QStringLiteral("Recommended mode per batch: 16 → ")), qPrintable(summary->text()));
    QVERIFY2(summary->text().contains(QStringLiteral("auto: fast above ")), qPrintable(summary->text()));
    // How many runs depends on how long the first took (planningTimeRepeats): not pinned here.
    QVERIFY2(summary->text().contains(QStringLiteral("planning times are the median of ")),
        qPrintable(summary->text()));
    // `auto` now plans with the threshold the comparison gave.
    const planner::AutoThreshold& threshold = m_page->controller()->autoThreshold();
    QVERIFY(threshold.measured);
    QCOMPARE(m_page->controller()->inputs().config.auto_fast_above_microbatches, threshold.fast_above_microbatches);

    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("planButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    const QString plan = m_page->planSummary();
    QVERIFY2(plan.contains(QStringLiteral("<b>Recommended: ")), qPrintable(plan));
    QVERIFY2(plan.contains(QStringLiteral("(planning times: median of ")), qPrintable(plan));
}

void TestPlannerPage::formIsNotClipped_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x800") << QSize(1280, 800);
    QTest::newRow("default 1400x900") << QSize(1400, 900);
}

// Finding 11: the Planner form was clipped at every size. Its scroll area must be as wide as the
// form wants (no horizontal scroll bar), and every field as wide as its own minimum.
void TestPlannerPage::formIsNotClipped()
{
    QFETCH(QSize, size);
    m_window->resize(size);
    QCoreApplication::processEvents();
    PlannerForm* form = m_page->form();
    auto* scroll = qobject_cast<QScrollArea*>(form->parentWidget()->parentWidget());
    QVERIFY(scroll);
    QVERIFY2(scroll->viewport()->width() >= form->minimumSizeHint().width(),
        qPrintable(QStringLiteral("viewport %1 px, form needs %2 px")
                       .arg(scroll->viewport()->width())
                       .arg(form->minimumSizeHint().width())));
    QVERIFY(!scroll->horizontalScrollBar()->isVisible());
    for (QWidget* field : form->findChildren<QWidget*>()) {
        if (!field->isVisibleTo(form) || field->minimumSizeHint().width() <= 0 || !field->inherits("QLabel"))
            continue;
        QVERIFY2(field->width() >= field->minimumSizeHint().width(),
            qPrintable(QStringLiteral("%1 \"%2\": %3 px of %4")
                           .arg(QString::fromUtf8(field->metaObject()->className()),
                               qobject_cast<QLabel*>(field)->text())
                           .arg(field->width())
                           .arg(field->minimumSizeHint().width())));
    }
    keepScreenshot(m_window, QStringLiteral("planner-%1x%2.png").arg(size.width()).arg(size.height()));
}

void TestPlannerPage::formIsGeneratedFromTheSettingsTable()
{
    PlannerForm* form = m_page->form();
    // One field per setting, named by its flag, with the CLI's help as its tooltip.
    for (const auto& row : planner::plannerSettingTable().rows()) {
        QWidget* field = form->field(row.spec.flag);
        QVERIFY2(field, row.spec.flag.data());
        QCOMPARE(field->objectName(), QString::fromUtf8(row.spec.flag.data(), qsizetype(row.spec.flag.size())));
        QVERIFY2(
            field->toolTip().contains(QStringLiteral("(--%1)").arg(field->objectName())), qPrintable(field->toolTip()));
    }
    // The page starts from its own pipeline, not the struct's defaults.
    planner::PlannerConfig config = form->config();
    QCOMPARE(config.num_stages, 4);
    QCOMPARE(config.layers_per_stage, 6);
    QCOMPARE(config.device_memory_mb, 40000.0);
    QCOMPARE(config.mode, planner::PlannerMode::Auto);
    // What the form shows is what it reads.
    config.tp = 2;
    config.dp_size = 2;
    config.chunks_per_device = 2;
    config.mode = planner::PlannerMode::Fast;
    config.seed = 9;
    form->setConfig(config);
    const planner::PlannerConfig read = form->config();
    QCOMPARE(planner::plannerSettingTable().toJson(read), planner::plannerSettingTable().toJson(config));
    QCOMPARE(form->fieldAs<QSpinBox>("stages")->value(), 4);
}

QTEST_MAIN(TestPlannerPage)
#include "tst_planner_page.moc"
