// SPDX-License-Identifier: GPL-3.0-or-later
// The Search page's form and window, offscreen: the settings and folder remembered, the
// shortcuts listed, a laptop screen's size, errors that name the file, tooltips that explain.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "ui/common/settings_form.h"
#include "ui/main_window.h"
#include "ui/search/galvatron_results_panel.h"
#include "ui/search/search_page.h"
#include "ui/search/search_settings_form.h"

#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using namespace stratex::controllers;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

class TestSearchPageForm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void remembersTheFormAndTheFolder();
    void fitsALaptopScreen();
    void shortcutsAreListed();
    void reportsErrors();
    void tooltipsExplainSettings();

private:
    MainWindow* m_window = nullptr;
    SearchPage* m_page = nullptr;
};

void TestSearchPageForm::init()
{
    m_page = showOnPage<SearchPage>(m_window, QStringLiteral("search"));
    QVERIFY(m_page);
}

void TestSearchPageForm::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

// The next start searches the last folder with the last form, not the bundled example.
void TestSearchPageForm::remembersTheFormAndTheFolder()
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
void TestSearchPageForm::fitsALaptopScreen()
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

void TestSearchPageForm::shortcutsAreListed()
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

void TestSearchPageForm::reportsErrors()
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

void TestSearchPageForm::tooltipsExplainSettings()
{
    const QString tip = m_page->form()->spinBox("memory-constraint")->toolTip();
    QVERIFY2(tip.contains(QStringLiteral("--memory-constraint")) && tip.contains(QStringLiteral("(default 38)")),
        qPrintable(tip));
    const QString reserve = m_page->form()->fieldAs<QDoubleSpinBox>("allocator-reserve")->toolTip();
    QVERIFY2(reserve.contains(QStringLiteral("20 %")), qPrintable(reserve));
    QVERIFY(m_page->form()->checkBox("disable-fsdp")->toolTip().contains(QStringLiteral("ZeRO-3")));
    QVERIFY(m_page->form()->comboBox("uneven-batch")->toolTip().contains(QStringLiteral("gbsz")));
}

QTEST_MAIN(TestSearchPageForm)
#include "tst_search_page_form.moc"
