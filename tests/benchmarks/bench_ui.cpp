// SPDX-License-Identifier: GPL-3.0-or-later
// Rank grid painting: one frame of an 8192-rank grid (must stay well under 16 ms), the whole
// 8192-rank grid, and building the view model off the GUI thread.
#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_view.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <benchmark/benchmark.h>

using namespace stratex::ranks;
using namespace stratex::ui;

namespace {

// Painting text needs a QGuiApplication; benchmark_main does not make one.
QGuiApplication& guiApp()
{
    static int argc = 1;
    static char name[] = "stratex-bench";
    static char* argv[] = { name, nullptr };
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static QGuiApplication app(argc, argv);
    return app;
}

ParallelConfig layout(int world)
{
    ParallelConfig config;
    config.world = world;
    config.tp = 8;
    config.pp = 16;
    return config;
}

void BM_BuildRankGridView(benchmark::State& state)
{
    const ParallelConfig config = layout(int(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(buildRankGridView(config, TraceSelection::Dense));
}
BENCHMARK(BM_BuildRankGridView)->Arg(8192)->Arg(131072)->Unit(benchmark::kMillisecond);

void paintGrid(benchmark::State& state, int world, int cellSize, QSize frame)
{
    guiApp();
    const RankGridView view = buildRankGridView(layout(world), TraceSelection::Dense);
    RankGridStyle style;
    style.cellSize = cellSize;
    style.selectedRank = 4242 % world;
    style.highlightKind = GroupKind::Dp;
    const QSize content = RankGridGeometry(view, cellSize).contentSize();
    const QSize size = frame.isEmpty() ? content : frame;
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        QPainter painter(&image);
        paintRankGrid(painter, view, style, QRect(QPoint(0, 0), size));
    }
    state.counters["pixels"] = double(size.width()) * size.height();
}

// The grid fitted into a 1400x900 window: every one of the 8192 cells is painted.
void BM_PaintGrid8192FittedFrame(benchmark::State& state)
{
    paintGrid(state, 8192, 8, QSize(1400, 900));
}
BENCHMARK(BM_PaintGrid8192FittedFrame)->Unit(benchmark::kMillisecond);

// Zoomed in (cell 14 px): a frame shows a part of the grid.
void BM_PaintGrid8192ZoomedFrame(benchmark::State& state)
{
    paintGrid(state, 8192, 14, QSize(1400, 900));
}
BENCHMARK(BM_PaintGrid8192ZoomedFrame)->Unit(benchmark::kMillisecond);

// The whole grid at 6 px cells (export-like).
void BM_PaintGrid8192Whole(benchmark::State& state)
{
    paintGrid(state, 8192, 6, QSize());
}
BENCHMARK(BM_PaintGrid8192Whole)->Unit(benchmark::kMillisecond);

// 131072 ranks, one zoomed-out frame.
void BM_PaintGrid131072Frame(benchmark::State& state)
{
    paintGrid(state, 131072, 3, QSize(1400, 900));
}
BENCHMARK(BM_PaintGrid131072Frame)->Unit(benchmark::kMillisecond);

} // namespace
