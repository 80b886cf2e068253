// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/planner/planner_compare.h"

namespace stratex::ui {

// The fast-vs-normal table: one row per global batch, the columns of `stratex-cli plan-compare`,
// the decision first: the quality fast mode loses and the mode recommended (planner::recommendMode)
// come right after the batch, so they are on screen without scrolling at 1280x800 (issue 24
// finding 10), the times and makespans they are made of after them.
class PlanCompareModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        BatchColumn,
        MicrobatchesColumn,
        QualityLossColumn,
        RecommendedColumn,
        SpeedupColumn,
        NormalTimeColumn,
        FastTimeColumn,
        NormalMakespanColumn,
        FastMakespanColumn,
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
