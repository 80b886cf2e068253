// SPDX-License-Identifier: GPL-3.0-or-later
// The front-end parity rows that need widgets (tests/controllers/tst_front_end_parity has the
// others): the same inputs through stratex-cli (a separate process) and through what the GUI shows.
// - a Hugging Face config.json: `profile synth --hf-config FILE` against the Synthesize dialog's
//   "From config.json…" and the Search page's button of the same name (core/model/hf_config.h):
//   the same model in the set each writes, the same notes, the same parameter count;
// - a plan's figures (core/common/plan_figures.h): bubble, pipeline makespan, iteration, planned
//   peak and peak incl. reserve, under the same labels with the same values in `evaluate`'s text
//   and on the Search page's stratex results (headline, its tooltip, the memory chart's title);
// - search settings: `search --tp-comm-overlap 1` against the Search form's "TP comm overlap" box,
//   clicked (the same plans, each with the overlap where its layout allows it), and
//   `search --features-year 2021` against its "Megatron-LM of year" box, typed into.
#include <QApplication>
#include <QChart>
#include <QCheckBox>
#include <QJsonArray>
#include <QJsonObject>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "core/common/number_format.h"
#include "core/common/plan_figures.h"
#include "core/model/model_json.h"
#include "core/profile/synth/synthesis_record.h"
#include "controllers/stratex_search_controller.h"
#include "ui/main_window.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_memory_chart.h"
#include "ui/search/stratex_plan_table_model.h"
#include "ui/search/stratex_results_panel.h"
#include "ui/search/synthesize_dialog.h"

#include "../cli/cli_runner.h"
#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;

namespace {

const QString kConfigs = QStringLiteral(STRATEX_TEST_DATA_DIR "/hf-configs/");

// The model a synthesized set's record carries, as JSON text; "<no record>" without one.
QString recordModel(const QString& dir)
{
    const auto record = profile::synth::readSynthesisRecord(dir.toStdString());
    return record ? QString::fromStdString(model::toJson(record->model).dump()) : QStringLiteral("<no record>");
}

// The CLI's "warning: FILE: NOTE" lines, as notes.
QStringList cliNotes(const QByteArray& err, const QString& file)
{
    QStringList notes;
    const QString prefix = QStringLiteral("warning: ") + file + QStringLiteral(": ");
    for (const QString& line : QString::fromUtf8(err).split(QLatin1Char('\n'))) {
        if (line.startsWith(prefix))
            notes << line.mid(prefix.size());
    }
    return notes;
}

// The number after `label` in `text` ("bubble 1.6 %" -> 1.6); NaN when the label is not followed by one.
double numberAfter(const QString& text, const QString& label)
{
    const QRegularExpression pattern(QRegularExpression::escape(label) + QStringLiteral("\\s+([0-9]+(?:\\.[0-9]+)?)"),
        QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = pattern.match(text);
    return match.hasMatch() ? match.captured(1).toDouble() : std::nan("");
}

QString lowerLabel(figures::Figure figure)
{
    return QString::fromUtf8(figures::label(figure).data()).toLower();
}

} // namespace

class TestFrontEndParityViews : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void sameModelFromConfig_data();
    void sameModelFromConfig();
    void samePlanFigures_data();
    void samePlanFigures();
    void sameSearchSetting_data();
    void sameSearchSetting();

private:
    QTemporaryDir m_dir;
    QString m_plan; // a stratex plan file
};

void TestFrontEndParityViews::initTestCase()
{
    // The dialog remembers its choice: in a settings file of this test only.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("stratex-test-front-end-parity-views"));
    QSettings().clear();
    QVERIFY(m_dir.isValid());
}

void TestFrontEndParityViews::cleanupTestCase()
{
    QSettings().clear();
}

void TestFrontEndParityViews::sameModelFromConfig_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("searchPage"); // through the Search page's button, else the dialog's
    // MLA, dense first layers, shared experts and a grouped router; a MoE with GQA; learned positions.
    QTest::newRow("DeepSeek-V3, dialog") << "deepseek-v3.json" << false;
    QTest::newRow("Qwen3-30B-A3B, dialog") << "qwen3-30b-a3b.json" << false;
    QTest::newRow("GPT-2, dialog") << "gpt2.json" << false;
    QTest::newRow("GPT-2, Search page") << "gpt2.json" << true;
}

void TestFrontEndParityViews::sameModelFromConfig()
{
    QFETCH(QString, file);
    QFETCH(bool, searchPage);
    const QString path = kConfigs + file;
    const QString tag = QString::fromUtf8(QTest::currentDataTag()).replace(QRegularExpression(QStringLiteral("\\W+")), QStringLiteral("-"));
    const QString cliSet = m_dir.filePath(tag + QStringLiteral("-cli"));
    const QString guiSet = m_dir.filePath(tag + QStringLiteral("-gui"));

    const test::CliResult cli = test::runCli({ QStringLiteral("profile"), QStringLiteral("synth"),
        QStringLiteral("--hf-config"), path, QStringLiteral("--out"), cliSet, QStringLiteral("--json") });
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const double cliParameters = cli.json().object().value(QStringLiteral("parameters")).toDouble();

    QString guiFacts;
    QString guiSummary;
    if (!searchPage) {
        SynthesizeDialog dialog;
        QString error;
        QVERIFY2(dialog.loadHfConfig(path, &error), qPrintable(error));
        dialog.folderEdit()->setText(guiSet);
        QVERIFY2(dialog.synthesize(&error), qPrintable(error));
        guiFacts = dialog.findChild<QLabel*>(QStringLiteral("synthModelFacts"))->text();
        for (const QLabel* label : dialog.findChildren<QLabel*>()) {
            if (label->text().contains(QStringLiteral("B parameters")))
                guiSummary = label->text();
        }
    } else {
        MainWindow* window = nullptr;
        auto* page = test::showOnPage<SearchPage>(window, QStringLiteral("search"));
        const std::unique_ptr<MainWindow> owner(window);
        QVERIFY(page);
        // The button's dialog is modal: filled in and accepted as a user would, from its event loop.
        bool seen = false;
        QTimer::singleShot(0, this, [&] {
            auto* dialog = qobject_cast<SynthesizeDialog*>(QApplication::activeModalWidget());
            if (!dialog)
                return;
            seen = true;
            guiFacts = dialog->findChild<QLabel*>(QStringLiteral("synthModelFacts"))->text();
            for (const QLabel* label : dialog->findChildren<QLabel*>()) {
                if (label->text().contains(QStringLiteral("B parameters")))
                    guiSummary = label->text();
            }
            dialog->folderEdit()->setText(guiSet);
            dialog->accept();
        });
        page->synthesizeFromConfig(path);
        QVERIFY(seen);
        // The page opens the set it wrote; its search is not what this row compares.
        QCOMPARE(page->form()->profilesDir(), guiSet);
        QVERIFY(test::waitUntilIdle(*window, 120000));
    }

    // The same model in both sets, every fact of it (MLA, router, experts, RoPE) included.
    QCOMPARE(recordModel(guiSet), recordModel(cliSet));
    // The same notes: the CLI's warnings are listed under the dialog's form.
    for (const QString& note : cliNotes(cli.err, path))
        QVERIFY2(guiFacts.contains(note), qPrintable(note + QStringLiteral(" | ") + guiFacts));
    // The same parameter count, as each prints it.
    QVERIFY2(guiSummary.contains(QString::fromStdString(fixed(cliParameters / 1e9, 2)) + QStringLiteral(" B parameters")),
        qPrintable(guiSummary + QStringLiteral(" | ") + QString::number(cliParameters)));
}

void TestFrontEndParityViews::samePlanFigures_data()
{
    QTest::addColumn<int>("figure"); // figures::Figure
    QTest::newRow("bubble") << int(figures::Figure::PipelineBubble);
    QTest::newRow("pipeline makespan") << int(figures::Figure::PipelineMakespan);
    QTest::newRow("iteration") << int(figures::Figure::IterationTime);
    QTest::newRow("planned peak") << int(figures::Figure::PlannedPeak);
    QTest::newRow("peak incl. reserve") << int(figures::Figure::PeakWithReserve);
}

// One plan file, its figures in `evaluate`'s text and on
// the Search page's stratex results after opening the same file. Each view rounds to its own
// precision and unit: the values agree within the coarser view's rounding.
void TestFrontEndParityViews::samePlanFigures()
{
    QFETCH(int, figure);
    const auto which = figures::Figure(figure);
    if (m_plan.isEmpty()) {
        // A pipelined plan (a bubble to show): Llama 3 70B, tp 8 pp 4 dp 2 on 8 x 8 H100s.
        const QString plan = m_dir.filePath(QStringLiteral("plan.json"));
        QFile file(plan);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(R"({"format": "stratex-plan", "version": 1, "model": {"preset": "llama3-70b"},
 "cluster": {"num_nodes": 8, "gpus_per_node": 8, "gpu": {"preset": "h100-80gb"}},
 "strategy": {"tp": 8, "pp": 4, "dp": 2, "micro_batch_size": 1, "global_batch_size": 64}}
)");
        file.close();
        m_plan = plan;
    }
    const test::CliResult cli = test::runCli({ QStringLiteral("evaluate"), QStringLiteral("--strategy"), m_plan });
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const QString cliText = QString::fromUtf8(cli.out);

    controllers::StratexSearchController controller;
    StratexResultsPanel panel(&controller);
    panel.resize(1200, 800);
    QSignalSpy finished(&controller, &controllers::StratexSearchController::searchFinished);
    QString error;
    QVERIFY2(controller.openPlan(m_plan, {}, &error), qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    const QString headline = panel.bestText();
    const QString tooltip = panel.findChild<QLabel*>(QStringLiteral("stratexBestPlan"))->toolTip();
    const QString chartTitle = panel.findChild<StratexMemoryChart*>(QStringLiteral("stratexMemoryChart"))->chart()->title();

    // Each figure: the CLI's value and unit, and where the page shows it, in the CLI's unit.
    const QString label = lowerLabel(which);
    double cliValue = 0;
    double guiValue = 0;
    double tolerance = 0; // half the coarser view's last digit, in the CLI's unit
    QString where;
    switch (which) {
    case figures::Figure::PipelineBubble: // "(bubble 1.6 %)" / "bubble 1.6 %"
        cliValue = numberAfter(cliText, label);
        guiValue = numberAfter(headline, label);
        tolerance = 1e-9; // both print one decimal of the same number
        where = headline;
        break;
    case figures::Figure::PipelineMakespan: // "pipeline makespan 1234.5 ms" / tooltip "... 1234.56 ms"
        cliValue = numberAfter(cliText, label);
        guiValue = numberAfter(tooltip, label);
        tolerance = 0.05 + 0.005;
        where = tooltip;
        break;
    case figures::Figure::IterationTime: // "iteration 1.2346 s" / "An iteration, 1234.60 ms"
        cliValue = numberAfter(cliText, label) * 1e3;
        guiValue = numberAfter(tooltip, label + QLatin1Char(','));
        tolerance = 0.05 + 0.005;
        where = tooltip;
        break;
    case figures::Figure::PlannedPeak: // "(planned peak 30123 MB)" / the chart: "planned peak 28.1 GiB"
        cliValue = numberAfter(cliText, label);
        guiValue = numberAfter(chartTitle, label) * 1073.741824;
        tolerance = 0.05 * 1073.741824 + 0.5;
        where = chartTitle;
        break;
    case figures::Figure::PeakWithReserve: // "peak incl. reserve 35000 MB" / "peak incl. reserve 32.6 GiB"
        cliValue = numberAfter(cliText, label);
        guiValue = numberAfter(headline, label) * 1073.741824;
        tolerance = 0.05 * 1073.741824 + 0.5;
        where = headline;
        // The chart's title shows it too, with the same value.
        QVERIFY2(qAbs(numberAfter(chartTitle, label) * 1073.741824 - cliValue) <= tolerance, qPrintable(chartTitle));
        break;
    }
    QVERIFY2(!std::isnan(cliValue), qPrintable(label + QStringLiteral(" not in the CLI's text:\n") + cliText));
    QVERIFY2(!std::isnan(guiValue), qPrintable(label + QStringLiteral(" not on the page: ") + where));
    QVERIFY(cliValue > 0); // a pipelined plan: every figure has a value to compare
    QVERIFY2(qAbs(cliValue - guiValue) <= tolerance,
        qPrintable(QStringLiteral("%1: CLI %2, GUI %3\n%4\n%5").arg(label).arg(cliValue).arg(guiValue).arg(cliText, where)));
}

// A search setting a user sets, through both front ends. The bundled example (llama2-13b on 2 x 8
// A100-40GB) searched by `stratex-cli search --FLAG VALUE` and by the Search page with the same
// setting clicked or typed: the same plans with the same times. Rows: TP communication overlap
// (issue 22), on every plan with TP and sequence parallelism (megatron::tpCommOverlapProblem) and
// on no other; Megatron-LM of 2021 (docs/frameworks.md, "Megatron-LM's features by year"), no plan
// with sequence parallelism, selective recompute or the distributed optimizer.
void TestFrontEndParityViews::sameSearchSetting_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("value");
    QTest::newRow("TP comm overlap") << "tp-comm-overlap" << "1";
    QTest::newRow("Megatron-LM of 2021") << "features-year" << "2021";
}

void TestFrontEndParityViews::sameSearchSetting()
{
    QFETCH(QString, flag);
    QFETCH(QString, value);
    const QString example = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");
    const test::CliResult cli = test::runCli({ QStringLiteral("search"), QStringLiteral("--cost-model"),
        QStringLiteral("stratex"), QStringLiteral("--profiles"), example, QStringLiteral("--global-batch-size"),
        QStringLiteral("32"), QStringLiteral("--max-vpp"), QStringLiteral("2"), QStringLiteral("--max-micro-batch-size"),
        QStringLiteral("2"), QStringLiteral("--top"), QStringLiteral("4"), "--" + flag, value, QStringLiteral("--json") });
    QVERIFY2(cli.exitCode == 0, cli.err.constData());
    const QJsonArray top = cli.json().object().value(QStringLiteral("top")).toArray();

    MainWindow* window = nullptr;
    auto* page = test::showOnPage<SearchPage>(window, QStringLiteral("search"));
    const std::unique_ptr<MainWindow> owner(window);
    QVERIFY(page);
    SearchSettingsForm* form = page->form();
    form->setCostModel(megatron::CostModelChoice::Stratex);
    form->setProfilesDir(example);
    form->spinBox("global-batch-size")->setValue(32);
    form->spinBox("max-vpp")->setValue(2);
    form->spinBox("max-micro-batch-size")->setValue(2);
    form->findChild<QSpinBox*>(QStringLiteral("topK"))->setValue(4);
    if (auto* box = form->findChild<QCheckBox*>(flag)) {
        QVERIFY(box->isVisible());
        QVERIFY(!box->isChecked()); // off by default: results as before the setting
        QTest::mouseClick(box, Qt::LeftButton, {}, QPoint(8, box->height() / 2));
        QVERIFY(box->isChecked());
    } else {
        QSpinBox* spin = form->spinBox(flag.toUtf8().constData());
        QVERIFY2(spin && spin->isVisible(), qPrintable(flag));
        QCOMPARE(spin->value(), 0); // today's by default
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, value);
        QCOMPARE(spin->value(), value.toInt());
    }
    QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("runSearchButton")), Qt::LeftButton);
    QVERIFY(test::waitUntilIdle(*window, 240000));
    QVERIFY(page->showsStratexResults());
    const auto outcome = page->stratexController()->outcome();
    QVERIFY(outcome);
    QCOMPARE(qsizetype(outcome->result.best.size()), top.size());
    int shown = 0; // plans showing what the row sets
    for (qsizetype i = 0; i < top.size(); ++i) {
        const megatron::Estimate& e = outcome->result.best[std::size_t(i)];
        const QJsonObject plan = top.at(i).toObject();
        QCOMPARE(plan.value(QStringLiteral("notation")).toString(), QString::fromStdString(e.strategy.notation()));
        QCOMPARE(plan.value(QStringLiteral("iteration_ms")).toDouble(), e.iteration_ms);
        // The memory margin (megatron::memoryMargin): the CLI's note in the Evidence column's tooltip.
        const QString margin = plan.value(QStringLiteral("memory_margin")).toObject().value(QStringLiteral("note")).toString();
        QVERIFY(!margin.isEmpty());
        const QAbstractItemModel* table = page->stratexPanel()->planTable()->model();
        const QString tip = table->index(int(i), StratexPlanTableModel::EvidenceColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(margin), qPrintable(tip + "\n" + margin));
        // And how far the model's measured runs were (megatron::modelTimeEvidence), the CLI's note.
        const QString time = cli.json()
                                 .object()
                                 .value(QStringLiteral("model_time_evidence"))
                                 .toObject()
                                 .value(QStringLiteral("note"))
                                 .toString();
        QVERIFY2(!time.isEmpty() && tip.contains(time), qPrintable(tip + "\n" + time));
        if (flag == "tp-comm-overlap") {
            QCOMPARE(e.strategy.tp_comm_overlap, e.strategy.tp > 1 && e.strategy.sequence_parallel);
            shown += e.strategy.tp_comm_overlap ? 1 : 0;
        } else {
            QVERIFY(!e.strategy.sequence_parallel);
            QVERIFY(e.strategy.recompute != megatron::Recompute::Selective);
            QCOMPARE(e.strategy.zero, 0);
            shown += e.strategy.tp > 1 ? 1 : 0; // TP without sequence parallelism
        }
    }
    QVERIFY2(shown > 0, "no plan with TP: the row tests nothing");
}

QTEST_MAIN(TestFrontEndParityViews)
#include "tst_front_end_parity_views.moc"
