// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QAbstractItemModel;
class QTableView;

namespace stratex::ui {

// How every table of plans behaves (Search page, both cost models): sortable, one row selected
// at a time, columns sized to their contents, no row numbers (the plans carry their rank).
void setUpPlanTable(QTableView* table, QAbstractItemModel* model);

} // namespace stratex::ui
