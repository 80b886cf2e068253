// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 12 in the GUI, offscreen: work beyond the budget (core's estimate, the one the CLI refuses
// with) is a question -- Cancel starts nothing, Run anyway runs the search on a worker that can
// still be cancelled -- and bad profile folders (a directory or a device as a file, a memory value
// of 1e9 MB, invalid UTF-8) give a message box, not a crash.
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

#include "ui/main_window.h"
#include "ui/planner/planner_form.h"
#include "ui/planner/planner_page.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"

#include "gui_test_helpers.h"
#include "jobs/job_runner.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {

const char* const kComputation = "computation_profiling_bf16_llama2-7b_all.json";
const char* const kMemory = "memory_profiling_bf16_llama2-7b_all.json";

// The llama2-7b profiles of the Galvatron fixture (1 node x 8 GPUs), copied to `dir`.
bool copyLlamaProfiles(const QString& dir)
{
    const QDir fixture(stratex::test::fixture(QStringLiteral("galvatron")));
    for (const QString& name : { QString::fromUtf8(kComputation), QString::fromUtf8(kMemory),
             QStringLiteral("allreduce_bandwidth_1nodes_8gpus_per_node.json"),
             QStringLiteral("p2p_bandwidth_1nodes_8gpus_per_node.json"), QStringLiteral("overlap_coefficient.json"),
             QStringLiteral("sp_time_1nodes_8gpus_per_node.json") }) {
        if (!QFile::copy(fixture.filePath(name), QDir(dir).filePath(name)))
            return false;
    }
    return true;
}

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool overwrite(const QString& path, const QByteArray& content)
{
    QFile::remove(path);
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(content) == content.size();
}

} // namespace

class TestLongWork : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void searchBeyondTheBudgetAsks();
    void planBeyondTheBudgetAsks();
    void badProfileFoldersGiveAMessageBox_data();
    void badProfileFoldersGiveAMessageBox();

private:
    // The baseline search of tst_search_page (llama2-7b, 1 x 8 GPUs, batch time mode) on `dir`.
    void setUpSearch(const QString& dir);
    QMessageBox* question() const;
    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
};

void TestLongWork::init()
{
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
}

void TestLongWork::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void TestLongWork::setUpSearch(const QString& dir)
{
    SearchSettingsForm* form = m_page->form();
    form->findChild<QLineEdit*>(QStringLiteral("profilesDir"))->setText(dir);
    form->findChild<QLineEdit*>(QStringLiteral("model-name"))->setText(QStringLiteral("llama2-7b"));
    form->spinBox("memory-constraint")->setValue(36);
    form->spinBox("settle-bsz")->setValue(16);
    form->comboBox("time-profile-mode")->setCurrentText(QStringLiteral("batch"));
}

QMessageBox* TestLongWork::question() const
{
    auto* box = m_page->findChild<QMessageBox*>(QStringLiteral("longWorkQuestion"));
    return box && box->isVisible() ? box : nullptr;
}

void TestLongWork::searchBeyondTheBudgetAsks()
{
    setUpSearch(stratex::test::fixture(QStringLiteral("galvatron")));
    // Every batch of 8..2048 on 1000 GB GPUs: ~81,000 tasks of 800,000-row knapsacks, beyond the
    // search's work budget (well inside its hard limit on tasks).
    m_page->form()->spinBox("settle-bsz")->setValue(-1);
    m_page->form()->spinBox("min-bsz")->setValue(8);
    m_page->form()->spinBox("max-bsz")->setValue(2048);
    m_page->form()->spinBox("memory-constraint")->setValue(1000);
    m_page->form()->findChild<QSpinBox*>(QStringLiteral("threads"))->setValue(1);
    const QList<jobs::JobRunner*> runners = m_page->jobRunners();
    QVERIFY(!runners.isEmpty());
    QSignalSpy started(runners.front(), &jobs::JobRunner::started);
    const QString before = m_page->galvatronPanel()->bestText();

    // The question, with the core's estimate; Cancel starts nothing and changes nothing.
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("runSearchButton")), Qt::LeftButton);
    QMessageBox* box = question();
    QVERIFY(box);
    QVERIFY2(box->text().contains(QStringLiteral("This search is about")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QStringLiteral("times its work budget")), qPrintable(box->text()));
    QVERIFY(box->findChild<QPushButton*>(QStringLiteral("runAnyway")));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
    // STRATEX_SCREENSHOT_DIR=... keeps a picture of the question (for a person to look at).
    if (const QString shots = qEnvironmentVariable("STRATEX_SCREENSHOT_DIR"); !shots.isEmpty()) {
        QVERIFY(m_window->grab().save(QDir(shots).filePath(QStringLiteral("long-work-window.png"))));
        QVERIFY(box->grab().save(QDir(shots).filePath(QStringLiteral("long-work-question.png"))));
    }
    QTest::mouseClick(box->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(!question());
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(started.count(), 0);
    QVERIFY(!m_window->isBusy());
    QCOMPARE(m_page->galvatronPanel()->bestText(), before);
    QVERIFY(!m_page->galvatronPanel()->result());

    // Run anyway: the search runs on a worker, and Cancel still stops it.
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("runSearchButton")), Qt::LeftButton);
    box = question();
    QVERIFY(box);
    QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("runAnyway")), Qt::LeftButton);
    QTRY_COMPARE(started.count(), 1);
    QVERIFY(runners.front()->isRunning());
    QTest::mouseClick(m_page->findChild<QPushButton*>(QStringLiteral("cancelSearchButton")), Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window, 20000));
    QVERIFY2(m_page->galvatronPanel()->bestText().contains(QStringLiteral("Cancelled")),
        qPrintable(m_page->galvatronPanel()->bestText()));
    QVERIFY(!m_page->galvatronPanel()->result());
    QVERIFY(!m_page->findChild<QMessageBox*>(QStringLiteral("searchFailedBox")));
}

void TestLongWork::planBeyondTheBudgetAsks()
{
    // 1024 samples on 256 stages of one layer: the CLI refuses it (tst_cli_inputs), the Planner
    // page asks once the micro-batches are known (on the worker) and plans nothing meanwhile.
    QVERIFY(m_window->setCurrentPage(QStringLiteral("planner")));
    auto* page = qobject_cast<PlannerPage*>(m_window->currentPage());
    QVERIFY(page);
    QVERIFY(waitUntilIdle(*m_window));
    page->form()->setSyntheticSpec(6.5, 0.8, 1024, 1);
    page->form()->setPipeline(256, 1, 40000);
    const QList<jobs::JobRunner*> runners = page->jobRunners();
    QVERIFY(!runners.isEmpty());
    QSignalSpy started(runners.front(), &jobs::JobRunner::started);
    const auto pageQuestion = [page]() -> QMessageBox* {
        auto* box = page->findChild<QMessageBox*>(QStringLiteral("longWorkQuestion"));
        return box && box->isVisible() ? box : nullptr;
    };

    QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("planButton")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(pageQuestion(), 120000);
    QVERIFY(waitUntilIdle(*m_window));
    QMessageBox* box = pageQuestion();
    QVERIFY2(box->text().startsWith(QStringLiteral("This plan in ")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QStringLiteral("on 256 stages")), qPrintable(box->text()));
    QVERIFY2(box->text().contains(QStringLiteral("times its work budget")), qPrintable(box->text()));
    QVERIFY(!page->findChild<QMessageBox*>(QStringLiteral("plannerFailedBox")));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
    QTest::mouseClick(box->button(QMessageBox::Cancel), Qt::LeftButton);
    QTRY_VERIFY(!pageQuestion());
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(started.count(), 1); // the micro-batching only
    QVERIFY(!page->hasPlans());

    // Ask again, Run anyway: planning starts with the budget lifted, and cancelling stops it.
    QTest::mouseClick(page->findChild<QPushButton*>(QStringLiteral("planButton")), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(pageQuestion(), 120000);
    QVERIFY(waitUntilIdle(*m_window));
    QSignalSpy cancelled(runners.front(), &jobs::JobRunner::cancelled);
    QTest::mouseClick(pageQuestion()->findChild<QPushButton*>(QStringLiteral("runAnyway")), Qt::LeftButton);
    QTRY_COMPARE(started.count(), 3);
    QTRY_VERIFY(m_window->isBusy());
    m_window->cancelJobs();
    QVERIFY(cancelled.wait(60000));
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY(!page->hasPlans());
    QVERIFY(!pageQuestion());
    QVERIFY(!page->findChild<QMessageBox*>(QStringLiteral("plannerFailedBox")));
}

void TestLongWork::badProfileFoldersGiveAMessageBox_data()
{
    QTest::addColumn<QString>("file"); // the profile replaced
    QTest::addColumn<QString>("kind"); // "dir", "device" or "content"
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("message"); // part of the box's text

    QTest::newRow("computation profile is a directory")
        << QString::fromUtf8(kComputation) << "dir" << QByteArray()
        << QString::fromUtf8(kComputation) + QStringLiteral(": expected a regular file, found a directory");
    QTest::newRow("computation profile is /dev/zero")
        << QString::fromUtf8(kComputation) << "device" << QByteArray()
        << QString::fromUtf8(kComputation) + QStringLiteral(": expected a regular file, found a device");
    QTest::newRow("memory profile value 1e9 MB")
        << QString::fromUtf8(kMemory) << "huge" << QByteArray() << QString::fromUtf8(kMemory);
    QTest::newRow("computation profile with invalid UTF-8")
        << QString::fromUtf8(kComputation) << "content" << QByteArray("{\"layertype_0\x80\xff\": 1}")
        << QString::fromUtf8(kComputation);
}

void TestLongWork::badProfileFoldersGiveAMessageBox()
{
    QFETCH(QString, file);
    QFETCH(QString, kind);
    QFETCH(QByteArray, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(copyLlamaProfiles(dir.path()));
    const QString path = dir.filePath(file);
    if (kind == QLatin1String("dir")) {
        QVERIFY(QFile::remove(path));
        QVERIFY(QDir(dir.path()).mkdir(file));
    } else if (kind == QLatin1String("device")) {
        QVERIFY(QFile::remove(path));
        QVERIFY(QFile::link(QStringLiteral("/dev/zero"), path));
    } else if (kind == QLatin1String("huge")) {
        // Every parameter size 1e9 MB: beyond the profile's memory bound (it used to overflow int).
        QByteArray text = readAll(path);
        QVERIFY(!text.isEmpty());
        const QString edited
            = QString::fromUtf8(text).replace(QRegularExpression(QStringLiteral("\"parameter_size\":\\s*[0-9.eE+-]+")),
                QStringLiteral("\"parameter_size\": 1e9"));
        QVERIFY(edited.toUtf8() != text);
        QVERIFY(overwrite(path, edited.toUtf8()));
    } else {
        QVERIFY(overwrite(path, content));
    }
    setUpSearch(dir.path());
    m_page->runSearch();
    QVERIFY(!question()); // a small search: no question
    QVERIFY(waitUntilIdle(*m_window, 30000));
    auto* box = m_page->findChild<QMessageBox*>(QStringLiteral("searchFailedBox"));
    QVERIFY(box && box->isVisible());
    QVERIFY2(box->text().contains(message), qPrintable(box->text()));
    QVERIFY(!m_page->galvatronPanel()->result());
    box->close();
}

QTEST_MAIN(TestLongWork)
#include "tst_long_work.moc"
