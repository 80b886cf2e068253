// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/chart_reset.h"

#include <QAbstractAxis>
#include <QChart>

namespace stratex::ui {

void resetChart(QChart* chart)
{
    chart->removeAllSeries(); // deletes them
    for (QAbstractAxis* axis : chart->axes()) {
        chart->removeAxis(axis);
        delete axis;
    }
}

} // namespace stratex::ui
