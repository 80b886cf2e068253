// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/results_panel_layout.h"

#include <QSplitter>
#include <QVBoxLayout>
#include <QWidget>

namespace stratex::ui {

void layOutResultsPanel(QWidget* panel, const ResultsPanelParts& parts)
{
    auto* top = new QWidget(panel);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(parts.best);
    topLayout->addWidget(parts.stats);
    topLayout->addLayout(parts.bar);
    topLayout->addWidget(parts.table, 1);
    auto* detail = new QWidget(panel);
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(parts.strip);
    detailLayout->addWidget(parts.memory, 1);
    auto* splitter = new QSplitter(Qt::Vertical, panel);
    splitter->addWidget(top);
    splitter->addWidget(detail);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

} // namespace stratex::ui
