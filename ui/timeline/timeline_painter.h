// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <utility>
#include <vector>

#include <QColor>
#include <QPalette>
#include <QSize>

#include "core/sim/timeline.h"
#include "ui/timeline/timeline_zoom.h"

class QPainter;

namespace stratex::controllers {
struct TimelineDocument;
}

namespace stratex::ui {

struct TimelineStyle {
    TimelineZoom zoom;
    int scrollY = 0; // vertical scroll of the rows (the ruler stays put)
    int selectedMicrobatch = -1; // highlighted on every device of every plan; -1 = none
    QPalette palette;
};

// Colour of an op: a hue per kind (F blue, B orange, W green, send purple, receive teal) and a
// lightness step per micro-batch so neighbours stay apart: kTimelineShades shades cycling with the
// micro-batch id (micro-batch m has shade m mod kTimelineShades).
inline constexpr int kTimelineShades = 4;
QColor timelineOpColor(const sim::TimelineOp& op);
QColor timelineOpColor(sim::OpKind kind, int microbatch);
// The memory curve's colour.
QColor timelineMemoryColor();

// The index range [first, last) of ops overlapping [t0, t1] in a lane sorted by start whose ops
// do not overlap each other (so their ends are sorted too).
std::pair<std::size_t, std::size_t> visibleOps(const std::vector<sim::TimelineOp>& ops, double t0_us, double t1_us);

// The op of a lane under `time_us`, within `tolerance_us` of its edges, or nullptr.
const sim::TimelineOp* opAtTime(const std::vector<sim::TimelineOp>& ops, double time_us, double tolerance_us);

// Paints the view of size `size`: ruler, labels with busy/bubble %, plans and devices, ops
// (culled to the visible time range, sub-pixel ops merged per pixel), memory curves.
void paintTimeline(
    QPainter& painter, const controllers::TimelineDocument& document, const TimelineStyle& style, QSize size);

// A duration in the unit that reads best: "850 µs", "12.50 ms", "57.147 s" (the ruler goes from
// ms to s the same way, so "55000 ms" never shows).
QString formatDuration(double us);

} // namespace stratex::ui
