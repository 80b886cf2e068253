// SPDX-License-Identifier: GPL-3.0-or-later
// The Search page, offscreen, on Galvatron's llama2-7b fixtures: type the settings, run, get
// Galvatron's answer, browse top plans and the Pareto set, see a plan's layers and memory, export
// it, show its timeline, cancel a long search, and read errors that name the file.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/common/atomic_file.h"
#include "core/export/galvatron_config.h"
#include "core/model/model_presets.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/galvatron/plan_rank_layout.h"
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
#include "ui/search/synthesize_dialog.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_widget.h"

#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using namespace stratex::controllers;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {
void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Backspace);
    QTest::keyClicks(box, text);
}

QJsonObject baselineCase(int index)
{
    QFile file(stratex::test::fixture(QStringLiteral("galvatron-baseline/expected_main.json")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(file.readAll())
        .object()
        .value(QStringLiteral("cases"))
        .toArray()
        .at(index)
        .toObject();
}
// A Stratex strategy file for Llama 2 7B on 1 x 8 A100-40GB: pp 2, tp 2, dp 2 (ZeRO-2), every
// other layer recomputed, 4 micro-batches of a global batch of 16.
QString writeStratexStrategy(const QString& path)
{
    model::ModelDescription model = model::modelPreset("llama2-7b");
    model.seq_length = 2048;
    const hardware::ClusterDescription cluster { hardware::gpuPreset("a100-40gb"), 1, 8 };
    galvatron::Plan plan;
    plan.pp = 2;
    plan.world = 8;
    plan.gbsz = 16;
    plan.chunks = 4;
    plan.pp_division = { 16, 16 };
    for (int i = 0; i < 32; ++i) {
        galvatron::LayerStrategy s;
        s.pp = 2;
        s.tp = 2;
        s.dp = 2;
        s.dp_type = galvatron::DpType::Zero2;
        s.checkpoint = i % 2 == 0;
        plan.layers.push_back(s);
    }
    plan.embedding = { 2, 2, 1, 1, 2, galvatron::DpType::Zero2 };
    galvatron::SearchSettings settings;
    settings.memory_constraint_gb = 40;
    settings.model.seq_length = 2048;
    writeFileAtomically(path.toStdString(), exporting::strategyFileText(plan, settings, model, cluster));
    return path;
}
} // namespace

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
    void remembersTheFormAndTheFolder();
    void shortcutsAreListed();
    void fitsALaptopScreen();
    void reportsErrors();
    void tooltipsExplainSettings();
    void plannerPlansWithTheSearchProfile();
    void opensTheBundledExampleWithItsViews();
    void showsThePlanRankGrid();
    void opensASynthesizedFolder();
    void synthesizesFromTheDialog();
    void opensAStrategyFile();
    void opensAGalvatronStrategyOnTheFormsProfiles();
    void refusesBadStrategyFiles_data();
    void refusesBadStrategyFiles();

private:
    void setUpBaseline();
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

// The first baseline: 1 x 8 GPUs, 36 GB, global batch 16, batch time mode.
void TestSearchPage::setUpBaseline()
{
    SearchSettingsForm* form = m_page->form();
    form->findChild<QLineEdit*>(QStringLiteral("profilesDir"))
        ->setText(stratex::test::fixture(QStringLiteral("galvatron")));
    // The fixture folder holds several models: name the one to search.
    QTest::keyClicks(form->findChild<QLineEdit*>(QStringLiteral("model-name")), QStringLiteral("llama2-7b"));
    typeInto(form->spinBox("memory-constraint"), QStringLiteral("36"));
    typeInto(form->spinBox("settle-bsz"), QStringLiteral("16"));
    form->comboBox("time-profile-mode")->setCurrentText(QStringLiteral("batch"));
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

// The next start searches the last folder with the last form, not the bundled example.
void TestSearchPage::remembersTheFormAndTheFolder()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    const QString folder = stratex::test::fixture(QStringLiteral("galvatron"));
    {
        MainWindow first(MainWindow::Options { true, false });
        auto* page = qobject_cast<SearchPage*>(first.page(QStringLiteral("search")));
        page->form()->setProfilesDir(folder);
        page->form()->fieldAs<QLineEdit>("model-name")->setText(QStringLiteral("llama2-7b"));
        page->form()->spinBox("memory-constraint")->setValue(36);
        page->form()->spinBox("settle-bsz")->setValue(16);
        page->form()->spinBox("max-tp-deg")->setValue(4);
        page->form()->comboBox("time-profile-mode")->setCurrentText(QStringLiteral("batch"));
        page->runSearch();
        QVERIFY(waitUntilIdle(first, 60000));
        QVERIFY(page->galvatronPanel()->result() && page->galvatronPanel()->result()->best);
        first.close();
    }
    MainWindow second(MainWindow::Options { true, true });
    auto* page = qobject_cast<SearchPage*>(second.page(QStringLiteral("search")));
    QCOMPARE(page->form()->profilesDir(), folder);
    QCOMPARE(page->form()->spinBox("max-tp-deg")->value(), 4);
    QCOMPARE(page->form()->spinBox("memory-constraint")->value(), 36);
    QCOMPARE(page->form()->comboBox("time-profile-mode")->currentText(), QStringLiteral("batch"));
    QVERIFY(!page->form()->given().contains("seq-length")); // still left to the profiles
    QVERIFY(waitUntilIdle(second, 60000));
    QVERIFY2(page->galvatronPanel()->result() && page->galvatronPanel()->result()->best,
        qPrintable(page->galvatronPanel()->bestText()));
    QCOMPARE(page->galvatronPanel()->result()->best->world, 8); // the fixture's 8 GPUs, not the example's 16
    QSettings().clear();
}

// 1366 px laptops and 1920 px at 150 % leave about 1280 px: every page must fit.
void TestSearchPage::fitsALaptopScreen()
{
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    for (Page* page : m_window->pages()) {
        QVERIFY(m_window->setCurrentPage(page->pageId()));
        QVERIFY2(m_window->minimumSizeHint().width() <= 1280,
            qPrintable(QStringLiteral("%1: %2 px").arg(page->pageId()).arg(m_window->minimumSizeHint().width())));
    }
    m_window->resize(1280, 760);
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(m_window->width(), 1280);
}

void TestSearchPage::shortcutsAreListed()
{
    const QList<QPair<QString, QString>> rows = m_window->shortcutOverview();
    const auto has = [&rows](const QString& keys, const QString& action) {
        for (const auto& row : rows) {
            if (row.first == keys && row.second.contains(action))
                return true;
        }
        return false;
    };
    QVERIFY(has(QKeySequence(Qt::Key_Escape).toString(QKeySequence::NativeText), QStringLiteral("Cancel")));
    QVERIFY(has(QKeySequence(Qt::CTRL | Qt::Key_2).toString(QKeySequence::NativeText), QStringLiteral("Search")));
    QVERIFY(has(QStringLiteral("W / S"), QStringLiteral("zoom")));
    // The platform appends the application's name; the window's own title must not repeat it.
    QVERIFY(!m_window->windowTitle().contains(QStringLiteral("Stratex")));
}

void TestSearchPage::reportsErrors()
{
    m_page->runSearch(); // no folder yet
    QVERIFY(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Choose the folder")));
    QTemporaryDir dir;
    m_page->form()->setProfilesDir(dir.path());
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY2(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Search failed")),
        qPrintable(m_page->galvatronPanel()->bestText()));
    QVERIFY(m_page->galvatronPanel()->bestText().contains(dir.path().toHtmlEscaped())
        || m_page->galvatronPanel()->bestText().contains(QStringLiteral("computation_profiling")));
    // And a message box says it, where it cannot be missed.
    auto* box = m_page->findChild<QMessageBox*>(QStringLiteral("searchFailedBox"));
    QVERIFY(box && box->isVisible());
    QVERIFY2(box->text().contains(dir.path()), qPrintable(box->text()));
    box->close();
}

void TestSearchPage::tooltipsExplainSettings()
{
    const QString tip = m_page->form()->spinBox("memory-constraint")->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("--memory-constraint")) && tip.contains(QStringLiteral("(default 38)")),
        qPrintable(tip));
    const QString reserve = m_page->form()->fieldAs<QDoubleSpinBox>("allocator-reserve")->toolTip();
    QVERIFY2(reserve.contains(QStringLiteral("20 %")), qPrintable(reserve));
    QVERIFY(m_page->form()->checkBox("disable-fsdp")->toolTip().contains(QStringLiteral("ZeRO-3")));
    QVERIFY(m_page->form()->comboBox("uneven-batch")->toolTip().contains(QStringLiteral("gbsz")));
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

// A new user starts on the Search page with the bundled (estimated) profile set searched, the best
// plan's rank grid on the Ranks page and its pipeline on the Timeline page.
void TestSearchPage::opensTheBundledExampleWithItsViews()
{
    MainWindow window(MainWindow::Options { false, true });
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(waitUntilIdle(window, 60000));
    auto* page = qobject_cast<SearchPage*>(window.currentPage());
    QVERIFY2(page, "the window does not open on the Search page");
    const galvatron::SearchResult* result = page->galvatronPanel()->result();
    QVERIFY2(result && result->best, qPrintable(page->galvatronPanel()->bestText()));
    QCOMPARE(result->best->world, 16);
    QCOMPARE(result->best->gbsz, 64);
    QVERIFY(result->best->pp > 1); // 13B in 40 GB does not fit one stage's worth of states
    QVERIFY2(page->galvatronPanel()->statsText().contains(QStringLiteral("Estimated profiles")),
        qPrintable(page->galvatronPanel()->statsText()));

    auto* ranks = qobject_cast<RanksPage*>(window.page(QStringLiteral("ranks")));
    QVERIFY(ranks);
    QCOMPARE(ranks->form()->config(), galvatron::planRankLayout(*result->best, 8));
    auto* timeline = qobject_cast<TimelinePage*>(window.page(QStringLiteral("timeline")));
    QVERIFY(timeline);
    QVERIFY2(timeline->firstPlanBox()->currentText().contains(QStringLiteral("search plan")),
        qPrintable(timeline->firstPlanBox()->currentText()));

    const QImage shot = window.grab().toImage();
    QVERIFY(stratex::test::distinctColours(shot) > 20);
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

void TestSearchPage::opensASynthesizedFolder()
{
    QTemporaryDir dir;
    using namespace stratex::profile::synth;
using namespace stratex::hardware;
    ClusterDescription cluster;
    cluster.gpu = gpuPreset("h100-80gb");
    model::ModelDescription model = model::modelPreset("llama3-8b");
    model.seq_length = 4096;
    QString error;
    // "auto" searches a synthesized set with the stratex cost model (tst_stratex_search): this
    // test is about Galvatron's search of it.
    m_page->form()->setCostModel(megatron::CostModelChoice::Galvatron);
    m_page->form()->spinBox("memory-constraint")->setValue(40); // an earlier search's card
    QVERIFY(!m_window->openFile(dir.path(), &error)); // empty yet
    QVERIFY2(error.contains(QStringLiteral("not a folder of Galvatron profiles")), qPrintable(error));
    writeProfileFiles(dir.path().toStdString(), synthesizeProfiles(model, cluster));
    QVERIFY2(m_window->openFile(dir.path(), &error), qPrintable(error));
    QCOMPARE(m_window->currentPage(), m_page);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    // The folder's record set the model: 32 layers of hidden 4096 at 4096 tokens, 128K vocabulary.
    QCOMPARE(m_page->form()->spinBox("vocab-size")->value(), 128256);
    QCOMPARE(m_page->form()->spinBox("seq-length")->value(), 4096);
    // The set is for 80 GB cards: the search plans for them, not for the 40 GB of before.
    QCOMPARE(m_page->form()->spinBox("memory-constraint")->value(), 80);
    QVERIFY(m_page->galvatronPanel()->result() && m_page->galvatronPanel()->result()->best);
    QCOMPARE(int(m_page->galvatronPanel()->result()->best->layers.size()), 32);
    QVERIFY(m_page->galvatronPanel()->statsText().contains(QStringLiteral("Estimated profiles")));
}

// Synthesize… asks for a model and a cluster, writes the set and searches it.
void TestSearchPage::synthesizesFromTheDialog()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("qwen"));
    m_page->form()->setCostModel(megatron::CostModelChoice::Galvatron); // "auto" would take the stratex model
    bool filledIn = false;
    QTimer::singleShot(0, this, [&] {
        auto* dialog = qobject_cast<SynthesizeDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        dialog->modelBox()->setCurrentText(QStringLiteral("qwen2.5-7b"));
        dialog->gpuBox()->setCurrentText(QStringLiteral("h100-80gb"));
        dialog->nodesBox()->setValue(2);
        typeInto(dialog->seqBox(), QStringLiteral("4096"));
        dialog->folderEdit()->setText(folder);
        filledIn = true;
        QTest::keyClick(dialog, Qt::Key_Return); // the default button: Synthesize and search
    });
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("synthesizeButton")), Qt::LeftButton);
    QVERIFY(filledIn);
    QVERIFY(QFileInfo::exists(folder + QStringLiteral("/computation_profiling_bf16_qwen2.5-7b_all.json")));
    QCOMPARE(m_page->form()->profilesDir(), folder);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QVERIFY(m_page->galvatronPanel()->result() && m_page->galvatronPanel()->result()->best);
    QCOMPARE(m_page->galvatronPanel()->result()->best->world, 16);
    QCOMPARE(int(m_page->galvatronPanel()->result()->best->layers.size()), 28); // Qwen2.5-7B has 28 layers
    QCOMPARE(m_page->form()->spinBox("seq-length")->value(), 4096);
    // The set is for 80 GB cards: the search plans for them, not for the 40 GB of before.
    QCOMPARE(m_page->form()->spinBox("memory-constraint")->value(), 80);
}

void TestSearchPage::opensAStrategyFile()
{
    // File > Open Strategy… is there; opening a Stratex strategy file (by the window's routing:
    // its keys say it is a strategy) costs it on the Search page with profiles estimated from the
    // model and cluster it carries.
    QVERIFY(m_window->findChild<QAction*>(QStringLiteral("openStrategyAction")));
    QTemporaryDir dir;
    const QString path = writeStratexStrategy(dir.filePath(QStringLiteral("strategy.json")));
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    QString error;
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QCOMPARE(m_window->currentPage(), m_page);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    const galvatron::Plan* plan = m_page->galvatronPanel()->selectedPlan();
    QVERIFY(plan);
    QCOMPARE(plan->pp, 2);
    QCOMPARE(plan->chunks, 4);
    QCOMPARE(plan->pp_division, (std::vector<int> { 16, 16 }));
    QVERIFY(plan->time_cost_s > 0);
    QCOMPARE(int(plan->memory_cost_mb_per_stage.size()), 2);
    QVERIFY2(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Best plan")),
        qPrintable(m_page->galvatronPanel()->bestText()));
    QVERIFY2(m_page->galvatronPanel()->statsText().contains(QStringLiteral("strategy.json, costed")),
        qPrintable(m_page->galvatronPanel()->statsText()));
    QVERIFY(m_page->galvatronPanel()->statsText().contains(QStringLiteral("Estimated profiles")));
    // The file's model and cluster travel on: the launch scripts export without asking.
    const auto outcome = m_page->controller()->outcome();
    QVERIFY(outcome && outcome->description.model);
    QCOMPARE(outcome->description.model->num_kv_heads, 32);
    QCOMPARE(outcome->settings.memory_constraint_gb, 40);
    const QString megatron = dir.filePath(QStringLiteral("megatron_args.sh"));
    QVERIFY2(m_page->galvatronPanel()->exportPlan(GalvatronResultsPanel::ExportKind::Megatron, megatron, &error),
        qPrintable(error));
    QFile script(megatron);
    QVERIFY(script.open(QIODevice::ReadOnly));
    const QByteArray text = script.readAll();
    QVERIFY(text.contains("--pipeline-model-parallel-size 2\n"));
    QVERIFY(text.contains("--recompute-method block\n"));
    QVERIFY(text.contains("#   as Megatron runs it: "));
}

void TestSearchPage::opensAGalvatronStrategyOnTheFormsProfiles()
{
    // Galvatron's own file names no model: it is costed on the form's profiles and settings, and
    // gives the plan Galvatron's search found (the first baseline's memory).
    setUpBaseline();
    QString error;
    QVERIFY2(m_window->openFile(stratex::test::fixture(QStringLiteral(
                                    "galvatron/galvatron_config_llama2-7b_1nodes_8gpus_per_node_36GB_bf16.json")),
                 &error),
        qPrintable(error));
    QVERIFY(waitUntilIdle(*m_window, 60000));
    const galvatron::Plan* plan = m_page->galvatronPanel()->selectedPlan();
    QVERIFY(plan);
    QCOMPARE(plan->memory_cost_mb_per_stage.front(),
        baselineCase(0)
            .value(QStringLiteral("expected"))
            .toObject()
            .value(QStringLiteral("memory_cost_mb_per_stage"))
            .toArray()
            .at(0)
            .toInt());
}

void TestSearchPage::refusesBadStrategyFiles_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("example"); // the bundled example's (synthesized llama2-13b) folder is chosen
    QTest::addColumn<QString>("message"); // "{file}": the file's path, "{profiles}": the chosen folder
    const QByteArray twoLayers = R"({"pp_deg": 1, "tp_sizes_enc": "1,1", "dp_types_enc": "0,0", "checkpoint": "0,0", )"
                                 R"("global_bsz": 8, "chunks": 1})";
    QTest::newRow("a value of the wrong type") << QByteArray(R"({"pp_deg": "two", "tp_sizes_enc": "1,1"})") << false
                                               << "{file}: /pp_deg: expected an integer, found string \"two\"";
    QTest::newRow("a missing key") << QByteArray(R"({"pp_deg": 1, "tp_sizes_enc": "1,1", "dp_types_enc": "0,0"})")
                                   << false << "{file}: /checkpoint";
    QTest::newRow("a bad model") << QByteArray(
        R"({"pp_deg": 1, "tp_sizes_enc": "1", "dp_types_enc": "0", )"
        R"("checkpoint": "0", "global_bsz": 8, "chunks": 1, "model": {"preset": "gpt9"}})")
                                 << false << "{file}: /model/preset: expected a model preset";
    QTest::newRow("nothing to cost it with") << twoLayers << false << "{file}: the file names no model and cluster";
    QTest::newRow("another model's profiles")
        << twoLayers << true << "{file}: a strategy for 2 layers, but the profiles in {profiles} are llama2-13b's 40";
    QTest::newRow("JSON that is neither a strategy nor simulation cases")
        << QByteArray(R"({"layertype_0": {}})") << false << "{file}: no page opens this kind of file";
}

void TestSearchPage::refusesBadStrategyFiles()
{
    // A bad file is refused at once, naming file and key (the command line exits 1 with the
    // message, File > Open Strategy… shows it in a message box), not after a background failure.
    QFETCH(QByteArray, content);
    QFETCH(bool, example);
    QFETCH(QString, message);
    if (example) {
        m_page->openExample();
        QVERIFY(waitUntilIdle(*m_window, 60000));
    }
    const galvatron::Plan* before = m_page->galvatronPanel()->selectedPlan();
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    writeFileAtomically(path.toStdString(), content.toStdString());
    QString error;
    QVERIFY(!m_window->openFile(path, &error));
    const QString expected = QString(message)
                                 .replace(QStringLiteral("{file}"), path)
                                 .replace(QStringLiteral("{profiles}"), m_page->form()->profilesDir());
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(m_page->galvatronPanel()->selectedPlan(), before); // nothing started
}

QTEST_MAIN(TestSearchPage)
#include "tst_search_page.moc"
