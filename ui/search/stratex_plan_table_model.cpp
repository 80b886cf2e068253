// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/search/stratex_plan_table_model.h"

#include <QLocale>

#include "core/common/plan_figures.h"
#include "core/hardware/cluster_description.h"
#include "core/megatron/memory_margin.h"
#include "core/megatron/strategy_search.h"

namespace stratex::ui {

using megatron::Estimate;

namespace {

QString figureText(std::string_view text)
{
    return QString::fromUtf8(text.data(), qsizetype(text.size()));
}

QString name(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

// The layout's sort key: how much lighter (negative) or heavier the end stages are.
int layoutKey(const megatron::ParallelStrategy& s)
{
    return s.first_stage_layers * 1000 + s.last_stage_layers;
}

} // namespace

QString stratexLayoutText(const megatron::ParallelStrategy& s, int numLayers)
{
    if (s.pp <= 1 || (s.first_stage_layers == 0 && s.last_stage_layers == 0))
        return QObject::tr("even");
    const std::vector<int> layers = megatron::stageLayerCounts(s, numLayers);
    if (layers.empty())
        return QObject::tr("even");
    return QObject::tr("first %1 / last %2").arg(layers.front()).arg(layers.back());
}

int StratexPlanTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_plans.size());
}

int StratexPlanTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const Estimate* StratexPlanTableModel::plan(int row) const
{
    return row >= 0 && std::size_t(row) < m_plans.size() ? &m_plans[std::size_t(row)] : nullptr;
}

const megatron::PlanRobustness* StratexPlanTableModel::robustness(int row) const
{
    return row >= 0 && std::size_t(row) < m_robustness.size() ? &m_robustness[std::size_t(row)] : nullptr;
}

const megatron::PlanEvidence* StratexPlanTableModel::evidence(int row) const
{
    return row >= 0 && std::size_t(row) < m_evidence.size() ? &m_evidence[std::size_t(row)] : nullptr;
}

QVariant StratexPlanTableModel::evidenceData(int row, int role) const
{
    const megatron::PlanEvidence* e = evidence(row);
    if (!e)
        return role == Qt::UserRole ? QVariant(0) : QVariant();
    if (role == Qt::UserRole)
        return int(e->notes.size());
    // The memory margin beside the evidence (megatron::memoryMargin, the CLI's line too).
    const Estimate* shown = plan(row);
    const megatron::MemoryMargin margin = shown ? megatron::memoryMargin(*shown) : megatron::MemoryMargin {};
    if (role == Qt::ToolTipRole) {
        QString text;
        if (!e->extrapolated) {
            text = tr("Inside what the reference runs cover (resources/reference-runs)");
        } else {
            text = tr("Extrapolated: ranked as if %1 % slower, outside what the reference runs cover:")
                       .arg(megatron::kExtrapolationUncertainty * 100, 0, 'f', 0);
            for (const std::string& note : e->notes)
                text += QStringLiteral("\n• ") + QString::fromStdString(note);
        }
        if (!m_modelTimeNote.isEmpty())
            text += QStringLiteral("\n") + m_modelTimeNote;
        if (!margin.note.empty())
            text += QStringLiteral("\n") + QString::fromStdString(margin.note);
        return text;
    }
    const QString evidenceText = e->extrapolated ? tr("⚠ extrapolated") : tr("covered");
    return margin.tight ? evidenceText + tr(" · ⚠ memory tight") : evidenceText;
}

QVariant StratexPlanTableModel::twinsData(int row, int role) const
{
    const Estimate* e = plan(row);
    const std::vector<megatron::ParallelStrategy>* twins
        = row >= 0 && std::size_t(row) < m_twins.size() ? &m_twins[std::size_t(row)] : nullptr;
    if (!e || !twins)
        return role == Qt::UserRole ? QVariant(0) : QVariant();
    if (role == Qt::UserRole)
        return int(twins->size());
    if (role == Qt::ToolTipRole) {
        if (twins->empty())
            return tr("No other plan is predicted equal to the ms and the MB");
        QString text = tr("Predicted equal to the ms and the MB, shown as this row:");
        for (const megatron::ParallelStrategy& twin : *twins)
            text += QStringLiteral("\n• ") + QString::fromStdString(twin.notation());
        return text;
    }
    return QString::fromStdString(megatron::twinsLine(e->strategy, *twins));
}

static QString rankRangeText(const megatron::RankRange& range)
{
    return range.best == range.worst ? QString::number(range.best)
                                     : QStringLiteral("%1–%2").arg(range.best).arg(range.worst);
}

QVariant StratexPlanTableModel::robustnessData(int row, int column, int role) const
{
    const megatron::PlanRobustness* r = robustness(row);
    if (!r) {
        if (role == Qt::ToolTipRole)
            return tr("Only a search's plans are ranked against each other");
        return role == Qt::UserRole ? QVariant(0) : QVariant(QStringLiteral("–"));
    }
    if (role == Qt::ToolTipRole) {
        const QString ranks = tr("Rank %1 of these %2 plans when compute or one dimension's communication (TP, CP, "
                                 "EP, DP, PP) is off by 10 %; %3 at 5 %.")
                                  .arg(rankRangeText(r->band_10))
                                  .arg(m_plans.size())
                                  .arg(rankRangeText(r->band_5));
        const QString verdict = r->robust_10 ? tr("Robust: stays the fastest under every ±10 % what-if.")
            : r->robust_5                    ? tr("Stays the fastest under ±5 %, not under ±10 %.")
                                             : tr("Not robust: another plan is faster under some ±5 % what-if.");
        return QString(ranks + QLatin1Char('\n') + verdict);
    }
    const bool raw = role == Qt::UserRole;
    if (column == RankRangeColumn)
        // Sorted by the worst rank it can fall to, then the best.
        return raw ? QVariant(r->band_10.worst * 10000 + r->band_10.best) : QVariant(rankRangeText(r->band_10));
    if (raw)
        return r->robust_10 ? 2 : r->robust_5 ? 1 : 0;
    return r->robust_10 ? tr("✓ ±10 %") : r->robust_5 ? tr("±5 %") : QString();
}

QVariant StratexPlanTableModel::data(const QModelIndex& index, int role) const
{
    const Estimate* e = index.isValid() ? plan(index.row()) : nullptr;
    if (!e)
        return {};
    const megatron::ParallelStrategy& s = e->strategy;
    if (role == Qt::TextAlignmentRole) {
        const bool text
            = index.column() == RecomputeColumn || index.column() == ScheduleColumn || index.column() == LayoutColumn
            || index.column() == EvidenceColumn || index.column() == TwinsColumn;
        return int((text ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
    }
    const bool robustnessColumn = index.column() == RankRangeColumn || index.column() == RobustColumn;
    if (robustnessColumn && (role == Qt::ToolTipRole || role == Qt::DisplayRole || role == Qt::UserRole))
        return robustnessData(index.row(), index.column(), role);
    const bool ownColumn = index.column() == EvidenceColumn || index.column() == TwinsColumn;
    if (ownColumn && (role == Qt::ToolTipRole || role == Qt::DisplayRole || role == Qt::UserRole))
        return index.column() == EvidenceColumn ? evidenceData(index.row(), role) : twinsData(index.row(), role);
    if (role == Qt::ToolTipRole)
        return QString::fromStdString(s.notation());
    const bool raw = role == Qt::UserRole;
    if (role != Qt::DisplayRole && !raw)
        return {};
    const QLocale c = QLocale::c();
    // The layers are not in the estimate: the stages' counts add up to them.
    int layers = 0;
    for (const megatron::StageEstimate& stage : e->stages)
        layers += stage.layers;
    switch (index.column()) {
    case RankColumn:
        return index.row() + 1;
    case TpColumn:
        return s.tp;
    case PpColumn:
        return s.pp;
    case VppColumn:
        return s.vpp;
    case CpColumn:
        if (raw || s.cp == 1 || s.cp_comm_type == megatron::CpCommType::P2p)
            return s.cp;
        return tr("%1 %2").arg(s.cp).arg(QString::fromStdString(std::string(megatron::cpCommTypeName(s.cp_comm_type))));
    case EpColumn:
        return s.ep;
    case EtpColumn:
        return s.etp;
    case DpColumn:
        return s.dp;
    case SpColumn:
        return raw ? QVariant(int(s.sequence_parallel)) : QVariant(s.sequence_parallel ? tr("yes") : tr("no"));
    case ZeroColumn:
        return s.zero;
    case RecomputeColumn:
        if (s.recompute == megatron::Recompute::Full && s.recompute_num_layers > 1)
            return tr("full (%1 per group)").arg(s.recompute_num_layers);
        if (s.recompute == megatron::Recompute::Selective && !s.recompute_modules.isDefault())
            return tr("selective (%1)").arg(QString::fromStdString(s.recompute_modules.joined(", ")));
        return name(megatron::recomputeName(s.recompute));
    case MicroBatchColumn:
        return s.micro_batch_size;
    case ScheduleColumn:
        return name(megatron::pipelineScheduleName(s.schedule));
    case LayoutColumn:
        return raw ? QVariant(layoutKey(s)) : QVariant(stratexLayoutText(s, layers));
    case IterationColumn:
        return raw ? QVariant(e->iteration_ms) : QVariant(c.toString(e->iteration_ms / 1e3, 'f', 3));
    case TokensColumn:
        return raw ? QVariant(e->tokens_per_s_per_gpu) : QVariant(c.toString(e->tokens_per_s_per_gpu, 'f', 0));
    case MfuColumn:
        return raw ? QVariant(e->mfu) : QVariant(c.toString(e->mfu * 100, 'f', 1));
    case MemoryColumn:
        return raw ? QVariant(e->peak_memory_mb) : QVariant(c.toString(hardware::mbToGib(e->peak_memory_mb), 'f', 1));
    case BubbleColumn:
        return raw ? QVariant(e->bubble_fraction) : QVariant(c.toString(e->bubble_fraction * 100, 'f', 1));
    default:
        return {};
    }
}

QVariant StratexPlanTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case VppColumn:
            return tr("Model chunks per pipeline rank (interleaved schedule)");
        case CpColumn:
            return tr("Context parallelism: ring attention, or its exchange when another: \u201ca2a\u201d "
                      "(DeepSpeed-Ulysses all-to-all), \u201call_gather\u201d, \u201ca2a+p2p\u201d (hierarchical) "
                      "(Megatron's --cp-comm-type)");
        case EtpColumn:
            return tr("Tensor parallelism inside each expert");
        case SpColumn:
            return tr("Megatron sequence parallelism");
        case LayoutColumn:
            return tr("Layers of the first and last pipeline stage when they differ from the others");
        case MfuColumn:
            return tr("Model FLOPs utilisation: model FLOPs per second over the GPU's peak");
        case BubbleColumn:
            return figureText(figures::toolTip(figures::Figure::PipelineBubble));
        case IterationColumn:
            return figureText(figures::toolTip(figures::Figure::IterationTime));
        case MemoryColumn:
            return QString(figureText(figures::toolTip(figures::Figure::PeakWithReserve))
                + tr(" In GiB; the memory chart stacks the reserve's parts above the planned ones."));
        case RankRangeColumn:
            return tr("The ranks this plan takes among the top plans when compute or one dimension's communication "
                      "(TP, CP, EP, DP, PP) is scaled by 0.9 or 1.1, one at a time: how far its rank holds when the "
                      "model is off");
        case RobustColumn:
            return tr("✓ ±10 %: the plan stays the fastest under every ±10 % what-if; ±5 %: only under ±5 %");
        case EvidenceColumn:
            return tr("Whether the plan's dimensions lie inside what measured runs cover; an extrapolated plan is "
                      "ranked as if %1 % slower")
                .arg(megatron::kExtrapolationUncertainty * 100, 0, 'f', 0);
        case TwinsColumn:
            return tr("Other plans predicted equal to the ms and the MB, shown as this one");
        default:
            return {};
        }
    }
    switch (section) {
    case RankColumn:
        return tr("#");
    case TpColumn:
        return tr("TP");
    case PpColumn:
        return tr("PP");
    case VppColumn:
        return tr("VPP");
    case CpColumn:
        return tr("CP");
    case EpColumn:
        return tr("EP");
    case EtpColumn:
        return tr("ETP");
    case DpColumn:
        return tr("DP");
    case SpColumn:
        return tr("SP");
    case ZeroColumn:
        return tr("ZeRO");
    case RecomputeColumn:
        return tr("Recompute");
    case MicroBatchColumn:
        return tr("Micro-batch");
    case ScheduleColumn:
        return tr("Schedule");
    case LayoutColumn:
        return tr("Layout (first/last)");
    case IterationColumn:
        return QString::fromStdString(figures::header(figures::Figure::IterationTime, "s"));
    case TokensColumn:
        return tr("Tokens/s/GPU");
    case MfuColumn:
        return tr("MFU (%)");
    case MemoryColumn:
        return QString::fromStdString(figures::header(figures::Figure::PeakWithReserve, "GiB"));
    case BubbleColumn:
        return QString::fromStdString(figures::header(figures::Figure::PipelineBubble, "%"));
    case RankRangeColumn:
        return tr("Rank ±10 %");
    case RobustColumn:
        return tr("Robust");
    case EvidenceColumn:
        return tr("Evidence");
    case TwinsColumn:
        return tr("Twins");
    default:
        return {};
    }
}

void StratexPlanTableModel::setPlans(std::vector<Estimate> plans, std::vector<megatron::PlanRobustness> robustness,
    std::vector<megatron::PlanEvidence> evidence, std::vector<std::vector<megatron::ParallelStrategy>> twins)
{
    beginResetModel();
    m_plans = std::move(plans);
    m_robustness = robustness.size() == m_plans.size() ? std::move(robustness) : std::vector<megatron::PlanRobustness> {};
    m_evidence = evidence.size() == m_plans.size() ? std::move(evidence) : std::vector<megatron::PlanEvidence> {};
    m_twins = twins.size() == m_plans.size() ? std::move(twins) : std::vector<std::vector<megatron::ParallelStrategy>> {};
    endResetModel();
}

} // namespace stratex::ui
