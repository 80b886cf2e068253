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
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
        return columnToolTip(section);
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
        return tr("Layers");
    case EmbeddingColumn:
        return tr("Embedding / LM head");
    default:
        return {};
    }
}

QString PlanTableModel::layerNotationLegend()
{
    // Galvatron's notation (core/galvatron/strategy.cpp, notationOf).
    return tr("<b>Strategy per layer</b>, in Galvatron's notation <tt>pp-tp-dp</tt>, runs of equal layers "
              "joined: <tt>2-4*-2-sp x3</tt> is three layers with pipeline degree 2, tensor (or sequence) "
              "parallel degree 4 and data-parallel degree 2."
              "<ul><li><tt>*</tt> after the TP degree: its ranks are consecutive (inside a node)</li>"
              "<li><tt>f</tt> after the DP degree: ZeRO-3 (fully sharded); without it ZeRO-2 or DDP</li>"
              "<li><tt>-c</tt>: activation checkpointing (the layer is recomputed in the backward pass)</li>"
              "<li><tt>-sp</tt>: Ulysses sequence parallelism in place of Megatron tensor parallelism</li>"
              "<li><tt>x3</tt>: three consecutive layers with this strategy</li></ul>");
}

QVariant PlanTableModel::columnToolTip(int section)
{
    switch (section) {
    case TimeColumn:
        return tr("Seconds per training iteration: the pipeline's makespan for the global batch, as Galvatron's "
                  "cost model times it");
    case MemoryColumn:
        return tr("Peak memory of the fullest stage, in MB (1e6 bytes), with Galvatron's allocator reserve "
                  "(20 % above 20 GB) included");
    case LayersColumn:
        return layerNotationLegend();
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
