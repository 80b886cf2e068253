// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/timeline/timeline_zoom.h"

#include <algorithm>

namespace stratex::ui {

void TimelineZoom::setTrace(TimeRange trace)
{
    if (!(trace.span() > 0))
        trace.end_us = trace.start_us + kMinSpanUs;
    m_trace = trace;
    fit();
}

void TimelineZoom::setVisible(TimeRange visible)
{
    double span = std::clamp(visible.span(), kMinSpanUs, m_trace.span());
    double start = std::clamp(visible.start_us, m_trace.start_us, m_trace.end_us - span);
    m_visible = { start, start + span };
}

double TimelineZoom::mapTimeToX(double time_us, double width) const
{
    return (time_us - m_visible.start_us) / m_visible.span() * width;
}

double TimelineZoom::mapXToTime(double x, double width) const
{
    return m_visible.start_us + x / std::max(1.0, width) * m_visible.span();
}

void TimelineZoom::zoomAround(double anchor_us, double factor)
{
    if (!(factor > 0))
        return;
    const double span = std::clamp(m_visible.span() / factor, kMinSpanUs, m_trace.span());
    // Keep the anchor at the same relative position in the view.
    const double relative = m_visible.span() > 0 ? (anchor_us - m_visible.start_us) / m_visible.span() : 0.5;
    const double start = anchor_us - relative * span;
    setVisible({ start, start + span });
}

void TimelineZoom::pan(double fraction)
{
    panBy(fraction * m_visible.span());
}

void TimelineZoom::panBy(double delta_us)
{
    setVisible({ m_visible.start_us + delta_us, m_visible.end_us + delta_us });
}

void TimelineZoom::fit()
{
    m_visible = m_trace;
}

} // namespace stratex::ui
