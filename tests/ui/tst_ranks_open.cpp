// SPDX-License-Identifier: GPL-3.0-or-later
// File > Open on the Ranks page never loses what the user typed (issue 24, finding 2): a text
// file that is no batch list is refused and changes nothing, a batch list asks before it replaces
// the typed configs, Cancel keeps them, Undo load puts them back, the settings saved on quit hold
// what the table shows, and the window title names only a file that was loaded.
#include <QApplication>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "ui/main_window.h"
#include "ui/ranks/batch_config_model.h"
#include "ui/ranks/ranks_page.h"
#include "ui/ranks/tracer_panel.h"

#include "gui_test_helpers.h"
#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::waitUntilIdle;

namespace {

// Types `text` into the cell as a user does: the editor opens, the text goes in, Enter commits.
void typeIntoCell(QTableView* table, int row, int column, const QString& text)
{
    const QModelIndex index = table->model()->index(row, column);
    table->setCurrentIndex(index);
    table->edit(index);
    // The open editor: a child of the viewport over the cell.
    QWidget* editor = nullptr;
    for (QWidget* child : table->viewport()->findChildren<QWidget*>()) {
        if (child->isVisible() && (qobject_cast<QSpinBox*>(child) || qobject_cast<QLineEdit*>(child))
            && child->geometry().intersects(table->visualRect(index)))
            editor = child;
    }
    QVERIFY(editor);
    if (auto* spin = qobject_cast<QSpinBox*>(editor))
        spin->selectAll();
    else if (auto* line = qobject_cast<QLineEdit*>(editor))
        line->selectAll();
    QTest::keyClicks(editor, text);
    // Moving on to the next cell commits the edit (as Tab or a click elsewhere does).
    table->setCurrentIndex(table->model()->index(row, BatchConfigModel::DpColumn));
    QCOMPARE(table->model()->index(row, column).data().toString(), text);
}

QMessageBox* replaceQuestion(QWidget* page)
{
    auto* box = page->findChild<QMessageBox*>(QStringLiteral("replaceBatchConfigsQuestion"));
    return box && box->isVisible() ? box : nullptr;
}

} // namespace

class TestRanksOpen : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void openNeverLosesTypedConfigs();
    void openOnTheDefaultLoadsAtOnce();
};

void TestRanksOpen::initTestCase()
{
    // The settings of this test, not the user's (saved on quit below).
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
}

void TestRanksOpen::openNeverLosesTypedConfigs()
{
    QTemporaryDir dir;
    QStringList typed;
    {
        MainWindow window(MainWindow::Options { true, false });
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.setCurrentPage(QStringLiteral("ranks")));
        auto* page = qobject_cast<RanksPage*>(window.currentPage());
        QVERIFY(page);
        TracerPanel* tracer = page->tracer();
        BatchConfigModel* model = tracer->model();

        // The user adds a config and types its numbers.
        QTest::mouseClick(tracer->findChild<QPushButton*>(QStringLiteral("addConfigButton")), Qt::LeftButton);
        const int row = model->rowCount() - 1;
        typeIntoCell(tracer->table(), row, BatchConfigModel::WorldColumn, QStringLiteral("96"));
        typeIntoCell(tracer->table(), row, BatchConfigModel::PpColumn, QStringLiteral("3"));
        typeIntoCell(tracer->table(), row, BatchConfigModel::TpColumn, QStringLiteral("2"));
        typed = model->toLines();
        QVERIFY2(typed.contains(QStringLiteral("96 3 2")), qPrintable(typed.join(u'|')));
        QVERIFY(waitUntilIdle(window));
        const QString title = window.windowTitle();

        // A .txt that is no batch list: refused with the file and the format named; nothing changes.
        const QString notes = dir.filePath(QStringLiteral("notes.txt"));
        QVERIFY(test::writeTestFile(notes, "Meeting notes\nTry a bigger batch next week.\n"));
        QString error;
        QVERIFY(!window.openFile(notes, &error));
        QVERIFY2(error.contains(QStringLiteral("notes.txt")) && error.contains(QStringLiteral("WORLD_SIZE PP TP")),
            qPrintable(error));
        QCOMPARE(model->toLines(), typed);
        QCOMPARE(window.windowTitle(), title);
        QVERIFY(!replaceQuestion(page));

        // A batch list: the page asks first, Cancel is the default and keeps the typed configs.
        const QString batch = dir.filePath(QStringLiteral("batch.txt"));
        QVERIFY(test::writeTestFile(batch, "8192 16 8\n1024 8 4\n"));
        QVERIFY2(window.openFile(batch, &error), qPrintable(error));
        QMessageBox* box = replaceQuestion(page);
        QVERIFY(box);
        QVERIFY2(box->text().contains(QStringLiteral("batch.txt")), qPrintable(box->text()));
        QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
        QTest::mouseClick(box->button(QMessageBox::Cancel), Qt::LeftButton);
        QTRY_VERIFY(!replaceQuestion(page));
        QCOMPARE(model->toLines(), typed);
        QCOMPARE(window.windowTitle(), title);

        // Replace: the file's configs, and the title names it.
        QVERIFY2(window.openFile(batch, &error), qPrintable(error));
        box = replaceQuestion(page);
        QVERIFY(box);
        QTest::mouseClick(box->findChild<QPushButton*>(QStringLiteral("replaceConfigs")), Qt::LeftButton);
        QTRY_VERIFY(!replaceQuestion(page));
        QCOMPARE(model->toLines(), (QStringList { QStringLiteral("8192 16 8"), QStringLiteral("1024 8 4") }));
        QVERIFY2(window.windowTitle().contains(QStringLiteral("batch.txt")), qPrintable(window.windowTitle()));

        // Undo load (Ctrl+Z) puts the typed configs back.
        auto* undo = tracer->findChild<QPushButton*>(QStringLiteral("undoLoadButton"));
        QVERIFY(undo);
        QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
        QVERIFY(undo->isEnabled());
        QTest::mouseClick(undo, Qt::LeftButton);
        QCOMPARE(model->toLines(), typed);
        QVERIFY(!undo->isEnabled());
        QVERIFY(waitUntilIdle(window));
        window.close();
    }
    // What was saved on quit is what the table showed: the typed configs.
    QSettings settings;
    QCOMPARE(settings.value(QStringLiteral("ranks/tracerConfigs")).toStringList(), typed);
}

// Nothing of the user's in the table (the tracer's default): the file loads without a question.
void TestRanksOpen::openOnTheDefaultLoadsAtOnce()
{
    QSettings().clear();
    QTemporaryDir dir;
    MainWindow window(MainWindow::Options { false, false });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.setCurrentPage(QStringLiteral("ranks")));
    auto* page = qobject_cast<RanksPage*>(window.currentPage());
    QVERIFY(page);
    page->tracer()->model()->setConfigs({ ranks::defaultBatchConfig() });
    const QString batch = dir.filePath(QStringLiteral("batch.txt"));
    QVERIFY(test::writeTestFile(batch, "64 4 2\n"));
    QString error;
    QVERIFY2(window.openFile(batch, &error), qPrintable(error));
    QVERIFY(!replaceQuestion(page));
    QCOMPARE(page->tracer()->model()->toLines(), QStringList { QStringLiteral("64 4 2") });
    QVERIFY2(window.windowTitle().contains(QStringLiteral("batch.txt")), qPrintable(window.windowTitle()));
}

QTEST_MAIN(TestRanksOpen)
#include "tst_ranks_open.moc"
