// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include <QRect>

namespace stratex::controllers {
struct TimelineDocument;
}

namespace stratex::ui {

enum class TimelineLane { Compute, Send, Recv, Memory };

// Vertical layout of the Gantt: a time ruler, then per plan a header row and per device a band
// of lanes (compute, send, receive, memory curve). Content coordinates: y = 0 is the top of the
// first plan header, below the ruler; x = 0 is the left edge of the tracks, right of the labels.
class TimelineGeometry {
public:
    static constexpr int kLabelWidth = 200;
    static constexpr int kRulerHeight = 26;
    static constexpr int kPlanHeaderHeight = 22;
    static constexpr int kComputeHeight = 22;
    static constexpr int kCommHeight = 7; // send and receive lanes each
    static constexpr int kMemoryHeight = 30;
    static constexpr int kDeviceGap = 8;
    static constexpr int kDeviceHeight = kComputeHeight + 2 * kCommHeight + kMemoryHeight + kDeviceGap;

    explicit TimelineGeometry(const controllers::TimelineDocument& document);

    int contentHeight() const;
    int planTop(int plan) const;
    QRect planHeader(int plan, int trackWidth) const; // across labels and tracks
    int deviceTop(int plan, int device) const; // top of the compute lane
    // The lane's rectangle in track coordinates (x from 0 to trackWidth).
    QRect lane(int plan, int device, TimelineLane lane, int trackWidth) const;

    struct Hit {
        int plan;
        int device;
        TimelineLane lane;
    };
    std::optional<Hit> hitAt(int contentY) const;

private:
    const controllers::TimelineDocument& m_document;
};

} // namespace stratex::ui
