// SPDX-License-Identifier: GPL-3.0-or-later
// The Ranks page, offscreen: type a configuration, watch it validate, hover and click ranks, read
// the tracer table, export the grid and the tracer script, and grab the window.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "ui/common/categorical_palette.h"
#include "ui/main_window.h"
#include "ui/ranks/batch_config_model.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/rank_details.h"
#include "ui/ranks/rank_grid_view.h"
#include "ui/ranks/rank_grid_widget.h"
#include "ui/ranks/ranks_page.h"
#include "ui/ranks/tracer_panel.h"

#include "controllers/ranks_controller.h"
#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {
// A point inside the rank's cell clear of its rank number (centre), tracer dot (top right) and
// node lines (right and bottom edges).
QPoint fillPoint(const RankGridWidget* grid, int rank)
{
    const QRect cell = grid->rankRect(rank);
    return grid->viewportPointOf(rank) - QPoint(cell.width() / 2 - 3, 0);
}

void typeInto(QSpinBox* box, const QString& text)
{
    box->setFocus();
    box->selectAll();
    QTest::keyClick(box, Qt::Key_Backspace);
    QTest::keyClicks(box, text);
}
} // namespace

class TestRanksPage : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void startsWithBundledExample();
    void typingAConfigValidatesAndRedraws_data();
    void typingAConfigValidatesAndRedraws();
    void hoverShowsRankAndGroups();
    void clickSelectsRankAndHighlightsGroup();
    void colourByChangesColours();
    void tracerTableFollowsEdits();
    void exportsGridImages();
    void exportsTracerScript();
    void settingsRoundTrip();
    void windowGrab();
    void gridFittedWhenShownLater();
    void zoomButtonsAreNamedAndWork_data();
    void zoomButtonsAreNamedAndWork();

private:
    MainWindow* m_window = nullptr;
    RanksPage* m_page = nullptr;
};

void TestRanksPage::init()
{
    m_page = showOnPage<RanksPage>(m_window, QStringLiteral("ranks"));
    QVERIFY(m_page);
}

void TestRanksPage::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

void TestRanksPage::startsWithBundledExample()
{
    const RankGridView* view = m_page->grid()->view();
    QVERIFY(view);
    QCOMPARE(view->world(), 64);
    QCOMPARE(view->grid.sizes().dp, 4);
    QVERIFY(m_page->form()->validationText().contains(QStringLiteral("DP 4")));
    // The seed tracer's batch list, including its invalid last line.
    QCOMPARE(m_page->tracer()->model()->rowCount(), 7);
    QVERIFY(m_page->tracer()->summaryText().contains(QStringLiteral("6 of 7 configs valid")));
}

void TestRanksPage::typingAConfigValidatesAndRedraws_data()
{
    QTest::addColumn<QString>("world");
    QTest::addColumn<QString>("tp");
    QTest::addColumn<QString>("pp");
    QTest::addColumn<QString>("expected");
    QTest::addColumn<bool>("valid");
    QTest::newRow("w16-tp2-pp4") << "16"
                                 << "2"
                                 << "4"
                                 << "DP 2" << true;
    QTest::newRow("w8192-tp8-pp16") << "8192"
                                    << "8"
                                    << "16"
                                    << "DP 64" << true;
    QTest::newRow("indivisible") << "10"
                                 << "4"
                                 << "1"
                                 << "not divisible by tp*pp*cp" << false;
}

void TestRanksPage::typingAConfigValidatesAndRedraws()
{
    QFETCH(QString, world);
    QFETCH(QString, tp);
    QFETCH(QString, pp);
    QFETCH(QString, expected);
    QFETCH(bool, valid);
    ParallelConfigForm* form = m_page->form();
    typeInto(form->worldBox(), world);
    typeInto(form->tpBox(), tp);
    typeInto(form->ppBox(), pp);
    QVERIFY(waitUntilIdle(*m_window));
    QVERIFY2(form->validationText().contains(expected), qPrintable(form->validationText()));
    QCOMPARE(form->isValid(), valid);
    if (valid) {
        QVERIFY(m_page->grid()->view());
        QCOMPARE(m_page->grid()->view()->world(), world.toInt());
    } else {
        QVERIFY(!m_page->grid()->view());
    }
}

void TestRanksPage::hoverShowsRankAndGroups()
{
    RankGridWidget* grid = m_page->grid();
    QSignalSpy hovered(grid, &RankGridWidget::rankHovered);
    const QPoint point = grid->viewportPointOf(5);
    QCOMPARE(grid->rankAtViewport(point), 5);
    QTest::mouseMove(grid->viewport(), point);
    QTRY_VERIFY(!hovered.isEmpty());
    QCOMPARE(hovered.last().at(0).toInt(), 5);
    const QString tip = grid->toolTipFor(5);
    QVERIFY(tip.contains(QStringLiteral("Rank 5")));
    // World 64, TP 4, PP 4: rank 5 is tp 1 of TP group [4..7], pipeline [5,21,37,53].
    QVERIFY2(tip.contains(QStringLiteral("[4,5,6,7]")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("[5,21,37,53]")));
    QVERIFY(tip.contains(QStringLiteral("traced")) == false);
    QVERIFY(grid->toolTipFor(16).contains(QStringLiteral("traced"))); // stage 1's representative
}

void TestRanksPage::clickSelectsRankAndHighlightsGroup()
{
    RankGridWidget* grid = m_page->grid();
    QSignalSpy selected(grid, &RankGridWidget::rankSelected);
    QTest::mouseClick(grid->viewport(), Qt::LeftButton, Qt::NoModifier, grid->viewportPointOf(21));
    QCOMPARE(selected.count(), 1);
    QCOMPARE(grid->selectedRank(), 21);
    QVERIFY(m_page->details()->topLevelItem(0)->text(0).contains(QStringLiteral("Rank 21")));

    // Highlight the pipeline group: members keep their colour, others are dimmed.
    m_page->highlightBox()->setCurrentText(QStringLiteral("pp"));
    const QImage image = grid->viewport()->grab().toImage();
    const auto colourAt = [&](int rank) { return image.pixelColor(fillPoint(grid, rank)); };
    // Cells are coloured by TP group; members of the highlighted group keep that colour exactly.
    const auto& tpIndex = grid->view()->groupIndex[std::size_t(ranks::GroupKind::Tp)];
    QCOMPARE(colourAt(37), categoricalColor(tpIndex[37])); // same pipeline as 21
    QVERIFY(colourAt(38) != categoricalColor(tpIndex[38])); // another pipeline: dimmed
    // The selected rank itself carries an outline in the text colour.
    QCOMPARE(image.pixelColor(
                 grid->rankRect(21).translated(grid->viewportPointOf(21) - grid->rankRect(21).center()).topLeft()
                 + QPoint(1, grid->rankRect(21).height() / 2)),
        grid->palette().color(QPalette::Text));

    // Clicking a group row in the details selects that kind for highlighting.
    QTreeWidgetItem* tpRow = m_page->details()->findItems(QStringLiteral("tp"), Qt::MatchExactly).value(0);
    QVERIFY(tpRow);
    m_page->details()->setCurrentItem(tpRow);
    QCOMPARE(m_page->highlightBox()->currentText(), QStringLiteral("tp"));

    QTest::keyClick(grid, Qt::Key_Escape);
    QCOMPARE(grid->selectedRank(), -1);
}

void TestRanksPage::colourByChangesColours()
{
    RankGridWidget* grid = m_page->grid();
    const auto colours = [&] {
        const QImage image = grid->viewport()->grab().toImage();
        return std::array<QColor, 3> { image.pixelColor(fillPoint(grid, 0)), image.pixelColor(fillPoint(grid, 1)),
            image.pixelColor(fillPoint(grid, 4)) };
    };
    m_page->colourBox()->setCurrentText(QStringLiteral("tp"));
    auto tp = colours();
    QCOMPARE(tp[0], tp[1]); // same TP group
    QVERIFY(tp[0] != tp[2]);
    m_page->colourBox()->setCurrentText(QStringLiteral("dp"));
    auto dp = colours();
    QVERIFY(dp[0] != dp[1]); // ranks 0 and 1 are in different DP groups
    QCOMPARE(dp[0], dp[2]); // 0 and 4 share one
}

void TestRanksPage::tracerTableFollowsEdits()
{
    BatchConfigModel* model = m_page->tracer()->model();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model->data(model->index(0, BatchConfigModel::DpColumn)).toInt(), 64);
    QVERIFY(model->data(model->index(0, BatchConfigModel::RanksColumn))
                .toString()
                .startsWith(QStringLiteral("16 of 8192")));
    QCOMPARE(model->data(model->index(0, BatchConfigModel::SavingColumn)).toString(), QStringLiteral("99.8 %"));
    QVERIFY(model->data(model->index(6, BatchConfigModel::StatusColumn))
                .toString()
                .contains(QStringLiteral("not divisible")));

    // Type a new TP into the table through its editor.
    QTableView* table = m_page->tracer()->table();
    const QModelIndex tpCell = model->index(0, BatchConfigModel::TpColumn);
    table->setCurrentIndex(tpCell);
    table->edit(tpCell);
    QWidget* editor = table->indexWidget(tpCell);
    if (!editor)
        editor = table->focusWidget();
    QVERIFY(editor);
    QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(editor, QStringLiteral("4"));
    QTest::keyClick(editor, Qt::Key_Return);
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(model->configs()[0].tp, 4);
    QCOMPARE(model->data(model->index(0, BatchConfigModel::DpColumn)).toInt(), 128);

    m_page->tracer()->addConfig();
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(model->rowCount(), 8);
    QCOMPARE(model->plans().size(), std::size_t(8));
    QVERIFY(model->plans().back().valid); // the grid's own config: 64 4 4
}

void TestRanksPage::exportsGridImages()
{
    QTemporaryDir dir;
    QString error;
    const QString png = dir.filePath(QStringLiteral("grid.png"));
    QVERIFY2(m_page->exportGridImage(png, &error), qPrintable(error));
    QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.size(), m_page->grid()->exportSize(8192));
    QVERIFY(stratex::test::distinctColours(image) >= 6);
    const QString svg = dir.filePath(QStringLiteral("grid.svg"));
    QVERIFY2(m_page->exportGridImage(svg, &error), qPrintable(error));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray content = file.readAll();
    QVERIFY(content.contains("<svg"));
    QVERIFY(content.contains("stage 3"));
    // A directory that does not exist: an error, no file.
    QVERIFY(!m_page->exportGridImage(dir.filePath(QStringLiteral("missing/grid.png")), &error));
    QVERIFY(!error.isEmpty());
}

void TestRanksPage::exportsTracerScript()
{
    QTemporaryDir dir;
    TracerPanel* tracer = m_page->tracer();
    tracer->setCommandTemplate(QStringLiteral("echo {rank} {world}"));
    QSignalSpy exported(m_page->controller(), &controllers::RanksController::scriptExported);
    const QString path = dir.filePath(QStringLiteral("trace.sh"));
    tracer->exportScript(path);
    QVERIFY(exported.wait(10000));
    QProcess bash;
    bash.start(QStringLiteral("bash"), { QStringLiteral("-n"), path });
    QVERIFY(bash.waitForFinished());
    QCOMPARE(bash.exitCode(), 0);
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("run_config 1 8192 16 8 64"));

    QSignalSpy failed(m_page->controller(), &controllers::RanksController::scriptExportFailed);
    tracer->setCommandTemplate(QString());
    tracer->exportScript(dir.filePath(QStringLiteral("empty.sh")));
    QVERIFY(failed.wait(10000));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("empty.sh"))));
}

void TestRanksPage::settingsRoundTrip()
{
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("stratex.ini")), QSettings::IniFormat);
    ranks::ParallelConfig config = m_page->form()->config();
    config.world = 256;
    config.tp = 8;
    config.pp = 4;
    config.ep = 4;
    m_page->form()->setConfig(config);
    m_page->colourBox()->setCurrentText(QStringLiteral("expert-ep"));
    m_page->tracer()->setCommandTemplate(QStringLiteral("echo {rank}"));
    m_page->saveSettings(settings);

    MainWindow other(MainWindow::Options { false });
    auto* page = qobject_cast<RanksPage*>(other.page(QStringLiteral("ranks")));
    page->restoreSettings(settings);
    QCOMPARE(page->form()->config(), config);
    QCOMPARE(page->colourBox()->currentText(), QStringLiteral("expert-ep"));
    QCOMPARE(page->tracer()->commandTemplate(), QStringLiteral("echo {rank}"));
    QCOMPARE(page->tracer()->model()->rowCount(), 7);
}

void TestRanksPage::windowGrab()
{
    const QImage image = m_window->grab().toImage();
    QCOMPARE(image.size(), m_window->size() * m_window->devicePixelRatio());
    QVERIFY(stratex::test::distinctColours(image) >= 12);
    QVERIFY(image.save(QDir::temp().filePath(QStringLiteral("stratex-tst-ranks-page.png"))));
}

// A normal launch: the window opens on the Search page and the example's best plan fills the
// (hidden) Ranks page. The grid used to be fitted while hidden, to a stale size: a few pixels per
// cell until Fit was pressed.
void TestRanksPage::gridFittedWhenShownLater()
{
    MainWindow window(MainWindow::Options { false, true });
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(waitUntilIdle(window, 60000));
    QCOMPARE(window.currentPage()->pageId(), QStringLiteral("search"));
    auto* page = qobject_cast<RanksPage*>(window.page(QStringLiteral("ranks")));
    RankGridWidget* grid = page->findChild<RankGridWidget*>(QStringLiteral("rankGrid"));
    QVERIFY(grid->view());
    QCOMPARE(grid->view()->world(), 16);
    QVERIFY(window.setCurrentPage(QStringLiteral("ranks")));
    QVERIFY(waitUntilIdle(window));
    const int shown = grid->cellSize();
    grid->zoomToFit(); // what the Fit button gives now that the grid has its real size
    QCOMPARE(shown, grid->cellSize());
    QVERIFY2(shown >= 24, qPrintable(QString::number(shown)));
}

void TestRanksPage::zoomButtonsAreNamedAndWork_data()
{
    QTest::addColumn<QString>("button");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QKeySequence>("shortcut");
    QTest::addColumn<int>("direction"); // -1 smaller cells, +1 larger, 0 the fitted size
    QTest::newRow("zoom-out") << "zoomOutButton"
                              << "Zoom out" << QKeySequence(QKeySequence::ZoomOut) << -1;
    QTest::newRow("zoom-in") << "zoomInButton"
                             << "Zoom in" << QKeySequence(QKeySequence::ZoomIn) << 1;
    QTest::newRow("fit") << "fitGridButton"
                         << "Fit" << QKeySequence(Qt::CTRL | Qt::Key_0) << 0;
}

// The grid's zoom buttons say what they do (not "−" and "+"), name their shortcut in the tooltip,
// and both the click and the shortcut zoom; Help > Keyboard Shortcuts lists the shortcut.
void TestRanksPage::zoomButtonsAreNamedAndWork()
{
    QFETCH(QString, button);
    QFETCH(QString, name);
    QFETCH(QKeySequence, shortcut);
    QFETCH(int, direction);
    QVERIFY(QTest::qWaitForWindowActive(m_window));
    QVERIFY(waitUntilIdle(*m_window));
    auto* tool = m_page->findChild<QToolButton*>(button);
    QVERIFY(tool);
    QCOMPARE(tool->text(), name);
    QCOMPARE(tool->accessibleName(), name);
    const QString keys = shortcut.toString(QKeySequence::NativeText);
    QVERIFY2(tool->toolTip().contains(keys), qPrintable(tool->toolTip()));
    RankGridWidget* grid = m_page->findChild<RankGridWidget*>(QStringLiteral("rankGrid"));
    grid->zoomToFit();
    const int fitted = grid->cellSize();
    const int start = direction == 0 ? fitted / 2 : fitted;
    const auto check = [&](const char* how) {
        const int now = grid->cellSize();
        const bool ok = direction < 0 ? now < start : direction > 0 ? now > start : now == fitted;
        QVERIFY2(ok, qPrintable(QStringLiteral("%1: %2 -> %3").arg(QLatin1String(how)).arg(start).arg(now)));
    };
    grid->setCellSize(start);
    QTest::mouseClick(tool, Qt::LeftButton);
    check("click");
    grid->setCellSize(start);
    m_page->findChild<QComboBox*>(QStringLiteral("colourByBox"))->setFocus(); // anywhere on the page
    QTest::keySequence(m_window, shortcut);
    check("shortcut");
    bool listed = false;
    for (const auto& row : m_window->shortcutOverview())
        listed = listed || (row.first == keys && row.second.contains(name));
    QVERIFY2(listed, qPrintable(keys));
}

QTEST_MAIN(TestRanksPage)
#include "tst_ranks_page.moc"
