// SPDX-License-Identifier: GPL-3.0-or-later
// File > Export on the Search page (issue 24, finding 1): each target's action exports the selected
// plan of the engine shown. A Stratex plan goes through the plan file Save Plan writes, so the
// files are byte for byte `stratex-cli export --strategy SAVED --to ...` (run as a process); the
// PaddleNLP pair is one set in one folder, the config where the script reads it; with a Galvatron
// plan also selected, never the Galvatron plan; without a Stratex plan selected, nothing.
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "core/export/export_set.h"
#include "core/megatron/plan_file.h"
#include "ui/main_window.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"
#include "ui/search/stratex_results_panel.h"

#include "../cli/cli_runner.h"
#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {

const QString kExample = QStringLiteral(STRATEX_RESOURCES_DIR "/examples/llama2-13b-a100-40gb-2x8");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray("<missing: ") + path.toUtf8() + ">";
}

// Closes the export's message boxes (opened, not exec'd) and returns their texts.
QStringList closeExportBoxes(QWidget* page)
{
    QStringList texts;
    for (QMessageBox* box : page->findChildren<QMessageBox*>()) {
        if (box->objectName().startsWith(QStringLiteral("export")) && box->isVisible()) {
            texts << box->objectName() + QStringLiteral(": ") + box->text();
            box->close();
        }
    }
    return texts;
}

} // namespace

class TestSearchExport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void exportsTheStratexPlanAsTheCli_data();
    void exportsTheStratexPlanAsTheCli();
    void neverTheGalvatronPlan_data();
    void neverTheGalvatronPlan();

private:
    // Exports through the page's action into `path`; the chooser's caption in `caption`.
    void exportThroughAction(exporting::ExportFormat target, const QString& path, QString* caption,
        QList<QVariant>* status);

    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
    QTemporaryDir m_dir;
    QString m_savedPlan; // the selected Stratex plan, saved by the page's Save Plan
    QString m_identity;
};

void TestSearchExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
    SearchSettingsForm* form = m_page->form();
    form->setProfilesDir(kExample);

    // A Galvatron search first, its best plan selected: the plan the bug exported.
    form->setCostModel(megatron::CostModelChoice::Galvatron);
    form->spinBox("settle-bsz")->setValue(16);
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 120000));
    QVERIFY(!m_page->showsStratexResults());
    QVERIFY(m_page->galvatronPanel()->selectedPlan());
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(m_page->controller()->selectedEvaluation());
    for (exporting::ExportFormat target : exporting::exportTargets())
        QVERIFY(m_page->exportAction(target)->isEnabled());

    // Then a small stratex search of the same set: one pipeline chunk, no context or expert
    // parallelism, so that every target can express the plans.
    form->setCostModel(megatron::CostModelChoice::Stratex);
    form->spinBox("global-batch-size")->setValue(32);
    form->spinBox("max-vpp")->setValue(1);
    form->spinBox("max-cp")->setValue(1);
    form->spinBox("max-ep")->setValue(1);
    form->spinBox("max-micro-batch-size")->setValue(2);
    form->findChild<QSpinBox*>(QStringLiteral("topK"))->setValue(4);
    m_page->runSearch();
    QVERIFY(waitUntilIdle(*m_window, 240000));
    QVERIFY(m_page->showsStratexResults());
    const megatron::Estimate* plan = m_page->stratexPanel()->selectedPlan();
    QVERIFY(plan);
    m_identity = m_page->stratexController()->planIdentity(*plan);
    QVERIFY2(m_identity.startsWith(QStringLiteral("llama2-13b — tp")), qPrintable(m_identity));
    m_savedPlan = m_dir.filePath(QStringLiteral("saved-plan.json"));
    QString error;
    QVERIFY2(m_page->stratexPanel()->savePlan(m_savedPlan, &error), qPrintable(error));
}

void TestSearchExport::cleanupTestCase()
{
    delete m_window;
    m_window = nullptr;
}

void TestSearchExport::exportThroughAction(
    exporting::ExportFormat target, const QString& path, QString* caption, QList<QVariant>* status)
{
    m_page->setExportPathChooser([path, caption](const QString& title, const QString&, bool) {
        *caption = title;
        return path;
    });
    QSignalSpy spy(m_page, &Page::statusMessage);
    QAction* action = m_page->exportAction(target);
    QVERIFY(action);
    // The window's File > Export offers the page's actions.
    QVERIFY(m_window->findChildren<QAction*>().contains(action) || action->parent() == m_page);
    QVERIFY(action->isEnabled());
    action->trigger();
    if (!spy.isEmpty())
        *status = spy.takeLast();
}

void TestSearchExport::exportsTheStratexPlanAsTheCli_data()
{
    QTest::addColumn<int>("target");
    for (exporting::ExportFormat target : exporting::exportTargets()) {
        const std::string name(exporting::exportFormatName(target));
        QTest::newRow(name.c_str()) << int(target);
    }
}

// Each file the action writes is the CLI's export of the saved plan, byte for byte.
void TestSearchExport::exportsTheStratexPlanAsTheCli()
{
    QFETCH(int, target);
    const auto format = exporting::ExportFormat(target);
    const QString name = QString::fromUtf8(exporting::exportFormatName(format).data());
    const bool set = exporting::exportIsSet(format);
    const QString out = m_dir.filePath(QStringLiteral("gui-") + name + (set ? QString() : QStringLiteral(".out")));
    QString caption;
    QList<QVariant> status;
    exportThroughAction(format, out, &caption, &status);
    const QStringList boxes = closeExportBoxes(m_page);
    QVERIFY2(caption.contains(m_identity), qPrintable(caption));

    bool anyWritten = false;
    for (const exporting::ExportSetFile& member : exporting::exportSet(format)) {
        const QString memberName = QString::fromUtf8(exporting::exportFormatName(member.format).data());
        const QString cliOut = m_dir.filePath(QStringLiteral("cli-") + memberName + QStringLiteral(".out"));
        const stratex::test::CliResult cli = stratex::test::runCli(
            { QStringLiteral("export"), QStringLiteral("--strategy"), m_savedPlan, QStringLiteral("--to"), memberName,
                QStringLiteral("--out"), cliOut });
        const QString guiFile = set ? QDir(out).filePath(QString::fromStdString(member.path)) : out;
        if (cli.exitCode != 0) {
            // The target cannot express the plan: the page refuses it too, and says why.
            QVERIFY2(!QFileInfo::exists(out), qPrintable(cli.err));
            QVERIFY2(boxes.join(QString()).contains(QStringLiteral("exportFailedBox")), qPrintable(boxes.join(";")));
            continue;
        }
        anyWritten = true;
        QCOMPARE(readAll(guiFile), readAll(cliOut));
        QCOMPARE(QFileInfo(guiFile).isExecutable(), QFileInfo(cliOut).isExecutable());
        // The CLI's warnings are shown by the page, not only written as comments.
        for (const QByteArray& line : cli.err.split('\n')) {
            if (line.startsWith("warning: "))
                QVERIFY2(boxes.join(QString()).contains(QString::fromUtf8(line.mid(9))), line.constData());
        }
    }
    if (anyWritten) {
        QVERIFY(!status.isEmpty());
        const QString message = status.front().toString();
        QVERIFY2(message.startsWith(QStringLiteral("Wrote ")) && message.contains(m_identity), qPrintable(message));
    }
    if (set && anyWritten) {
        // The launch script reads its config where the set put it.
        const QString script = QString::fromUtf8(readAll(QDir(out).filePath(QStringLiteral("train_fine_grained.sh"))));
        QVERIFY(script.contains(QStringLiteral("./configs/fine_grained_config.json")));
        QVERIFY(QFileInfo::exists(QDir(out).filePath(QStringLiteral("configs/fine_grained_config.json"))));
    }
    if (format == exporting::ExportFormat::Torchtitan) {
        // The CLI's default, torchtitan main: the Python config module (issue 25), not v0.2's TOML.
        QVERIFY(anyWritten);
        QVERIFY(readAll(out).contains("def stratex_plan() -> Trainer.Config:"));
    }
    if (format == exporting::ExportFormat::Megatron) {
        QVERIFY(anyWritten);
        QVERIFY(m_window->grab().save(QDir::temp().filePath(QStringLiteral("stratex-tst-search-export.png"))));
    }
}

void TestSearchExport::neverTheGalvatronPlan_data()
{
    QTest::addColumn<bool>("selected"); // a Stratex plan selected
    QTest::newRow("stratex plan selected, galvatron plan too") << true;
    QTest::newRow("no stratex plan selected") << false;
}

// The bug: with a Stratex plan shown, File > Export > Megatron-LM wrote the Galvatron plan.
void TestSearchExport::neverTheGalvatronPlan()
{
    QFETCH(bool, selected);
    QVERIFY(m_page->showsStratexResults());
    QVERIFY(m_page->controller()->selectedEvaluation()); // the Galvatron plan is still selected
    const QString galvatronFile = m_dir.filePath(QStringLiteral("galvatron-megatron.sh"));
    QString error;
    QVERIFY2(m_page->controller()->exportSelectedPlan(exporting::ExportFormat::Megatron, galvatronFile, &error),
        qPrintable(error));
    QTableView* table = m_page->stratexPanel()->planTable();
    if (!selected)
        table->selectionModel()->clearCurrentIndex();
    const QString out = m_dir.filePath(QStringLiteral("wrong-engine-%1.sh").arg(selected));
    m_page->setExportPathChooser([out](const QString&, const QString&, bool) { return out; });
    QAction* action = m_page->exportAction(exporting::ExportFormat::Megatron);
    QCOMPARE(action->isEnabled(), selected);
    action->trigger(); // disabled: does nothing
    closeExportBoxes(m_page);
    if (!selected) {
        QVERIFY(!QFileInfo::exists(out));
        table->selectRow(0);
        QVERIFY(action->isEnabled());
        return;
    }
    QVERIFY(QFileInfo::exists(out));
    QVERIFY(readAll(out) != readAll(galvatronFile));
    const QString cliOut = m_dir.filePath(QStringLiteral("cli-wrong-engine.sh"));
    const stratex::test::CliResult cli = stratex::test::runCli({ QStringLiteral("export"), QStringLiteral("--strategy"),
        m_savedPlan, QStringLiteral("--to"), QStringLiteral("megatron"), QStringLiteral("--out"), cliOut });
    QCOMPARE(cli.exitCode, 0);
    QCOMPARE(readAll(out), readAll(cliOut));
}

QTEST_MAIN(TestSearchExport)
#include "tst_search_export.moc"
