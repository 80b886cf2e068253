// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 24, findings 10 and 11 on the Ranks page, offscreen: 8,192 ranks open as an overview (one
// cell per TP group) that a double-click expands into readable ranks; the zoom keys zoom at the
// cursor; the stage labels stay in view while the grid scrolls; rank numbers are drawn wherever
// they fit; a fitted grid fits again when the window resizes (1280×800); and editing a tracer
// config leaves the layout form alone.
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

#include "ui/common/theme.h"
#include "ui/main_window.h"
#include "ui/ranks/batch_config_model.h"
#include "ui/ranks/parallel_config_form.h"
#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_widget.h"
#include "ui/ranks/ranks_page.h"
#include "ui/ranks/tracer_panel.h"

#include "gui_test_helpers.h"

using namespace stratex;
using namespace stratex::ui;
using stratex::test::showOnPage;
using stratex::test::waitUntilIdle;

namespace {

ranks::ParallelConfig layout(int world, int tp, int pp)
{
    ranks::ParallelConfig config;
    config.world = world;
    config.tp = tp;
    config.pp = pp;
    config.gpusPerNode = 8;
    return config;
}

// Cells apart, in rows and columns, of two ranks' cells.
int cellDistance(const RankGridWidget* grid, int a, int b)
{
    const RankGridGeometry geometry = grid->geometry();
    return std::max(
        std::abs(geometry.rowOf(a) - geometry.rowOf(b)), std::abs(geometry.columnOf(a) - geometry.columnOf(b)));
}

// The window in the light and the dark theme, to $STRATEX_SCREENSHOT_DIR when set.
void saveScreens(QWidget* window, const QString& name)
{
    const QString dir = qEnvironmentVariable("STRATEX_SCREENSHOT_DIR");
    if (dir.isEmpty())
        return;
    for (const Theme theme : { Theme::Light, Theme::Dark }) {
        applyTheme(theme);
        QTest::qWait(20);
        QVERIFY(window->grab().save(QDir(dir).filePath(QStringLiteral("ranks-8192-%1-%2-%3x%4.png")
                                                           .arg(name, themeName(theme))
                                                           .arg(window->width())
                                                           .arg(window->height()))));
    }
    applyTheme(Theme::Light);
}

} // namespace

class TestRanksReading : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void thousandsOfRanksOpenAsOverview();
    void doubleClickExpandsATpGroup();
    void zoomKeysZoomAtTheCursor_data();
    void zoomKeysZoomAtTheCursor();
    void stageLabelsStayInView();
    void rankNumbersWhereTheyFit();
    void fittedGridFitsAgainOnResize();
    void editingATracerConfigKeepsTheForm();

private:
    bool showLayout(int world, int tp, int pp);
    MainWindow* m_window = nullptr;
    RanksPage* m_page = nullptr;
};

void TestRanksReading::init()
{
    m_page = showOnPage<RanksPage>(m_window, QStringLiteral("ranks"));
    QVERIFY(m_page);
    m_window->resize(1280, 800);
    QVERIFY(waitUntilIdle(*m_window));
}

void TestRanksReading::cleanup()
{
    delete m_window;
    m_window = nullptr;
}

bool TestRanksReading::showLayout(int world, int tp, int pp)
{
    m_page->form()->setConfig(layout(world, tp, pp));
    if (!waitUntilIdle(*m_window, 60000))
        return false;
    QTest::qWait(50);
    const RankGridView* view = m_page->grid()->view();
    return view && view->world() == world && view->grid.sizes().tp == tp;
}

// 8,192 ranks at the fit were 2 px cells, a striped blur: the page opens the overview, one cell per
// TP group (1,024 cells), each large enough to tell apart.
void TestRanksReading::thousandsOfRanksOpenAsOverview()
{
    QVERIFY(showLayout(8192, 8, 16));
    RankGridWidget* grid = m_page->grid();
    QVERIFY(grid->isOverview());
    QVERIFY(m_page->overviewBox()->isChecked());
    QCOMPARE(grid->shownView()->ranksPerCell, 8);
    QCOMPARE(grid->shownView()->ranksPerBand, 8192 / 16 / 8);
    QVERIFY2(grid->cellSize() >= 6, qPrintable(QString::number(grid->cellSize())));
    QVERIFY(grid->isFitted());
    // Every rank of a TP group answers with its group's cell.
    QCOMPARE(grid->rankRect(4001), grid->rankRect(4000));
    QVERIFY(grid->toolTipFor(4000).contains(QStringLiteral("TP group of ranks 4000–4007")));
    saveScreens(m_window, QStringLiteral("overview"));
    // Off again: one cell per rank.
    m_page->overviewBox()->setChecked(false);
    QVERIFY(!grid->isOverview());
    QVERIFY(grid->rankRect(4001) != grid->rankRect(4000));
    // A small layout never opens in the overview.
    QVERIFY(showLayout(64, 4, 4));
    QVERIFY(!grid->isOverview());
}

void TestRanksReading::doubleClickExpandsATpGroup()
{
    QVERIFY(showLayout(8192, 8, 16));
    RankGridWidget* grid = m_page->grid();
    QVERIFY(grid->isOverview());
    const QPoint point = grid->viewportPointOf(4000);
    QCOMPARE(grid->rankAtViewport(point), 4000);
    QTest::mouseDClick(grid->viewport(), Qt::LeftButton, {}, point);
    QVERIFY(!grid->isOverview());
    QVERIFY(!m_page->overviewBox()->isChecked());
    QCOMPARE(grid->selectedRank(), 4000);
    // Expanded at a size that holds the largest rank's number, the group under the cursor.
    QVERIFY2(rankNumbersFit(grid->font(), grid->cellSize(), 8191), qPrintable(QString::number(grid->cellSize())));
    QVERIFY2(cellDistance(grid, grid->rankAtViewport(point), 4000) <= 1,
        qPrintable(QString::number(grid->rankAtViewport(point))));
    saveScreens(m_window, QStringLiteral("expanded"));
}

void TestRanksReading::zoomKeysZoomAtTheCursor_data()
{
    QTest::addColumn<int>("key");
    QTest::newRow("+") << int(Qt::Key_Plus);
    QTest::newRow("-") << int(Qt::Key_Minus);
}

// The zoom keys zoomed at the viewport's centre: the cell under the cursor slid away.
void TestRanksReading::zoomKeysZoomAtTheCursor()
{
    QFETCH(int, key);
    QVERIFY(showLayout(8192, 8, 16));
    RankGridWidget* grid = m_page->grid();
    m_page->overviewBox()->setChecked(false);
    grid->setCellSize(16);
    grid->horizontalScrollBar()->setValue(grid->horizontalScrollBar()->maximum() / 3);
    grid->verticalScrollBar()->setValue(grid->verticalScrollBar()->maximum() / 3);
    // A point away from the centre and from the content's edges.
    const QPoint cursor(
        grid->viewport()->width() / 4 + RankGridGeometry::kLabelWidth / 2, grid->viewport()->height() / 4);
    const int under = grid->rankAtViewport(cursor);
    QVERIFY(under >= 0);
    // The cursor moves there (sent to the viewport: the offscreen platform's synthesized cursor
    // moves do not always reach it).
    QSignalSpy hovered(grid, &RankGridWidget::rankHovered);
    QMouseEvent move(QEvent::MouseMove, QPointF(cursor), QPointF(grid->viewport()->mapToGlobal(cursor)), Qt::NoButton,
        Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(grid->viewport(), &move);
    QVERIFY(!hovered.isEmpty());
    QCOMPARE(hovered.last().at(0).toInt(), under);
    const int before = grid->cellSize();
    grid->setFocus();
    QTest::keyClick(grid, Qt::Key(key));
    QVERIFY(grid->cellSize() != before);
    const int after = grid->rankAtViewport(cursor);
    QVERIFY2(after >= 0 && cellDistance(grid, after, under) <= 1,
        qPrintable(QStringLiteral("%1 -> %2").arg(under).arg(after)));
}

// Scrolled to the right, the stage labels were scrolled away with the cells.
void TestRanksReading::stageLabelsStayInView()
{
    QVERIFY(showLayout(8192, 8, 16));
    RankGridWidget* grid = m_page->grid();
    m_page->overviewBox()->setChecked(false);
    grid->setCellSize(24);
    grid->horizontalScrollBar()->setValue(grid->horizontalScrollBar()->maximum() / 2);
    grid->verticalScrollBar()->setValue(grid->verticalScrollBar()->maximum() / 2);
    QVERIFY(grid->horizontalScrollBar()->value() > RankGridGeometry::kLabelWidth);
    const QImage image = grid->viewport()->grab().toImage();
    const QColor base = grid->palette().color(QPalette::Base);
    const QColor text = grid->palette().color(QPalette::Text);
    int basePixels = 0;
    int textPixels = 0;
    int all = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < RankGridGeometry::kLabelWidth - 4; ++x) {
            const QColor pixel = image.pixelColor(x, y);
            ++all;
            basePixels += pixel == base ? 1 : 0;
            // Anti-aliased text: closer to the text colour than to the background.
            const auto distance = [](const QColor& a, const QColor& b) {
                return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
            };
            textPixels += distance(pixel, text) < distance(pixel, base) / 2 ? 1 : 0;
        }
    }
    QVERIFY2(basePixels > all / 2, qPrintable(QStringLiteral("%1 of %2 background").arg(basePixels).arg(all)));
    QVERIFY2(textPixels > 20, qPrintable(QStringLiteral("%1 text pixels").arg(textPixels)));
}

// Rank numbers appeared only on cells of 30 px; now on any cell they fit, e.g. two digits in 20 px.
void TestRanksReading::rankNumbersWhereTheyFit()
{
    QVERIFY(showLayout(64, 4, 4));
    RankGridWidget* grid = m_page->grid();
    grid->setCellSize(20);
    grid->horizontalScrollBar()->setValue(0);
    grid->verticalScrollBar()->setValue(0);
    QVERIFY(rankNumbersFit(grid->font(), 20, 63));
    const QImage image = grid->viewport()->grab().toImage();
    const QRect cell
        = grid->rankRect(12).translated(-grid->horizontalScrollBar()->value(), -grid->verticalScrollBar()->value());
    const QRect inner = cell.adjusted(3, 4, -4, -3);
    QSet<QRgb> colours;
    for (int y = inner.top(); y <= inner.bottom(); ++y) {
        for (int x = inner.left(); x <= inner.right(); ++x)
            colours.insert(image.pixel(x, y));
    }
    QVERIFY2(colours.size() > 2, qPrintable(QStringLiteral("%1 colours in rank 12's cell").arg(colours.size())));
}

// At 1280×800 the grid kept the size it was fitted to in the larger window.
void TestRanksReading::fittedGridFitsAgainOnResize()
{
    QVERIFY(showLayout(64, 4, 4));
    RankGridWidget* grid = m_page->grid();
    m_window->resize(1600, 1000);
    QVERIFY(waitUntilIdle(*m_window));
    grid->zoomToFit();
    const int large = grid->cellSize();
    m_window->resize(1280, 800);
    QVERIFY(waitUntilIdle(*m_window));
    QTest::qWait(50);
    QVERIFY2(grid->cellSize() < large, qPrintable(QStringLiteral("%1 -> %2").arg(large).arg(grid->cellSize())));
    QCOMPARE(grid->horizontalScrollBar()->maximum(), 0);
    QCOMPARE(grid->verticalScrollBar()->maximum(), 0);
    // A zoom by hand is kept.
    grid->setCellSize(grid->cellSize() * 2);
    const int chosen = grid->cellSize();
    m_window->resize(1300, 820);
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(grid->cellSize(), chosen);
}

// A double-click on a tracer config's cell opens its editor; it also sent the row's values (before
// the edit) to the layout form.
void TestRanksReading::editingATracerConfigKeepsTheForm()
{
    QVERIFY(showLayout(64, 4, 4));
    TracerPanel* tracer = m_page->tracer();
    BatchConfigModel* model = tracer->model();
    QVERIFY(model->rowCount() > 0);
    QVERIFY(model->plans().front().valid);
    QTableView* table = tracer->table();
    const QModelIndex world = model->index(0, BatchConfigModel::WorldColumn);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(world).center());
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(world).center());
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(m_page->form()->config().world, 64);
    QCOMPARE(m_page->form()->config().tp, 4);
    QCOMPARE(m_page->form()->config().pp, 4);
    if (QWidget* editor = table->focusWidget(); editor && editor != table) {
        QTest::keyClick(editor, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(editor, QStringLiteral("4096"));
        QTest::keyClick(editor, Qt::Key_Return);
    }
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(model->configs().front().world, 4096);
    QCOMPARE(m_page->form()->config().world, 64);

    // Show in Grid takes the row as it is now.
    table->setCurrentIndex(world);
    auto* show = tracer->findChild<QAbstractButton*>(QStringLiteral("showConfigInGridButton"));
    QVERIFY(show);
    QTest::mouseClick(show, Qt::LeftButton);
    QVERIFY(waitUntilIdle(*m_window));
    QCOMPARE(m_page->form()->config().world, 4096);
    QCOMPARE(m_page->form()->config().tp, model->configs().front().tp);
    QCOMPARE(m_page->form()->config().pp, model->configs().front().pp);
}

QTEST_MAIN(TestRanksReading)
#include "tst_ranks_reading.moc"
