// SPDX-License-Identifier: GPL-3.0-or-later
// The rank grid widget alone: the view model's layout, geometry round trips, culling, zoom by
// keys and Ctrl+wheel around the cursor, and painting large grids.
#include <QApplication>
#include <QPainter>
#include <QScrollBar>
#include <QTest>
#include <QWheelEvent>

#include "ui/common/categorical_palette.h"
#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_view.h"
#include "ui/ranks/rank_grid_widget.h"

using namespace stratex;
using namespace stratex::ranks;
using namespace stratex::ui;

namespace {
ParallelConfig config(int world, int tp, int pp, const char* order = kDefaultOrder, int gpn = 8)
{
    ParallelConfig c;
    c.world = world;
    c.tp = tp;
    c.pp = pp;
    c.order = order;
    c.gpusPerNode = gpn;
    return c;
}
} // namespace

class TestRankGridWidget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void columns_data();
    void columns();
    void bandsHoldTheirStage_data();
    void bandsHoldTheirStage();
    void geometryRoundTrip_data();
    void geometryRoundTrip();
    void visibleCellsCoverExposedArea();
    void fitChoosesColumnsForTheArea_data();
    void fitChoosesColumnsForTheArea();
    void zoomKeysAndWheel();
    void drawsNodeBoundaries_data();
    void drawsNodeBoundaries();
    void paintsLargeGrid();
};

void TestRankGridWidget::columns_data()
{
    QTest::addColumn<int>("ranksPerBand");
    QTest::addColumn<int>("gpusPerNode");
    QTest::addColumn<int>("columns");
    QTest::newRow("small-band-one-row") << 16 << 8 << 16;
    QTest::newRow("64-one-row") << 64 << 8 << 64;
    QTest::newRow("512-whole-nodes") << 512 << 8 << 48;
    QTest::newRow("8192") << 8192 << 8 << 184;
    QTest::newRow("odd-node") << 600 << 6 << 54;
}

void TestRankGridWidget::columns()
{
    QFETCH(int, ranksPerBand);
    QFETCH(int, gpusPerNode);
    QFETCH(int, columns);
    QCOMPARE(gridColumns(ranksPerBand, gpusPerNode), columns);
    if (columns < ranksPerBand)
        QCOMPARE(columns % gpusPerNode, 0);
}

void TestRankGridWidget::bandsHoldTheirStage_data()
{
    QTest::addColumn<ParallelConfig>("layout");
    QTest::newRow("default") << config(256, 4, 4);
    QTest::newRow("pp-before-dp") << config(256, 4, 4, "tp-cp-ep-pp-dp");
    QTest::newRow("pp-first") << config(64, 2, 4, "pp-tp-dp");
}

void TestRankGridWidget::bandsHoldTheirStage()
{
    QFETCH(ParallelConfig, layout);
    const RankGridView view = buildRankGridView(layout, TraceSelection::Dense);
    const RankGridGeometry geometry(view, 10, 24);
    std::vector<int> seen(std::size_t(view.world()), 0);
    for (int row = 0; row < view.stages() * geometry.rowsPerBand(); ++row) {
        int previous = -1;
        for (int column = 0; column < geometry.columns(); ++column) {
            const int rank = geometry.rankAt(row, column);
            if (rank < 0)
                continue;
            QCOMPARE(view.stageOf(rank), row / geometry.rowsPerBand());
            QCOMPARE(geometry.rowOf(rank), row);
            QCOMPARE(geometry.columnOf(rank), column);
            QVERIFY(rank > previous); // ascending inside a band
            previous = rank;
            ++seen[std::size_t(rank)];
        }
    }
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    int traced = 0;
    for (char t : view.traced)
        traced += t;
    QCOMPARE(traced, layout.pp);
}

void TestRankGridWidget::geometryRoundTrip_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<int>("cellSize");
    QTest::newRow("64-cell14") << 64 << 14;
    QTest::newRow("8192-cell3") << 8192 << 3;
    QTest::newRow("8192-cell40") << 8192 << 40;
}

void TestRankGridWidget::geometryRoundTrip()
{
    QFETCH(int, world);
    QFETCH(int, cellSize);
    const RankGridView view = buildRankGridView(config(world, 8, 4), TraceSelection::Dense);
    const RankGridGeometry geometry(view, cellSize);
    for (int rank = 0; rank < world; rank += std::max(1, world / 97)) {
        const QRect r = geometry.rankRect(rank);
        QCOMPARE(geometry.rankAt(r.center()), rank);
        QCOMPARE(geometry.rankAt(r.topLeft()), rank);
        QCOMPARE(geometry.rankAt(r.bottomRight()), rank);
        QVERIFY(QRect(QPoint(0, 0), geometry.contentSize()).contains(r));
    }
    QCOMPARE(geometry.rankAt(QPoint(2, 2)), -1); // the label column
    // The gap between two bands belongs to no rank.
    const QRect band0 = geometry.bandRect(0);
    QCOMPARE(geometry.rankAt(QPoint(band0.left() + 1, band0.bottom() + 2)), -1);
}

void TestRankGridWidget::visibleCellsCoverExposedArea()
{
    const RankGridView view = buildRankGridView(config(8192, 8, 16), TraceSelection::Dense);
    const RankGridGeometry geometry(view, 10);
    const QRect area(300, 500, 400, 300);
    int firstRow, lastRow, firstColumn, lastColumn;
    geometry.visibleCells(area, firstRow, lastRow, firstColumn, lastColumn);
    // Every rank whose cell intersects the area is inside the reported range, and the range is small.
    for (int rank = 0; rank < view.world(); ++rank) {
        if (!geometry.rankRect(rank).intersects(area))
            continue;
        QVERIFY(geometry.rowOf(rank) >= firstRow && geometry.rowOf(rank) <= lastRow);
        QVERIFY(geometry.columnOf(rank) >= firstColumn && geometry.columnOf(rank) <= lastColumn);
    }
    QVERIFY((lastRow - firstRow + 1) * (lastColumn - firstColumn + 1) < 2000);
}

void TestRankGridWidget::fitChoosesColumnsForTheArea_data()
{
    QTest::addColumn<int>("world");
    QTest::addColumn<QSize>("area");
    QTest::newRow("128-wide") << 128 << QSize(1000, 400);
    QTest::newRow("8192-wide") << 8192 << QSize(940, 400);
    QTest::newRow("8192-tall") << 8192 << QSize(400, 1200);
    QTest::newRow("131072") << 131072 << QSize(1400, 900);
}

void TestRankGridWidget::fitChoosesColumnsForTheArea()
{
    QFETCH(int, world);
    QFETCH(QSize, area);
    const RankGridView view = buildRankGridView(config(world, 8, 16), TraceSelection::Dense);
    const auto [columns, cell] = RankGridGeometry::fit(view, area, 1, 64);
    const RankGridGeometry geometry(view, cell, columns);
    // It fits, whole nodes per row when a band wraps...
    QVERIFY(geometry.contentSize().width() <= area.width());
    QVERIFY(geometry.contentSize().height() <= area.height());
    if (columns < view.ranksPerBand)
        QCOMPARE(columns % 8, 0);
    // ...and no other column count allows bigger cells.
    for (int other = 8; other <= view.ranksPerBand; other += 8) {
        const QSize bigger = RankGridGeometry(view, cell + 1, other).contentSize();
        QVERIFY(bigger.width() > area.width() || bigger.height() > area.height());
    }
}

void TestRankGridWidget::zoomKeysAndWheel()
{
    RankGridWidget widget;
    widget.resize(800, 600);
    widget.setView(std::make_shared<const RankGridView>(buildRankGridView(config(8192, 8, 16), TraceSelection::Dense)));
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.setCellSize(10);
    QTest::keyClick(&widget, Qt::Key_Plus);
    QVERIFY(widget.cellSize() > 10);
    const int zoomed = widget.cellSize();
    QTest::keyClick(&widget, Qt::Key_Minus);
    QVERIFY(widget.cellSize() < zoomed);

    // Ctrl+wheel zooms around the cursor: the rank under it stays under it (away from the content
    // edges, where the scroll range clamps).
    widget.resize(400, 300);
    widget.setCellSize(12);
    widget.horizontalScrollBar()->setValue(100);
    widget.verticalScrollBar()->setValue(300);
    const QPoint cursor(200, 150);
    const int under = widget.rankAtViewport(cursor);
    QVERIFY(under >= 0);
    QWheelEvent wheel(QPointF(cursor), QPointF(widget.viewport()->mapToGlobal(cursor)), QPoint(), QPoint(0, 120),
        Qt::NoButton, Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget.viewport(), &wheel);
    QCOMPARE(widget.cellSize(), 15);
    const int after = widget.rankAtViewport(cursor);
    const RankGridGeometry geometry = widget.geometry();
    QVERIFY2(std::abs(geometry.rowOf(after) - geometry.rowOf(under)) <= 1
            && std::abs(geometry.columnOf(after) - geometry.columnOf(under)) <= 1,
        qPrintable(QStringLiteral("%1 -> %2").arg(under).arg(after)));

    widget.resize(800, 600);
    QTest::keyClick(&widget, Qt::Key_0); // fit
    QCOMPARE(widget.horizontalScrollBar()->maximum(), 0);
    QCOMPARE(widget.verticalScrollBar()->maximum(), 0);
}

void TestRankGridWidget::drawsNodeBoundaries_data()
{
    QTest::addColumn<int>("columns");
    QTest::addColumn<int>("left"); // rank whose right edge is checked
    QTest::addColumn<bool>("boundary");
    // World 64, PP 4: 16 ranks per band on nodes of 8.
    QTest::newRow("one-row-7|8") << 16 << 7 << true;
    QTest::newRow("one-row-6|7") << 16 << 6 << false;
    QTest::newRow("wrapped-3|4-same-node") << 4 << 3 << false; // 3 is at a row end; no right neighbour
}

void TestRankGridWidget::drawsNodeBoundaries()
{
    QFETCH(int, columns);
    QFETCH(int, left);
    QFETCH(bool, boundary);
    const RankGridView view = buildRankGridView(config(64, 4, 4), TraceSelection::Dense);
    RankGridStyle style;
    style.cellSize = 20;
    style.columns = columns;
    style.palette.setColor(QPalette::Text, Qt::black);
    style.palette.setColor(QPalette::Base, Qt::white);
    style.palette.setColor(QPalette::AlternateBase, Qt::white);
    const RankGridGeometry geometry(view, style.cellSize, columns);
    QImage image(geometry.contentSize(), QImage::Format_ARGB32_Premultiplied);
    QPainter painter(&image);
    paintRankGrid(painter, view, style, image.rect());
    painter.end();
    const QRect cell = geometry.rankRect(left);
    const QColor edge = image.pixelColor(cell.right(), cell.center().y() + 4);
    QCOMPARE(edge == QColor(Qt::black), boundary);
    if (columns == 4) {
        // Wrapped rows: rank 3 sits above rank 7, same node, no line; rank 7 above 11, other node, a line.
        QVERIFY(image.pixelColor(cell.center().x(), cell.bottom()) != QColor(Qt::black));
        const QRect seven = geometry.rankRect(7);
        QCOMPARE(image.pixelColor(seven.center().x() - 4, seven.bottom()), QColor(Qt::black));
    }
}

void TestRankGridWidget::paintsLargeGrid()
{
    const auto view
        = std::make_shared<const RankGridView>(buildRankGridView(config(131072, 8, 16), TraceSelection::Dense));
    RankGridWidget widget;
    widget.resize(900, 700);
    widget.setView(view);
    widget.setCellSize(6);
    const QImage image = widget.viewport()->grab().toImage();
    QVERIFY(!image.isNull());
    // Rank 1 is in TP group 0; rank 8 in TP group 1. Rank 0, traced, is drawn in the text colour
    // at this small size.
    QCOMPARE(image.pixelColor(widget.rankRect(1).topLeft() + QPoint(1, 1)), categoricalColor(0));
    QCOMPARE(image.pixelColor(widget.rankRect(8).topLeft() + QPoint(1, 1)), categoricalColor(1));
    QCOMPARE(image.pixelColor(widget.rankRect(0).topLeft() + QPoint(1, 1)), widget.palette().color(QPalette::Text));
}

QTEST_MAIN(TestRankGridWidget)
#include "tst_rank_grid_widget.moc"
