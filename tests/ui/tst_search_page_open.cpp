// SPDX-License-Identifier: GPL-3.0-or-later
// What the Search page opens, offscreen: the bundled example with its views, a synthesized folder
// (and the Synthesize dialog), Stratex and Galvatron strategy files, and bad strategy files refused.
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include "core/common/atomic_file.h"
#include "core/export/galvatron_config.h"
#include "core/galvatron/plan_rank_layout.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_file.h"
#include "core/model/model_presets.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/runs/reference_run.h"
#include "ui/common/settings_form.h"
#include "ui/main_window.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/ranks_page.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_plan_table_model.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/search/synthesize_dialog.h"
#include "ui/timeline/timeline_page.h"

#include "controllers/stratex_search_controller.h"
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

namespace {

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

class TestSearchPageOpen : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void opensTheBundledExampleWithItsViews();
    void opensASynthesizedFolder();
    void synthesizesFromTheDialog();
    void opensAStrategyFile();
    void opensAGalvatronStrategyOnTheFormsProfiles();
    void refusesBadStrategyFiles_data();
    void refusesBadStrategyFiles();
    void saysHowFarTheModelsRunsWere_data();
    void saysHowFarTheModelsRunsWere();

private:
    void setUpBaseline() { test::setUpSearchBaseline(m_page); }
    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
};

void TestSearchPageOpen::init()
{
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
}

void TestSearchPageOpen::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

// A new user starts on the Search page with the bundled (estimated) profile set searched, the best
// plan's rank grid on the Ranks page and its pipeline on the Timeline page.
void TestSearchPageOpen::opensTheBundledExampleWithItsViews()
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

void TestSearchPageOpen::opensASynthesizedFolder()
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
void TestSearchPageOpen::synthesizesFromTheDialog()
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

void TestSearchPageOpen::opensAStrategyFile()
{
    // File > Open Strategy… is there; opening a Stratex strategy file (by the window's routing:
    // its keys say it is a strategy) costs it on the Search page with profiles estimated from the
    // model and cluster it carries.
    QVERIFY(m_window->findChild<QAction*>(QStringLiteral("openStrategyAction")));
    QTemporaryDir dir;
    const QString path = writeStratexStrategy(dir.filePath(QStringLiteral("strategy.json")));
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    m_page->form()->setCostModel(megatron::CostModelChoice::Stratex); // the form on the other model
    QString error;
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QCOMPARE(m_window->currentPage(), m_page);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    // The form follows what was opened: the results are not called stale the moment they show.
    QCOMPARE(m_page->form()->resolvedCostModel(), megatron::CostModelChoice::Galvatron);
    QVERIFY2(m_page->resultsNotice().isEmpty(), qPrintable(m_page->resultsNotice()));
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

void TestSearchPageOpen::opensAGalvatronStrategyOnTheFormsProfiles()
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

void TestSearchPageOpen::refusesBadStrategyFiles_data()
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
    QTest::newRow("a stratex plan with a value of the wrong type") << QByteArray(
        R"({"format": "stratex-plan", "version": 1, "model": {"preset": "llama2-7b"}, )"
        R"("cluster": {"gpu": "a100-80gb", "num_nodes": 1, "gpus_per_node": 8}, "strategy": {"tp": "two"}})")
                                                                   << false << "{file}: /strategy/tp";
}

void TestSearchPageOpen::refusesBadStrategyFiles()
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
    QVERIFY(!m_page->stratexController()->outcome());
}

// A plan file of a model whose measured runs were predicted more than 15 % off says so above the
// table (core/megatron/model_time_evidence.h); every plan's evidence tooltip says how far the
// model's runs were, within the bar or not.
void TestSearchPageOpen::saysHowFarTheModelsRunsWere_data()
{
    QTest::addColumn<QString>("record"); // the plan: this reference run's model, cluster and layout
    QTest::addColumn<bool>("warns");
    QTest::addColumn<QString>("tooltipHas");
    QTest::newRow("gpt-oss-120b on 64 B200")
        << "mbridge260401-gpt-oss-120b-64-b200" << true << "measured runs of this model (gpt-oss-120b)";
    QTest::newRow("llama3-70b on 64 H100") << "mbridge260401-llama3-70b-64" << false
                                           << "measured runs of this model (llama3-70b, llama2-70b, llama3.1-70b)";
}

void TestSearchPageOpen::saysHowFarTheModelsRunsWere()
{
    QFETCH(QString, record);
    QFETCH(bool, warns);
    QFETCH(QString, tooltipHas);
    const runs::ReferenceRun run = runs::readReferenceRun(
        std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs" / (record.toStdString() + ".json"));
    const megatron::Estimate plan = megatron::estimate(
        run.model, run.strategy, hardware::HardwareModel(run.cluster, hardware::efficiencyFor(run.cluster)));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plan.json"));
    writeFileAtomically(path.toStdString(), megatron::planFileJson(run.model, run.cluster, plan).dump(2));
    QString error;
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QVERIFY(waitUntilIdle(*m_window, 60000));
    StratexResultsPanel* panel = m_page->stratexPanel();
    QCOMPARE(panel->planModel()->rowCount(), 1);
    const QString best = panel->bestText();
    QCOMPARE(best.contains(QStringLiteral("this plan's time is likely optimistic too")), warns);
    const QModelIndex evidence = panel->planModel()->index(0, StratexPlanTableModel::EvidenceColumn);
    const QString tooltip = evidence.data(Qt::ToolTipRole).toString();
    QVERIFY2(tooltip.contains(tooltipHas), qPrintable(tooltip));
}

QTEST_MAIN(TestSearchPageOpen)
#include "tst_search_page_open.moc"
