// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/planner/planner_compare.h"

namespace stratex::ui {

// The fast-vs-normal table: one row per global batch, the columns of `stratex-cli plan-compare`.
class PlanCompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        BatchColumn,
        MicrobatchesColumn,
        NormalTimeColumn,
        FastTimeColumn,
        SpeedupColumn,
        NormalMakespanColumn,
        FastMakespanColumn,
        QualityLossColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setRows(std::vector<planner::PlanCompareRow> rows);
    const std::vector<planner::PlanCompareRow>& rows() const { return m_rows; }

private:
    std::vector<planner::PlanCompareRow> m_rows;
};

} // namespace stratex::ui
