// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/planner/plan_compare_model.h"

#include <QLocale>

namespace stratex::ui {

int PlanCompareModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int PlanCompareModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant PlanCompareModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || std::size_t(index.row()) >= m_rows.size())
        return {};
    const planner::PlanCompareRow& row = m_rows[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (index.column() == RecommendedColumn)
            return QString::fromStdString(row.recommended.reason);
        if (index.column() == NormalTimeColumn || index.column() == FastTimeColumn)
            return tr("Median of %1 runs").arg(
                index.column() == NormalTimeColumn ? row.normal_timing_runs : row.fast_timing_runs);
        return row.note.empty() ? QVariant() : QVariant(QString::fromStdString(row.note));
    }
    if (role != Qt::DisplayRole && role != Qt::UserRole)
        return {};
    const bool raw = role == Qt::UserRole; // numbers for sorting and charts
    const auto number = [&](double value, int decimals, bool feasible) -> QVariant {
        if (!feasible)
            return raw ? QVariant() : QVariant(tr("no plan"));
        return raw ? QVariant(value) : QVariant(QLocale::c().toString(value, 'f', decimals));
    };
    switch (index.column()) {
    case BatchColumn:
        return row.global_batch;
    case MicrobatchesColumn:
        return row.microbatches;
    case NormalTimeColumn:
        return number(row.normal_time_ms, 1, true);
    case FastTimeColumn:
        return number(row.fast_time_ms, 1, true);
    case SpeedupColumn:
        return raw ? QVariant(row.speedup) : QVariant(QLocale::c().toString(row.speedup, 'f', 1) + QStringLiteral("×"));
    case NormalMakespanColumn:
        return number(row.normal_makespan_ms, 2, row.normal_feasible);
    case FastMakespanColumn:
        return number(row.fast_makespan_ms, 2, row.fast_feasible);
    case QualityLossColumn:
        return number(row.quality_loss_percent, 2, row.comparable);
    case RecommendedColumn:
        if (!row.recommended.decided)
            return raw ? QVariant() : QVariant(tr("none"));
        return QString::fromUtf8(planner::plannerModeName(row.recommended.mode).data());
    default:
        return {};
    }
}

QVariant PlanCompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole) {
        switch (section) {
        case QualityLossColumn:
            return tr("How much longer fast mode's plan trains than normal's: (fast - normal) / normal makespan");
        case RecommendedColumn:
            return tr("The mode with the shorter iteration once planning overlaps training (DynaPipe plans the next "
                      "batch while this one trains): max(makespan, planning time); fast on a tie");
        case NormalTimeColumn:
        case FastTimeColumn:
            return tr("Planning time: the median of repeated runs (5 below 100 ms, 3 below 1 s)");
        default:
            return {};
        }
    }
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case BatchColumn:
        return tr("Batch");
    case MicrobatchesColumn:
        return tr("Micro-batches");
    case NormalTimeColumn:
        return tr("Normal planning (ms)");
    case FastTimeColumn:
        return tr("Fast planning (ms)");
    case SpeedupColumn:
        return tr("Speedup");
    case NormalMakespanColumn:
        return tr("Normal makespan (ms)");
    case FastMakespanColumn:
        return tr("Fast makespan (ms)");
    case QualityLossColumn:
        return tr("Quality loss (%)");
    case RecommendedColumn:
        return tr("Recommended");
    default:
        return {};
    }
}

void PlanCompareModel::setRows(std::vector<planner::PlanCompareRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

} // namespace stratex::ui
