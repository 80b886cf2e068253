// SPDX-License-Identifier: GPL-3.0-or-later
// Rank grid painting: one frame of an 8192-rank grid (must stay well under 16 ms), the whole
// 8192-rank grid, and building the view model off the GUI thread.
#include <benchmark/benchmark.h>
#include <map>

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include "ui/ranks/rank_grid_painter.h"
#include "ui/ranks/rank_grid_view.h"

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

// ---- Pipeline timeline ----------------------------------------------------------------------

#include "core/sim/simulator.h"
#include "ui/timeline/timeline_painter.h"

#include "controllers/timeline_document.h"

namespace {

using namespace stratex::sim;
using namespace stratex::controllers;

// 8 devices, one layer each, `microbatches` micro-batches of varying cost with transfers: about
// 44 ops per micro-batch (8 F, 8 B, 14 sends, 14 receives).
const TimelineDocument& bigTimeline(int microbatches)
{
    static std::map<int, TimelineDocument> cache;
    auto it = cache.find(microbatches);
    if (it != cache.end())
        return it->second;
    SimulationInput input;
    for (int d = 0; d < 8; ++d)
        input.device_assignment.push_back(d);
    input.comm.intra_node_bw_gbps = 400;
    input.comm.intra_node_lat_us = 5;
    for (int m = 0; m < microbatches; ++m) {
        MicrobatchSpec mb;
        mb.id = m;
        LayerCost layer;
        layer.fw_us = 800 + (m * 37) % 500;
        layer.bw_us = 2 * layer.fw_us;
        layer.stored_mb = 50;
        layer.peak_mb = 80;
        layer.fw_comm_mb = 4;
        layer.bw_comm_mb = 4;
        mb.layers.assign(8, layer);
        input.microbatches.push_back(mb);
    }
    TimelineDocument document;
    SimulationResult result = simulate(input, ScheduleKind::OneFOneB);
    document.plans.push_back(makeTimelinePlanView(QStringLiteral("big"), std::move(result.timeline)));
    return cache.emplace(microbatches, std::move(document)).first->second;
}

void paintTimelineFrame(benchmark::State& state, double visibleFraction)
{
    guiApp();
    const TimelineDocument& document = bigTimeline(int(state.range(0)));
    TimelineStyle style;
    style.zoom.setTrace({ 0, document.makespanUs() });
    const double middle = document.makespanUs() / 2;
    const double span = document.makespanUs() * visibleFraction;
    style.zoom.setVisible({ middle - span / 2, middle + span / 2 });
    const QSize size(1400, 900);
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    for (auto _ : state) {
        QPainter painter(&image);
        paintTimeline(painter, document, style, size);
    }
    state.counters["ops"] = double(document.opCount());
}

// The whole step in one frame: every op is in range; sub-pixel ops merge per pixel.
void BM_PaintTimelineFitted(benchmark::State& state)
{
    paintTimelineFrame(state, 1.0);
}
BENCHMARK(BM_PaintTimelineFitted)->Arg(2300)->Unit(benchmark::kMillisecond);

// Zoomed to 2 % of the step: culling skips everything else.
void BM_PaintTimelineZoomed(benchmark::State& state)
{
    paintTimelineFrame(state, 0.02);
}
BENCHMARK(BM_PaintTimelineZoomed)->Arg(2300)->Unit(benchmark::kMillisecond);

} // namespace
