// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/ranks/batch_config_model.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

namespace stratex::ui {

using namespace stratex::ranks;

BatchConfigModel::BatchConfigModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

int BatchConfigModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_configs.size());
}

int BatchConfigModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const TraceConfigPlan* BatchConfigModel::planFor(int row) const
{
    return std::size_t(row) < m_plans.size() ? &m_plans[std::size_t(row)] : nullptr;
}

QVariant BatchConfigModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || std::size_t(index.row()) >= m_configs.size())
        return {};
    const BatchConfig& config = m_configs[std::size_t(index.row())];
    const TraceConfigPlan* plan = planFor(index.row());
    const bool parsed = config.parseError.empty();

    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case WorldColumn:
            return parsed ? QVariant(config.world) : QVariant(QString::fromStdString(config.source));
        case PpColumn:
            return parsed ? QVariant(config.pp) : QVariant();
        case TpColumn:
            return parsed ? QVariant(config.tp) : QVariant();
        case DpColumn:
            return plan && plan->valid ? QVariant(plan->dp) : QVariant();
        case StatusColumn:
            if (!plan)
                return tr("…");
            return plan->valid ? tr("valid") : QString::fromStdString(plan->error);
        case RanksColumn: {
            if (!plan || !plan->valid)
                return {};
            QStringList shown;
            for (std::size_t i = 0; i < std::min<std::size_t>(plan->ranks.size(), 6); ++i)
                shown << QString::number(plan->ranks[i]);
            QString text = QStringLiteral("%1 of %2: %3")
                               .arg(plan->ranks.size())
                               .arg(plan->originalRanks)
                               .arg(shown.join(QStringLiteral(", ")));
            if (plan->ranks.size() > 6)
                text += QStringLiteral(", …");
            return text;
        }
        case SavingColumn:
            return plan && plan->valid
                ? QVariant(QStringLiteral("%1 %").arg(QLocale::c().toString(plan->savingPercent, 'f', 1)))
                : QVariant();
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        if (plan && !plan->valid)
            return QString::fromStdString(plan->error);
        if (plan && plan->valid && index.column() == RanksColumn) {
            QStringList all;
            for (int rank : plan->ranks)
                all << QString::number(rank);
            return tr("Traced ranks: %1\nLog directory: %2")
                .arg(all.join(QStringLiteral(", ")), QString::fromStdString(plan->logDir));
        }
        return {};
    }
    if (role == Qt::ForegroundRole && index.column() == StatusColumn && plan && !plan->valid)
        return QBrush(QColor(0xC0, 0x39, 0x2B));
    if (role == Qt::TextAlignmentRole && index.column() != StatusColumn && index.column() != RanksColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant BatchConfigModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical && role == Qt::DisplayRole)
        return tr("Config %1").arg(section + 1);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case WorldColumn:
        return tr("World size");
    case PpColumn:
        return tr("PP");
    case TpColumn:
        return tr("TP");
    case DpColumn:
        return tr("DP");
    case StatusColumn:
        return tr("Status");
    case RanksColumn:
        return tr("Traced ranks");
    case SavingColumn:
        return tr("Saving");
    default:
        return {};
    }
}

Qt::ItemFlags BatchConfigModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags flags = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() <= TpColumn)
        flags |= Qt::ItemIsEditable;
    return flags;
}

bool BatchConfigModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!index.isValid() || role != Qt::EditRole || index.column() > TpColumn)
        return false;
    BatchConfig& config = m_configs[std::size_t(index.row())];
    // A line that failed to parse becomes editable by starting from the default numbers.
    if (!config.parseError.empty()) {
        const BatchConfig fallback = defaultBatchConfig();
        config.world = fallback.world;
        config.pp = fallback.pp;
        config.tp = fallback.tp;
    }
    bool ok = false;
    const int number = value.toInt(&ok);
    if (!ok || number <= 0)
        return false;
    int* target = index.column() == WorldColumn ? &config.world : index.column() == PpColumn ? &config.pp : &config.tp;
    *target = number;
    config.parseError.clear();
    config.source = std::to_string(config.world) + " " + std::to_string(config.pp) + " " + std::to_string(config.tp);
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    Q_EMIT configsChanged();
    return true;
}

bool BatchConfigModel::removeRows(int row, int count, const QModelIndex& parent)
{
    if (parent.isValid() || row < 0 || count <= 0 || std::size_t(row + count) > m_configs.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_configs.erase(m_configs.begin() + row, m_configs.begin() + row + count);
    if (m_plans.size() >= std::size_t(row + count))
        m_plans.erase(m_plans.begin() + row, m_plans.begin() + row + count);
    else
        m_plans.clear();
    endRemoveRows();
    Q_EMIT configsChanged();
    return true;
}

void BatchConfigModel::setConfigs(std::vector<BatchConfig> configs)
{
    beginResetModel();
    m_configs = std::move(configs);
    m_plans.clear();
    endResetModel();
    Q_EMIT configsChanged();
}

void BatchConfigModel::appendConfig(const BatchConfig& config)
{
    const int row = int(m_configs.size());
    beginInsertRows({}, row, row);
    m_configs.push_back(config);
    endInsertRows();
    Q_EMIT configsChanged();
}

void BatchConfigModel::setPlans(std::vector<TraceConfigPlan> plans)
{
    if (plans.size() != m_configs.size())
        return; // computed for a list that has changed since; a newer plan is on its way
    m_plans = std::move(plans);
    if (!m_configs.empty())
        Q_EMIT dataChanged(index(0, DpColumn), index(rowCount() - 1, ColumnCount - 1));
}

QStringList BatchConfigModel::toLines() const
{
    QStringList lines;
    for (const BatchConfig& config : m_configs)
        lines << QString::fromStdString(config.source);
    return lines;
}

} // namespace stratex::ui
