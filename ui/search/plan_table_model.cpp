// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/plan_table_model.h"

#include <QLocale>

#include "core/common/plan_figures.h"
#include "core/galvatron/plan_ties.h"

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

namespace {

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

} // namespace

int PlanTableModel::plannedPeakMb(int row) const
{
    const Plan* p = plan(row);
    return p ? int(figures::plannedPeakMb(p->peakMemoryMb(), m_reserveMb)) : 0;
}

const std::vector<Plan>& PlanTableModel::ties(int row) const
{
    static const std::vector<Plan> none;
    return row >= 0 && std::size_t(row) < m_ties.size() ? m_ties[std::size_t(row)] : none;
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
    if (role == Qt::ToolTipRole && index.column() == MemoryColumn)
        return tr("%1 MB planned + %2 MB allocator reserve = %3 MB, the memory_cost Galvatron's own output reports")
            .arg(plannedPeakMb(index.row()))
            .arg(m_reserveMb)
            .arg(p->peakMemoryMb());
    if (role == Qt::ToolTipRole && index.column() == TiesColumn) {
        QStringList lines;
        for (const Plan& tie : ties(index.row()))
            lines << tr("pp %1 · %2 · %3 micro-batches · %4 · embedding %5")
                         .arg(tie.pp)
                         .arg(QString::fromUtf8(galvatron::tpSpModeName(tie.tp_sp_mode).data()))
                         .arg(tie.chunks)
                         .arg(QString::fromStdString(tie.layerSummary()), embeddingSummary(tie));
        return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
    }
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
        return plannedPeakMb(index.row());
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
    case TiesColumn: {
        std::vector<const Plan*> tied;
        for (const Plan& tie : ties(index.row()))
            tied.push_back(&tie);
        return raw ? QVariant(int(tied.size())) : QVariant(QString::fromStdString(galvatron::tiesLine(*p, tied)));
    }
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
        return QString::fromStdString(figures::header(figures::Figure::IterationTime, "s"));
    case MemoryColumn:
        return QString::fromStdString(figures::header(figures::Figure::PlannedPeak, "MB"));
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
    case TiesColumn:
        return tr("Also (exact ties)");
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
        return QString(text(figures::toolTip(figures::Figure::IterationTime))
            + tr(" Galvatron's cost model times the whole iteration."));
    case MemoryColumn:
        return QString(text(figures::toolTip(figures::Figure::PlannedPeak))
            + tr(" In MB (2^20 bytes, Galvatron's unit), the fullest stage's. Galvatron's allocator reserve (20 % "
                 "of a GPU above 20 GB) is not included: the memory chart draws it above the search's limit."));
    case TiesColumn:
        return tr("Plans predicted exactly equal in iteration time and planned peak: one row, the others named by "
                  "what sets them apart");
    case LayersColumn:
        return layerNotationLegend();
    default:
        return {};
    }
}

void PlanTableModel::setPlans(std::vector<Plan> plans, int reserveMb)
{
    beginResetModel();
    m_reserveMb = reserveMb;
    m_plans.clear();
    m_ties.clear();
    for (const galvatron::TiedPlans& group : galvatron::groupExactTies(plans)) {
        m_plans.push_back(plans[group.plan]);
        std::vector<Plan> tied;
        for (std::size_t index : group.ties)
            tied.push_back(plans[index]);
        m_ties.push_back(std::move(tied));
    }
    endResetModel();
}

} // namespace stratex::ui
