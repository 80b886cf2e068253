// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/plan_table_view.h"

#include <QHeaderView>
#include <QTableView>

namespace stratex::ui {

void setUpPlanTable(QTableView* table, QAbstractItemModel* model)
{
    table->setModel(model);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->setAlternatingRowColors(true);
    // Every column as wide as its header and its cells; the table scrolls sideways. (A stretched
    // last column got 100 px once the others filled the view, cutting "Also (exact ties)" and its
    // cells at 1280 × 800: issue 24.)
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(false);
    table->verticalHeader()->hide();
}

} // namespace stratex::ui
