// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace stratex::ui {

struct TimeRange {
    double start_us = 0;
    double end_us = 0;
    double span() const { return end_us - start_us; }
    bool operator==(const TimeRange&) const = default;
};

// The time window of a timeline view: the whole trace and the visible part of it, and the
// mapping between time and pixels. A value type so the mapping can be tested on its own
// (as hotspot tests its TimeLineData).
class TimelineZoom {
public:
    static constexpr double kMinSpanUs = 1.0;

    void setTrace(TimeRange trace); // also fits the view
    TimeRange trace() const { return m_trace; }
    TimeRange visible() const { return m_visible; }
    void setVisible(TimeRange visible); // clamped into the trace, at least kMinSpanUs wide

    // x in [0, width] <-> time in the visible range.
    double mapTimeToX(double time_us, double width) const;
    double mapXToTime(double x, double width) const;

    // factor > 1 zooms in (the visible span shrinks by `factor`) keeping `anchor_us` in place.
    void zoomAround(double anchor_us, double factor);
    // Moves the view by a fraction of its width (negative: towards the start).
    void pan(double fraction);
    void panBy(double delta_us);
    void fit();
    bool isFitted() const { return m_visible == m_trace; }

private:
    TimeRange m_trace { 0, 1 };
    TimeRange m_visible { 0, 1 };
};

} // namespace stratex::ui
