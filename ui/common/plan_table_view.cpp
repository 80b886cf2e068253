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
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
}

} // namespace stratex::ui
