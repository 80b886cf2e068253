// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controllers/rank_grid_view.h"

namespace stratex::ui {

// The layout the grid draws is computed below the widgets (controllers::RanksController).
using controllers::buildRankGridView;
using controllers::overviewOf;
using controllers::RankGridView;

// Cells per row for `ranksPerBand` ranks on nodes of `gpusPerNode`: one row for small bands,
// otherwise a multiple of the node size so node boundaries line up in columns. How a band wraps
// into rows is the widget's choice (RankGridGeometry).
int gridColumns(int ranksPerBand, int gpusPerNode);

} // namespace stratex::ui
