// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/plan_table_model.h"

#include <QLocale>

namespace stratex::ui {

using galvatron::Plan;

QString embeddingSummary(const Plan& plan)
{
    QStringList parts { QStringLiteral("vtp %1").arg(plan.vtp()) };
    if (plan.vsp())
        parts << QObject::tr("Ulysses");
    parts << (plan.embedSdp() ? QObject::tr("ZeRO-3")
                              : QString::fromUtf8(galvatron::dpTypeName(plan.default_dp_type).data()));
    return parts.join(QStringLiteral(" · "));
}

int PlanTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_plans.size());
}

int PlanTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const Plan* PlanTableModel::plan(int row) const
{
    return row >= 0 && std::size_t(row) < m_plans.size() ? &m_plans[std::size_t(row)] : nullptr;
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const
{
    const Plan* p = index.isValid() ? plan(index.row()) : nullptr;
    if (!p)
        return {};
    if (role == Qt::TextAlignmentRole)
        return int(
            (index.column() == LayersColumn || index.column() == EmbeddingColumn ? Qt::AlignLeft : Qt::AlignRight)
            | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == LayersColumn)
        return QString::fromStdString(p->layerSummary());
    const bool raw = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !raw)
        return {};
    switch (index.column()) {
    case RankColumn:
        return index.row() + 1;
    case ThroughputColumn:
        return raw ? QVariant(p->throughput_samples_per_s)
                   : QVariant(QLocale::c().toString(p->throughput_samples_per_s, 'f', 3));
    case TimeColumn:
        return raw ? QVariant(p->time_cost_s) : QVariant(QLocale::c().toString(p->time_cost_s, 'f', 4));
    case MemoryColumn:
        return p->peakMemoryMb();
    case PpColumn:
        return p->pp;
    case ModeColumn:
        return QString::fromUtf8(galvatron::tpSpModeName(p->tp_sp_mode).data());
    case BatchColumn:
        return p->gbsz;
    case ChunksColumn:
        return p->chunks;
    case LayersColumn:
        return QString::fromStdString(p->layerSummary());
    case EmbeddingColumn:
        return embeddingSummary(*p);
    default:
        return {};
    }
}

QVariant PlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RankColumn:
        return tr("#");
    case ThroughputColumn:
        return tr("Samples/s");
    case TimeColumn:
        return tr("Time/iter (s)");
    case MemoryColumn:
        return tr("Peak memory (MB)");
    case PpColumn:
        return tr("PP");
    case ModeColumn:
        return tr("TP/SP");
    case BatchColumn:
        return tr("Global batch");
    case ChunksColumn:
        return tr("Micro-batches");
    case LayersColumn:
        return tr("Layers (pp-tp-dp, f ZeRO-3, c ckpt)");
    case EmbeddingColumn:
        return tr("Embedding / LM head");
    default:
        return {};
    }
}

void PlanTableModel::setPlans(std::vector<Plan> plans)
{
    beginResetModel();
    m_plans = std::move(plans);
    endResetModel();
}

} // namespace stratex::ui
