// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTreeWidget>

#include "core/ranks/group_kind.h"
#include "ui/ranks/rank_grid_view.h"

namespace stratex::ui {

// The selected rank in words: coordinates, node and its group of every kind. Selecting a group
// row asks the grid to highlight that kind.
class RankDetails : public QTreeWidget {
    Q_OBJECT
public:
    explicit RankDetails(QWidget* parent = nullptr);
    void showRank(const RankGridView* view, int rank);

Q_SIGNALS:
    void highlightKindRequested(ranks::GroupKind kind);
};

} // namespace stratex::ui
