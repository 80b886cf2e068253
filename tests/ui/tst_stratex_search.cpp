// SPDX-License-Identifier: GPL-3.0-or-later
// The Search page with the stratex cost model, offscreen: the cost-model choice and the rows it
// shows ("auto" as the CLI resolves it), a search of the bundled synthesized example, the plan
// table's columns and rows, the selected plan's stages and layers, memory per stage against the
// limit, its pipeline on the Timeline page (1F1B, interleaved, ZB-H1), and plan files saved and
// opened.
#include <cmath>
#include <set>

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QLineSeries>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include "core/common/atomic_file.h"
#include "core/model/model_presets.h"
#include "core/hardware/cluster_description.h"
#include "core/megatron/memory_ledger_explain.h"
#include "core/megatron/plan_file.h"
#include "core/megatron/plan_robustness.h"
#include "core/megatron/search_stats_text.h"
#include "ui/main_window.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_layer_strip.h"
#include "ui/search/stratex_memory_chart.h"
#include "ui/search/stratex_plan_table_model.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/timeline/timeline_page.h"
#include "ui/timeline/timeline_widget.h"

#include "controllers/stratex_search_controller.h"
#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {

const QString kExample = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");

void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Backspace);
    QTest::keyClicks(box, text);
}

// Llama 2 7B at 4096 tokens on one node of eight A100-80GB.
model::ModelDescription llama7b()
{
    model::ModelDescription model = model::modelPreset("llama2-7b");
    model.seq_length = 4096;
    return model;
}

hardware::ClusterDescription oneNode()
{
    return { hardware::gpuPreset("a100-80gb"), 1, 8 };
}

megatron::Estimate estimateOf(const megatron::ParallelStrategy& strategy)
{
    const hardware::ClusterDescription cluster = oneNode();
    return megatron::estimate(llama7b(), strategy, hardware::HardwareModel(cluster, hardware::efficiencyFor(cluster.gpu)));
}

// The number after `label` in `text` ("bubble 18.0 %" -> "18.0", as shown); empty when none follows.
QString numberAfter(const QString& text, const QString& label)
{
    const QRegularExpression pattern(QRegularExpression::escape(label) + QStringLiteral("\\s+([0-9]+(?:\\.[0-9]+)?)"));
    const QRegularExpressionMatch match = pattern.match(text);
    return match.hasMatch() ? match.captured(1) : QString();
}

// tp 2, pp 4, 16 micro-batches of one sequence.
megatron::ParallelStrategy pipelined(megatron::PipelineSchedule schedule, int vpp)
{
    megatron::ParallelStrategy s;
    s.tp = 2;
    s.pp = 4;
    s.dp = 1;
    s.vpp = vpp;
    s.sequence_parallel = true;
    s.global_batch_size = 16;
    s.micro_batch_size = 1;
    s.schedule = schedule;
    return s;
}

} // namespace

class TestStratexSearch : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void costModelChoosesTheRows_data();
    void costModelChoosesTheRows();
    void searchesTheSynthesizedExample();
    void timelineOfEachSchedule_data();
    void timelineOfEachSchedule();
    void opensAndSavesPlanFiles();
    void unevenStagesShowOneBubble_data();
    void unevenStagesShowOneBubble();

private:
    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
};

void TestStratexSearch::init()
{
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
}

void TestStratexSearch::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void TestStratexSearch::costModelChoosesTheRows_data()
{
    QTest::addColumn<QString>("choice");
    QTest::addColumn<QString>("folder"); // "example" (synthesized), "measured" or ""
    QTest::addColumn<QString>("modelName");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<bool>("stratex"); // the cost model the search runs with
    QTest::newRow("auto, synthesized set") << "auto"
                                           << "example"
                                           << ""
                                           << "" << true;
    QTest::newRow("auto, measured profiles") << "auto"
                                             << "measured"
                                             << ""
                                             << "" << false;
    QTest::newRow("auto, nothing") << "auto"
                                   << ""
                                   << ""
                                   << "" << false;
    QTest::newRow("auto, a model preset") << "auto"
                                          << ""
                                          << "llama2-7b"
                                          << "" << true;
    QTest::newRow("auto, a GPU") << "auto"
                                 << ""
                                 << ""
                                 << "a100-80gb" << true;
    QTest::newRow("auto, measured profiles of a preset") << "auto"
                                                         << "measured"
                                                         << "llama2-7b"
                                                         << "" << false;
    QTest::newRow("galvatron, synthesized set") << "galvatron"
                                                << "example"
                                                << ""
                                                << "" << false;
    QTest::newRow("stratex, measured profiles") << "stratex"
                                                << "measured"
                                                << ""
                                                << "" << true;
}

// The form shows the rows of the model the search will run with; the choice itself always shows.
void TestStratexSearch::costModelChoosesTheRows()
{
    QFETCH(QString, choice);
    QFETCH(QString, folder);
    QFETCH(QString, modelName);
    QFETCH(QString, gpu);
    QFETCH(bool, stratex);
    SearchSettingsForm* form = m_page->form();
    form->comboBox("cost-model")->setCurrentText(choice);
    form->setProfilesDir(folder == QStringLiteral("example") ? kExample
            : folder == QStringLiteral("measured")           ? stratex::test::fixture(QStringLiteral("galvatron"))
                                                             : QString());
    form->fieldAs<QLineEdit>("model-name")->setText(modelName);
    form->fieldAs<QLineEdit>("gpu")->setText(gpu);
    QCOMPARE(form->resolvedCostModel() == megatron::CostModelChoice::Stratex, stratex);
    QVERIFY(form->isFieldVisible("cost-model"));
    for (const char* flag : { "global-batch-size", "gpu", "max-vpp", "max-zero", "interleaved" })
        QVERIFY2(form->isFieldVisible(flag) == stratex, flag);
    for (const char* flag : { "max-tp-deg", "settle-bsz", "time-profile-mode", "allocator-reserve" })
        QVERIFY2(form->isFieldVisible(flag) == !stratex, flag);
    // Both models read the cluster, the memory and the sequence length.
    for (const char* flag : { "num-nodes", "num-gpus-per-node", "memory-constraint", "seq-length" })
        QVERIFY2(form->isFieldVisible(flag), flag);
}

// The bundled example (llama2-13b estimated on 2 x 8 A100-40GB) in auto mode: the stratex model
// searches it, and the table, the strip, the memory chart and the timeline show its plans.
void TestStratexSearch::searchesTheSynthesizedExample()
{
    SearchSettingsForm* form = m_page->form();
    form->setCostModel(megatron::CostModelChoice::Auto);
    form->setProfilesDir(kExample);
    typeInto(form->spinBox("global-batch-size"), QStringLiteral("32"));
    form->spinBox("max-vpp")->setValue(2); // a small space: the test is about the views
    form->spinBox("max-micro-batch-size")->setValue(2);
    form->findChild<QSpinBox*>(QStringLiteral("topK"))->setValue(8);
    StratexPlanTableModel* model = m_page->stratexPanel()->planModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("runSearchButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 240000));
    QVERIFY(m_page->showsStratexResults());
    StratexResultsPanel* panel = m_page->stratexPanel();
    QVERIFY2(panel->bestText().contains(QStringLiteral("Best plan")), qPrintable(panel->bestText()));
    QVERIFY2(panel->statsText().contains(QStringLiteral("llama2-13b on 2 × 8")), qPrintable(panel->statsText()));
    QVERIFY2(panel->statsText().contains(QStringLiteral("global batch 32")), qPrintable(panel->statsText()));
    // The counts in the command line's sentence (megatron::searchStatsText), from this search's own.
    const auto outcome = m_page->stratexController()->outcome();
    QVERIFY(outcome);
    const std::string counts = megatron::searchStatsText(outcome->result.stats,
        outcome->result.best.front().strategy.framework, outcome->search_time_s, outcome->threads);
    QVERIFY2(panel->statsText().contains(QString::fromStdString(counts)), qPrintable(panel->statsText()));

    // Columns with their units.
    QCOMPARE(model->columnCount(), 23);
    QStringList headers;
    for (int column = 0; column < model->columnCount(); ++column)
        headers << model->headerData(column, Qt::Horizontal).toString();
    for (const char* header : { "TP", "PP", "VPP", "CP", "EP", "ETP", "DP", "SP", "ZeRO", "Recompute", "Micro-batch",
             "Schedule", "Layout (first/last)", "Iteration (s)", "Tokens/s/GPU", "MFU (%)", "Peak incl. reserve (GiB)",
             "Bubble (%)", "Rank ±10 %", "Robust", "Evidence", "Twins" })
        QVERIFY2(headers.contains(QString::fromUtf8(header)), header);

    // Robustness, as stratex-cli search --json computes it: the same core function on the same plans.
    QCOMPARE(outcome->robustness.size(), outcome->result.best.size());
    NullProgress quiet;
    std::vector<double> rankFactors; // the search ranks an extrapolated plan by its raised time
    for (const megatron::PlanEvidence& evidence : outcome->result.evidence)
        rankFactors.push_back(megatron::rankingTimeMs(1.0, evidence.extrapolated));
    const std::vector<megatron::PlanRobustness> expected = megatron::rankingRobustness(outcome->model,
        hardware::HardwareModel(outcome->cluster, hardware::efficiencyFor(outcome->cluster.gpu)), outcome->result.best,
        outcome->memory_limit_mb, quiet, rankFactors);
    for (int row = 0; row < model->rowCount(); ++row) {
        const megatron::PlanRobustness& r = expected[std::size_t(row)];
        QCOMPARE(model->robustness(row)->band_10.worst, r.band_10.worst);
        QCOMPARE(model->robustness(row)->robust_5, r.robust_5);
        // Its own rank lies in its range; the text is "best–worst" or one rank.
        QVERIFY(r.band_10.best <= row + 1 && row + 1 <= r.band_10.worst);
        const QString range = model->index(row, StratexPlanTableModel::RankRangeColumn).data().toString();
        QCOMPARE(range,
            r.band_10.best == r.band_10.worst ? QString::number(r.band_10.best)
                                              : QStringLiteral("%1–%2").arg(r.band_10.best).arg(r.band_10.worst));
        QCOMPARE(model->index(row, StratexPlanTableModel::RobustColumn).data().toString().isEmpty(),
            !r.robust_5 && !r.robust_10);
        QVERIFY(model->index(row, StratexPlanTableModel::RankRangeColumn)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("off by 10 %")));
    }
    // Only the fastest plan can be robust.
    for (int row = 1; row < model->rowCount(); ++row)
        QVERIFY(!model->robustness(row)->robust_5);

    // Rows: the top plans, fastest first, every one on the 16 GPUs and within the 40 GB.
    QVERIFY(model->rowCount() >= 2 && model->rowCount() <= 8);
    for (int row = 0; row < model->rowCount(); ++row) {
        const megatron::Estimate* plan = model->plan(row);
        QCOMPARE(plan->strategy.world(), 16);
        QCOMPARE(plan->strategy.global_batch_size, 32);
        // 40 GB as GPUs count them (40 GiB); the device peak (issue 23) may pass 40,000 MB.
        QVERIFY(plan->peak_memory_mb <= plan->memory_limit_mb && plan->memory_limit_mb <= 40 * 1073.741824 + 1e-6);
        const megatron::PlanEvidence* evidence = model->evidence(row);
        QVERIFY(evidence);
        if (row > 0)
            QVERIFY(megatron::rankingTimeMs(model->plan(row - 1)->iteration_ms, model->evidence(row - 1)->extrapolated)
                <= megatron::rankingTimeMs(plan->iteration_ms, evidence->extrapolated));
        // Evidence: a marker, and the notes in the tooltip.
        const QModelIndex evidenceCell = model->index(row, StratexPlanTableModel::EvidenceColumn);
        QCOMPARE(evidenceCell.data().toString().contains(QStringLiteral("extrapolated")), evidence->extrapolated);
        for (const std::string& note : evidence->notes)
            QVERIFY(evidenceCell.data(Qt::ToolTipRole).toString().contains(QString::fromStdString(note)));
        // Twins: the "also" line of the core, every twin in the tooltip.
        const QModelIndex twinsCell = model->index(row, StratexPlanTableModel::TwinsColumn);
        const std::vector<megatron::ParallelStrategy>& twins = outcome->result.twins[std::size_t(row)];
        QCOMPARE(twinsCell.data().toString(), QString::fromStdString(megatron::twinsLine(plan->strategy, twins)));
        for (const megatron::ParallelStrategy& twin : twins)
            QVERIFY(twinsCell.data(Qt::ToolTipRole).toString().contains(QString::fromStdString(twin.notation())));
    }
    // Sorting by a column sorts its numbers.
    QTableView* table = panel->planTable();
    table->sortByColumn(StratexPlanTableModel::MemoryColumn, Qt::AscendingOrder);
    for (int row = 1; row < table->model()->rowCount(); ++row)
        QVERIFY(table->model()->index(row - 1, StratexPlanTableModel::MemoryColumn).data(Qt::UserRole).toDouble()
            <= table->model()->index(row, StratexPlanTableModel::MemoryColumn).data(Qt::UserRole).toDouble());

    // The selected plan's views.
    table->selectRow(0);
    const megatron::Estimate* selected = panel->selectedPlan();
    QVERIFY(selected);
    int layers = 0;
    for (const StratexLayerStrip::Chunk& chunk : panel->layerStrip()->chunks())
        layers += chunk.layers;
    QCOMPARE(layers, 40);
    QCOMPARE(int(panel->layerStrip()->chunks().size()), selected->strategy.pp * selected->strategy.vpp);
    const QList<QBarSet*> sets = panel->memoryChart()->barSets();
    QCOMPARE(sets.size(), 9); // six allocated parts + allocator cache, CUDA context, NCCL
    QCOMPARE(sets.front()->count(), selected->strategy.pp);
    QVERIFY(panel->memoryChart()->limitLine());
    QCOMPARE(panel->memoryChart()->limitLine()->at(0).y(), 40.0);
    // The worst rank's peak moment (issue 23 item 6): the core's parts, in its order, with their
    // hover values, summing to the plan's device peak; the moment in the title.
    const std::optional<megatron::PeakExplanation> peak = megatron::explainPeak(outcome->model, selected->strategy,
        hardware::HardwareModel(outcome->cluster, outcome->efficiency), *selected);
    QVERIFY(peak);
    const std::vector<megatron::PeakPart> parts = megatron::peakParts(*peak);
    const QList<QBarSet*> peakSets = panel->peakChart()->barSets();
    QCOMPARE(peakSets.size(), int(parts.size()));
    double peakSumGib = 0;
    for (int i = 0; i < peakSets.size(); ++i) {
        const double gib = parts[std::size_t(i)].mb / hardware::kMbPerGib;
        QCOMPARE(peakSets[i]->label(), QString::fromStdString(parts[std::size_t(i)].label));
        QVERIFY(std::abs(peakSets[i]->at(0) - gib) < 1e-9);
        QVERIFY2(panel->peakChart()->hoverText(i).contains(QLocale::c().toString(gib, 'f', 2)),
            qPrintable(panel->peakChart()->hoverText(i)));
        peakSumGib += peakSets[i]->at(0);
    }
    QVERIFY(std::abs(peakSumGib * hardware::kMbPerGib - selected->device_peak_mb) < 1e-6 * selected->device_peak_mb);
    QVERIFY(panel->peakChart()->chart()->title().contains(QString::fromStdString(megatron::peakMomentText(*peak))));
    QVERIFY(panel->peakChart()->hoverText(int(parts.size())).isEmpty());
    // One definition per number (docs/plan-figures.md §3): the table's memory column is the
    // chart's axis, and the selected row's value is the chart's highest bar.
    QValueAxis* memoryAxis = nullptr;
    for (QAbstractAxis* axis : panel->memoryChart()->chart()->axes(Qt::Vertical))
        memoryAxis = memoryAxis ? memoryAxis : qobject_cast<QValueAxis*>(axis);
    QVERIFY(memoryAxis);
    QCOMPARE(model->headerData(StratexPlanTableModel::MemoryColumn, Qt::Horizontal).toString(), memoryAxis->titleText());
    double highestBar = 0;
    for (int stage = 0; stage < sets.front()->count(); ++stage) {
        double stacked = 0;
        for (QBarSet* set : sets)
            stacked += set->at(stage);
        highestBar = std::max(highestBar, stacked);
    }
    QCOMPARE(table->model()->index(0, StratexPlanTableModel::MemoryColumn).data().toString(),
        QLocale::c().toString(highestBar, 'f', 1));
    QVERIFY(waitUntilIdle(*m_window)); // the chart lays its legend out on the next events
    QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-stratex-search.png"))));

    // Its pipeline on the Timeline page.
    auto* button = panel->findChild<QPushButton*>(QStringLiteral("showStratexTimelineButton"));
    QVERIFY(button && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    auto* timeline = qobject_cast<TimelinePage*>(m_window->page(QStringLiteral("timeline")));
    QVERIFY(timeline);
    QVERIFY2(timeline->firstPlanBox()->currentText().contains(QStringLiteral("stratex plan")),
        qPrintable(timeline->firstPlanBox()->currentText()));
    const controllers::TimelineDocument* document = timeline->timeline()->document();
    QVERIFY(document && !document->plans.empty());
    QCOMPARE(document->plans.front().deviceCount(), selected->strategy.pp);
    // The Timeline's bubble is the table's (docs/plan-figures.md §1), to the table's 0.1 %.
    QCOMPARE(QLocale::c().toString(document->plans.front().pipelineBubblePercent(), 'f', 1),
        table->model()->index(0, StratexPlanTableModel::BubbleColumn).data().toString());
    QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-stratex-timeline.png"))));
}

void TestStratexSearch::timelineOfEachSchedule_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("vpp");
    QTest::addColumn<int>("chunks"); // model chunks per device on the timeline
    QTest::addColumn<bool>("weightOps"); // ZB-H1 splits the backward
    QTest::newRow("1F1B") << int(megatron::PipelineSchedule::OneFOneB) << 1 << 1 << false;
    QTest::newRow("interleaved, 2 chunks") << int(megatron::PipelineSchedule::Interleaved) << 2 << 2 << false;
    QTest::newRow("interleaved, 4 chunks") << int(megatron::PipelineSchedule::Interleaved) << 4 << 4 << false;
    QTest::newRow("ZB-H1") << int(megatron::PipelineSchedule::ZbH1) << 1 << 1 << true;
}

// The timeline is the pipeline the estimate simulated: same makespan, one row per stage, each
// micro-batch once per model chunk, memory curves against the limit.
void TestStratexSearch::timelineOfEachSchedule()
{
    QFETCH(int, schedule);
    QFETCH(int, vpp);
    QFETCH(int, chunks);
    QFETCH(bool, weightOps);
    const megatron::Estimate plan = estimateOf(pipelined(megatron::PipelineSchedule(schedule), vpp));
    QVERIFY(plan.problems.empty());
    const controllers::TimelineRequest request = controllers::simulateStratexTimeline(llama7b(), oneNode(), plan);
    QVERIFY(request.timeline);
    const sim::Timeline& timeline = *request.timeline;
    QCOMPARE(int(timeline.devices.size()), 4);
    QVERIFY(qAbs(timeline.makespan_us / (plan.pipeline_ms * 1e3) - 1) < 1e-9);
    QCOMPARE(request.memoryLimitMb, plan.memory_limit_mb);
    for (const sim::DeviceTimeline& device : timeline.devices) {
        std::set<int> seen;
        int forwards = 0;
        bool weights = false;
        for (const sim::TimelineOp& op : device.compute) {
            seen.insert(op.chunk);
            forwards += op.kind == sim::OpKind::Forward;
            weights = weights || op.kind == sim::OpKind::Weight;
        }
        QCOMPARE(int(seen.size()), chunks);
        QCOMPARE(forwards, 16 * chunks);
        QCOMPARE(weights, weightOps);
        // The stage's weights, gradients and optimizer states from the start, activations on top.
        const megatron::StageMemory& m = plan.stages[std::size_t(device.device)].memory;
        QVERIFY(device.model_state_mb >= m.weights_mb + m.gradients_mb + m.optimizer_mb);
        QVERIFY(device.peak_memory_mb > device.model_state_mb);
    }

    // On the Timeline page.
    auto* page = qobject_cast<TimelinePage*>(m_window->page(QStringLiteral("timeline")));
    QVERIFY(page);
    page->showRequests({ request });
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(page->timeline()->document());
    QCOMPARE(page->timeline()->document()->plans.front().deviceCount(), 4);
    if (vpp == 2) {
        QVERIFY(m_window->setCurrentPage(QStringLiteral("timeline")));
        QVERIFY(waitUntilIdle(*m_window));
        QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-interleaved-timeline.png"))));
    }
}

// File > Open Strategy takes a stratex plan file and shows it costed; Save Plan… writes the
// selected plan back as one.
void TestStratexSearch::opensAndSavesPlanFiles()
{
    megatron::ParallelStrategy strategy = pipelined(megatron::PipelineSchedule::Interleaved, 2);
    strategy.first_stage_layers = 6;
    strategy.last_stage_layers = 6;
    strategy.zero = 1;
    const megatron::Estimate plan = estimateOf(strategy);
    QVERIFY(plan.problems.empty());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plan.json"));
    writeFileAtomically(path.toStdString(), megatron::planFileJson(llama7b(), oneNode(), plan).dump(2));
    QVERIFY(m_page->canOpen(path));
    m_page->form()->setCostModel(megatron::CostModelChoice::Galvatron); // the form on the other model
    QString error;
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QVERIFY(waitUntilIdle(*m_window, 60000));
    QCOMPARE(m_window->currentPage(), m_page);
    QVERIFY(m_page->showsStratexResults());
    // The form follows what was opened: the results are not called stale the moment they show.
    QCOMPARE(m_page->form()->resolvedCostModel(), megatron::CostModelChoice::Stratex);
    QVERIFY2(m_page->resultsNotice().isEmpty(), qPrintable(m_page->resultsNotice()));
    StratexResultsPanel* panel = m_page->stratexPanel();
    QCOMPARE(panel->planModel()->rowCount(), 1);
    const megatron::Estimate* shown = panel->selectedPlan();
    QVERIFY(shown);
    QCOMPARE(shown->strategy, strategy);
    QVERIFY(qAbs(shown->iteration_ms / plan.iteration_ms - 1) < 1e-9);
    QVERIFY2(panel->bestText().contains(QStringLiteral("The plan")), qPrintable(panel->bestText()));
    QVERIFY2(panel->statsText().contains(path), qPrintable(panel->statsText()));
    // The uneven layout: 6 layers on the first and last stage, 10 on the two between, two chunks each.
    const QModelIndex layout = panel->planTable()->model()->index(0, StratexPlanTableModel::LayoutColumn);
    QCOMPARE(layout.data().toString(), QStringLiteral("first 6 / last 6"));
    std::vector<int> perStage(4, 0);
    for (const StratexLayerStrip::Chunk& chunk : panel->layerStrip()->chunks())
        perStage[std::size_t(chunk.stage)] += chunk.layers;
    QCOMPARE(perStage, (std::vector<int> { 6, 10, 10, 6 }));
    QVERIFY(panel->layerStrip()->stageRect(0).width() < panel->layerStrip()->stageRect(1).width());
    // Interleaved: the model order repeats the stages' colours once per chunk.
    QCOMPARE(panel->layerStrip()->chunks().at(4).stage, 0);
    QCOMPARE(panel->layerStrip()->chunks().at(4).chunk, 1);
    QCOMPARE(panel->layerStrip()->chunks().at(4).first_layer, 16);
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-stratex-plan-file.png"))));

    const QString saved = dir.filePath(QStringLiteral("saved.json"));
    QVERIFY2(panel->savePlan(saved, &error), qPrintable(error));
    QVERIFY(megatron::isPlanFile(saved.toStdString()));
    const megatron::PlanFile reread = megatron::PlanFile::load(saved.toStdString());
    QVERIFY(reread.model.name == "llama2-7b");
    QCOMPARE(reread.cluster.worldSize(), 8);
    QCOMPARE(reread.strategy, strategy);
}

void TestStratexSearch::unevenStagesShowOneBubble_data()
{
    QTest::addColumn<int>("schedule");
    QTest::addColumn<int>("vpp");
    QTest::addColumn<int>("globalBatch"); // micro-batches of one sequence
    QTest::addColumn<int>("endLayers"); // on the first and on the last stage; 0: an even split
    // Lighter first and last stages (4 + 12 + 12 + 4 layers): the ends idle about twice as long.
    QTest::newRow("1F1B, layout 4/4") << int(megatron::PipelineSchedule::OneFOneB) << 1 << 16 << 4;
    // Interleaved with as few micro-batches as stages: the warm-up and cool-down dominate.
    QTest::newRow("interleaved, 4 micro-batches, layout 4/4")
        << int(megatron::PipelineSchedule::Interleaved) << 2 << 4 << 4;
    QTest::newRow("ZB-H1, layout 2/2") << int(megatron::PipelineSchedule::ZbH1) << 1 << 8 << 2;
}

// Issue 24 finding 6, "three bubble figures for one plan" (table 0.3 %, Timeline 1.6 %, device 0
// 2.8 %): one plan file opened through File > Open, its pipeline shown on the Timeline page, and
// the bubble read where a user reads it: the plan table's column, the results' headline, the
// Timeline's summary (docs/plan-figures.md §1: the busiest device's idle share), and each
// device's row. The stages are uneven, so the devices idle unevenly and another definition (the
// mean over devices, device 0's) would show another number; the test checks that first.
void TestStratexSearch::unevenStagesShowOneBubble()
{
    QFETCH(int, schedule);
    QFETCH(int, vpp);
    QFETCH(int, globalBatch);
    QFETCH(int, endLayers);
    megatron::ParallelStrategy strategy = pipelined(megatron::PipelineSchedule(schedule), vpp);
    strategy.global_batch_size = globalBatch;
    strategy.first_stage_layers = endLayers;
    strategy.last_stage_layers = endLayers;
    strategy.zero = 1;
    const megatron::Estimate plan = estimateOf(strategy);
    QVERIFY(plan.problems.empty());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("uneven.json"));
    writeFileAtomically(path.toStdString(), megatron::planFileJson(llama7b(), oneNode(), plan).dump(2));
    QString error;
    QVERIFY2(m_window->openFile(path, &error), qPrintable(error));
    QVERIFY(waitUntilIdle(*m_window, 60000));
    StratexResultsPanel* panel = m_page->stratexPanel();
    QCOMPARE(panel->planModel()->rowCount(), 1);
    panel->planTable()->selectRow(0);
    const QString tableBubble
        = panel->planTable()->model()->index(0, StratexPlanTableModel::BubbleColumn).data().toString();
    const QString label = QStringLiteral("bubble");
    const QString headlineBubble = numberAfter(panel->bestText(), label);

    auto* button = panel->findChild<QPushButton*>(QStringLiteral("showStratexTimelineButton"));
    QVERIFY(button && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 60000));
    auto* timeline = qobject_cast<TimelinePage*>(m_window->page(QStringLiteral("timeline")));
    QVERIFY(timeline);
    const controllers::TimelineDocument* document = timeline->timeline()->document();
    QVERIFY(document && document->plans.size() == 1);
    const controllers::TimelinePlanView& shown = document->plans.front();
    QCOMPARE(shown.deviceCount(), strategy.pp);
    const QString timelineBubble = numberAfter(timeline->summaryText(), label);

    // Each device's idle share, as its row on the Timeline says it ("device 0 · idle 28.1 %").
    const auto percent = [](double value) { return QLocale::c().toString(value, 'f', 1); };
    double least = 100;
    double mean = 0;
    int leastIdle = -1;
    QStringList rows;
    for (int d = 0; d < shown.deviceCount(); ++d) {
        const double idle = shown.utilization[std::size_t(d)].bubble_percent;
        rows << QStringLiteral("device %1 idle %2 %").arg(d).arg(percent(idle));
        mean += idle / shown.deviceCount();
        if (idle < least) {
            least = idle;
            leastIdle = d;
        }
    }
    const QString figures = QStringLiteral("table %1 %, headline %2 %, Timeline %3 %; %4; mean %5 %")
                                .arg(tableBubble, headlineBubble, timelineBubble, rows.join(QStringLiteral(", ")),
                                    percent(mean));
    // The input is what the finding needs: devices that idle unevenly, so that the mean over them
    // and device 0's idle are other numbers than the busiest device's, at the shown precision.
    QVERIFY2(percent(mean) != percent(least), qPrintable(figures));
    QVERIFY2(percent(shown.utilization.front().bubble_percent) != percent(least), qPrintable(figures));
    // The busiest device is a middle stage, the one with the most layers.
    QVERIFY2(leastIdle > 0 && leastIdle < strategy.pp - 1, qPrintable(figures));
    // One figure: the table, the headline and the Timeline show the busiest device's idle share.
    QVERIFY2(!tableBubble.isEmpty() && !headlineBubble.isEmpty() && !timelineBubble.isEmpty(), qPrintable(figures));
    QVERIFY2(headlineBubble == tableBubble, qPrintable(figures));
    QVERIFY2(timelineBubble == tableBubble, qPrintable(figures));
    QVERIFY2(percent(least) == tableBubble, qPrintable(figures));
    // Labelled the same everywhere: the table's header and the Timeline's summary name it "Bubble",
    // and the summary names the mean as what it is.
    QCOMPARE(panel->planTable()->model()->headerData(StratexPlanTableModel::BubbleColumn, Qt::Horizontal).toString(),
        QStringLiteral("Bubble (%)"));
    QVERIFY2(timeline->summaryText().contains(QStringLiteral("mean idle over devices ") + percent(mean)),
        qPrintable(timeline->summaryText()));
}

QTEST_MAIN(TestStratexSearch)
#include "tst_stratex_search.moc"
