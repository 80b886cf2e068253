// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QLayout;
class QWidget;

namespace stratex::ui {

// The one layout of both engines' results panels, so that they stay symmetric: above a vertical
// splitter the best plan's line, the search's statistics, the panel's button bar and the plan
// table; below it the selected plan's layer strip and its memory per stage.
struct ResultsPanelParts {
    QWidget* best;
    QWidget* stats;
    QLayout* bar;
    QWidget* table;
    QWidget* strip;
    QWidget* memory;
};
void layOutResultsPanel(QWidget* panel, const ResultsPanelParts& parts);

} // namespace stratex::ui
