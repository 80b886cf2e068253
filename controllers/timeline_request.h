// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include <QList>
#include <QString>
#include <QStringList>

#include "core/sim/timeline.h"

namespace stratex::controllers {

// A timeline another page wants shown on the Timeline page (several are compared on one axis).
struct TimelineRequest {
    QString name;
    std::shared_ptr<const sim::Timeline> timeline;
    double memoryLimitMb = 0;
    // Names of the devices' rows ("stage 0 · measured"); empty: "device N".
    QStringList deviceLabels;
};

using TimelineRequests = QList<TimelineRequest>;

} // namespace stratex::controllers
