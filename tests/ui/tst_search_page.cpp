// SPDX-License-Identifier: GPL-3.0-or-later
// The Search page, offscreen, on Galvatron's llama2-7b fixtures: type the settings, run, get
// Galvatron's answer, browse top plans and the Pareto set, see a plan's layers, memory, timeline
// and ranks, export it, plan with its profile, cancel a long search. The form and the window:
// tst_search_page_form; opening folders and strategy files: tst_search_page_open.
#include <QAbstractItemModelTester>
#include <QChart>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "ui/common/settings_form.h"
#include "ui/main_window.h"
#include "ui/planner/planner_form.h"
#include "ui/planner/planner_page.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/ranks_page.h"
#include "ui/search/export_model_dialog.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/layer_strategy_strip.h"
#include "ui/search/plan_table_model.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stage_memory_chart.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_widget.h"

#include "gui_test_helpers.h"
#include "search_page_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using namespace stratex::controllers;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;
using stratex::test::typeInto;
using stratex::test::baselineCase;

class TestSearchPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void reproducesGalvatronBaseline();
    void browsesPlansAndDetails();
    void exportsThePlan();
    void exportsWithTheModelAndGpuTypedIn();
    void showsThePlanTimeline();
    void cancelsALongSearch();
    void escapeCancelsTheSearch();
    void plannerPlansWithTheSearchProfile();
    void showsThePlanRankGrid();

private:
    void setUpBaseline() { test::setUpSearchBaseline(m_page); }
    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
};

void TestSearchPage::init()
{
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
}

void TestSearchPage::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void TestSearchPage::reproducesGalvatronBaseline()
{
    setUpBaseline();
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("runSearchButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    const QJsonObject expected = baselineCase(0).value(QStringLiteral("expected")).toObject();
    const galvatron::SearchResult* result = m_page->galvatronPanel()->result();
    QVERIFY(result && result->best);
    const galvatron::Plan& best = *result->best;
    QCOMPARE(best.gbsz, expected.value(QStringLiteral("gbsz")).toInt());
    QCOMPARE(best.chunks, expected.value(QStringLiteral("chunks")).toInt());
    QCOMPARE(best.pp, expected.value(QStringLiteral("pp")).toInt());
    QVERIFY(qAbs(best.time_cost_s / expected.value(QStringLiteral("time_cost_s")).toDouble() - 1) < 1e-9);
    QCOMPARE(best.memory_cost_mb_per_stage.front(),
        expected.value(QStringLiteral("memory_cost_mb_per_stage")).toArray().at(0).toInt());
    QVERIFY2(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Best plan")),
        qPrintable(m_page->galvatronPanel()->bestText()));
    QVERIFY(m_page->galvatronPanel()->bestText().contains(QStringLiteral("14.732"))); // 16 / 1.0860461243 samples/s
    QVERIFY(m_page->galvatronPanel()->statsText().contains(QStringLiteral("knapsacks")));
}

void TestSearchPage::browsesPlansAndDetails()
{
    setUpBaseline();
    m_page->form()->spinBox("settle-bsz")->setValue(-1);
    m_page->form()->spinBox("min-bsz")->setValue(8);
    m_page->form()->spinBox("max-bsz")->setValue(32);
    QAbstractItemModelTester tester(
        m_page->galvatronPanel()->planModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    PlanTableModel* model = m_page->galvatronPanel()->planModel();
    QVERIFY(model->rowCount() > 3);
    // Sorted by throughput, best first, and the first row is selected with its details.
    QTableView* table = m_page->galvatronPanel()->planTable();
    const double first = table->model()->index(0, PlanTableModel::ThroughputColumn).data(Qt::UserRole).toDouble();
    const double second = table->model()->index(1, PlanTableModel::ThroughputColumn).data(Qt::UserRole).toDouble();
    QVERIFY(first >= second);
    // Plans tied on throughput are listed in the search's rank order (tst_numeric_sort_proxy).
    for (int row = 1; row < table->model()->rowCount(); ++row) {
        const auto cell = [&](int r, int column) { return table->model()->index(r, column).data(Qt::UserRole); };
        if (cell(row, PlanTableModel::ThroughputColumn).toDouble()
            == cell(row - 1, PlanTableModel::ThroughputColumn).toDouble())
            QVERIFY(cell(row, PlanTableModel::RankColumn).toInt() > cell(row - 1, PlanTableModel::RankColumn).toInt());
    }
    QVERIFY(m_page->galvatronPanel()->layerStrip()->evaluation());
    QCOMPARE(int(m_page->galvatronPanel()->layerStrip()->evaluation()->layers.size()), 32);
    QVERIFY(!m_page->galvatronPanel()->memoryChart()->chart()->series().isEmpty());

    // Click the third row: its plan is costed and drawn.
    table->selectRow(2);
    QVERIFY(waitUntilIdle(*m_window));
    const galvatron::Plan* selected = m_page->galvatronPanel()->selectedPlan();
    QVERIFY(selected);
    QCOMPARE(selected->time_cost_s, table->model()->index(2, PlanTableModel::TimeColumn).data(Qt::UserRole).toDouble());
    // Sorting by memory puts the smallest first.
    table->sortByColumn(PlanTableModel::MemoryColumn, Qt::AscendingOrder);
    QVERIFY(table->model()->index(0, PlanTableModel::MemoryColumn).data(Qt::UserRole).toInt()
        <= table->model()->index(1, PlanTableModel::MemoryColumn).data(Qt::UserRole).toInt());

    // The Pareto set: throughput rises with memory.
    m_page->galvatronPanel()->planSetBox()->setCurrentIndex(1);
    QVERIFY(waitUntilIdle(*m_window));
    const auto& pareto = model->plans();
    QCOMPARE(pareto.size(), m_page->galvatronPanel()->result()->pareto.size());
    for (std::size_t i = 1; i < pareto.size(); ++i)
        QVERIFY(pareto[i].peakMemoryMb() > pareto[i - 1].peakMemoryMb());

    const QImage strip = m_page->galvatronPanel()->layerStrip()->grab().toImage();
    QVERIFY(stratex::test::distinctColours(strip) >= 3);
    QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-search.png"))));
}

void TestSearchPage::exportsThePlan()
{
    setUpBaseline();
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QTemporaryDir dir;
    QString error;
    const QString galvatron
        = dir.filePath(m_page->galvatronPanel()->defaultExportName(GalvatronResultsPanel::ExportKind::Galvatron));
    QVERIFY(galvatron.endsWith(QStringLiteral("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16_bsz16.json"))
        || galvatron.contains(QStringLiteral("galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16")));
    QVERIFY2(m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::Galvatron, galvatron, &error),
        qPrintable(error));
    QFile file(galvatron);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject written = QJsonDocument::fromJson(file.readAll()).object();
    // Galvatron's answer, key for key.
    const QJsonObject expected
        = baselineCase(0).value(QStringLiteral("expected")).toObject().value(QStringLiteral("strategy")).toObject();
    for (const QString& key : expected.keys())
        QVERIFY2(written.value(key) == expected.value(key), qPrintable(key));

    const QString paddle
        = dir.filePath(m_page->galvatronPanel()->defaultExportName(GalvatronResultsPanel::ExportKind::PaddleConfig));
    QVERIFY2(m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::PaddleConfig, paddle, &error),
        qPrintable(error));
    QVERIFY(QFileInfo(paddle).size() > 50);
    // Measured profiles do not say the model's architecture: the launch scripts name what they miss.
    for (const auto kind :
        { GalvatronResultsPanel::ExportKind::PaddleScript, GalvatronResultsPanel::ExportKind::Megatron }) {
        const QString path = dir.filePath(m_page->galvatronPanel()->defaultExportName(kind));
        QVERIFY(!m_page->galvatronPanel()->exportPlan(kind, path, &error));
        QVERIFY2(error.contains(QStringLiteral("needs the model's architecture")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("ffn_hidden_size (--ffn-hidden-size)")), qPrintable(error));
        QVERIFY(!QFileInfo::exists(path));
    }
    QVERIFY(!m_page->galvatronPanel()->exportPlan(
        GalvatronResultsPanel::ExportKind::PaddleConfig, dir.filePath(QStringLiteral("no/such/dir.json")), &error));
}

void TestSearchPage::exportsWithTheModelAndGpuTypedIn()
{
    // Measured profiles say neither the architecture nor the GPU: the user types them into the
    // export dialog, and the launch scripts and the strategy file carry them.
    setUpBaseline();
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QTemporaryDir dir;
    QString error;
    const QString megatron = dir.filePath(QStringLiteral("megatron_args.sh"));
    QVERIFY(!m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::Megatron, megatron, &error));
    QVERIFY2(error.contains(QStringLiteral("Model and GPU for Exports")), qPrintable(error));

    ExportModelDialog* dialog = m_page->galvatronPanel()->exportModelDialog();
    dialog->open();
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    dialog->modelBox()->setCurrentText(QStringLiteral("llama2-13b")); // another preset's architecture...
    typeInto(dialog->form()->fieldAs<QSpinBox>("ffn-hidden-size"), QStringLiteral("11008")); // ...changed
    typeInto(dialog->form()->fieldAs<QSpinBox>("num-kv-heads"), QStringLiteral("8"));
    dialog->gpuBox()->setCurrentText(QStringLiteral("a100-40gb"));
    QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QVERIFY(!dialog->isVisible());
    QVERIFY(dialog->confirmed());

    QVERIFY2(m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::Megatron, megatron, &error),
        qPrintable(error));
    QFile script(megatron);
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QByteArray text = script.readAll();
    // The typed architecture, the searched shape (not the 13B preset's).
    for (const char* line : { "    --ffn-hidden-size 11008\n", "    --num-query-groups 8\n", "    --num-layers 32\n",
             "    --hidden-size 4096\n", "    --seq-length 2048\n", "    --swiglu\n" })
        QVERIFY2(text.contains(line), line);
    // The strategy file carries the model and the GPU.
    const QString galvatron = dir.filePath(QStringLiteral("strategy.json"));
    QVERIFY2(m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::Galvatron, galvatron, &error),
        qPrintable(error));
    QFile strategy(galvatron);
    QVERIFY(strategy.open(QIODevice::ReadOnly));
    const QJsonObject written = QJsonDocument::fromJson(strategy.readAll()).object();
    QCOMPARE(written.value("model").toObject().value("ffn_hidden_size").toInt(), 11008);
    QCOMPARE(written.value("cluster").toObject().value("gpu").toObject().value("name").toString(),
        QStringLiteral("a100-40gb"));
    // A field that makes no transformer is an error, not a file.
    dialog->open();
    typeInto(dialog->form()->fieldAs<QSpinBox>("num-kv-heads"), QStringLiteral("7"));
    QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    QVERIFY(!m_page->galvatronPanel()->exportPlan(
        GalvatronResultsPanel::ExportKind::Megatron, dir.filePath(QStringLiteral("bad.sh")), &error));
    QVERIFY2(error.contains(QStringLiteral("num_kv_heads")), qPrintable(error));
}

void TestSearchPage::showsThePlanTimeline()
{
    // 24 GB, batch 32: a 4-stage pipeline with 16 micro-batches.
    setUpBaseline();
    m_page->form()->spinBox("memory-constraint")->setValue(24);
    m_page->form()->spinBox("settle-bsz")->setValue(32);
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QCOMPARE(m_page->galvatronPanel()->result()->best->pp, 4);
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("showTimelineButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window));
    auto* timeline = qobject_cast<TimelinePage*>(m_window->currentPage());
    QVERIFY(timeline);
    const TimelineDocument* document = timeline->timeline()->document();
    QVERIFY(document);
    QCOMPARE(document->plans.back().deviceCount(), 4);
    QVERIFY(document->plans.back().name.startsWith(QStringLiteral("search plan: pp 4, 16 micro-batches")));
}

void TestSearchPage::cancelsALongSearch()
{
    setUpBaseline();
    m_page->form()->spinBox("settle-bsz")->setValue(-1);
    m_page->form()->spinBox("min-bsz")->setValue(8);
    m_page->form()->spinBox("max-bsz")->setValue(2048);
    m_page->form()->findChild<QSpinBox*>(QStringLiteral("threads"))->setValue(1);
    m_page->runSearch();
    QTRY_VERIFY_WITH_TIMEOUT(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Best so far")), 20000);
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("cancelSearchButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 5000));
    QVERIFY(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Cancelled")));
    QVERIFY(!m_page->galvatronPanel()->result());
}

// The Cancel button's tooltip promises Esc: pressing it in the window cancels the running search.
void TestSearchPage::escapeCancelsTheSearch()
{
    setUpBaseline();
    m_page->form()->spinBox("settle-bsz")->setValue(-1);
    m_page->form()->spinBox("min-bsz")->setValue(8);
    m_page->form()->spinBox("max-bsz")->setValue(2048);
    m_page->form()->findChild<QSpinBox*>(QStringLiteral("threads"))->setValue(1);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowActive(m_window));
    m_page->runSearch();
    QTRY_VERIFY_WITH_TIMEOUT(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Best so far")), 20000);
    QTest::keyClick(m_page->galvatronPanel()->planTable(), Qt::Key_Escape);
    QVERIFY(waitUntilIdle(*m_window, 5000));
    QVERIFY2(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Cancelled")),
        qPrintable(m_page->galvatronPanel()->bestText()));
}

void TestSearchPage::plannerPlansWithTheSearchProfile()
{
    setUpBaseline();
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    auto* planner = qobject_cast<PlannerPage*>(m_window->page(QStringLiteral("planner")));
    QVERIFY(planner);
    auto* source = planner->form()->findChild<QComboBox*>(QStringLiteral("costModelSource"));
    QCOMPARE(source->count(), 3);
    QVERIFY(source->itemText(2).contains(QStringLiteral("llama2-7b at sequence length 2048")));
    source->setCurrentIndex(2);
    planner->form()->setPipeline(4, 8, 36000);
    planner->form()->setSyntheticSpec(6.5, 0.5, 32, 4);
    planner->planBatch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QVERIFY2(planner->planSummary().contains(QStringLiteral("Galvatron profile")), qPrintable(planner->planSummary()));
    QVERIFY(planner->hasPlans());
}

void TestSearchPage::showsThePlanRankGrid()
{
    setUpBaseline();
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 60000));
    auto* button = m_page->findChild<QPushButton*>(QStringLiteral("showRanksButton"));
    QVERIFY(button);
    // Walk down the table to the first pipelined plan, then ask for its grid.
    QAbstractItemModel* rows = m_page->galvatronPanel()->planTable()->model();
    for (int row = 0; row < rows->rowCount(); ++row) {
        m_page->galvatronPanel()->planTable()->setCurrentIndex(rows->index(row, 0));
        QVERIFY(waitUntilIdle(*m_window));
        if (m_page->galvatronPanel()->selectedPlan() && m_page->galvatronPanel()->selectedPlan()->pp > 1)
            break;
    }
    const galvatron::Plan* plan = m_page->galvatronPanel()->selectedPlan();
    QVERIFY(plan && plan->pp > 1);
    QVERIFY(button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(m_window->currentPage()->pageId(), QStringLiteral("ranks"));
    const ranks::ParallelConfig shown = qobject_cast<RanksPage*>(m_window->currentPage())->form()->config();
    QCOMPARE(shown.world, 8);
    QCOMPARE(shown.pp, plan->pp);
    QCOMPARE(shown.tp, plan->layers.front().tpsp());
}

QTEST_MAIN(TestSearchPage)
#include "tst_search_page.moc"
