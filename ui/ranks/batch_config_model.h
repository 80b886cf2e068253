// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/ranks/batch_config.h"
#include "core/ranks/tracer_plan.h"

namespace stratex::ui {

// The tracer's batch configs: WORLD_SIZE, PP and TP are editable; DP, validity, the traced ranks
// and the saving come from the latest plan (computed off the GUI thread by the tracer panel).
class BatchConfigModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { WorldColumn, PpColumn, TpColumn, DpColumn, StatusColumn, RanksColumn, SavingColumn, ColumnCount };

    explicit BatchConfigModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    const std::vector<ranks::BatchConfig>& configs() const { return m_configs; }
    void setConfigs(std::vector<ranks::BatchConfig> configs);
    void appendConfig(const ranks::BatchConfig& config);
    // Plans for exactly the current configs (stale plans are ignored by the caller's job id).
    void setPlans(std::vector<ranks::TraceConfigPlan> plans);
    const std::vector<ranks::TraceConfigPlan>& plans() const { return m_plans; }
    // "8192 16 8" lines, for settings and the script header.
    QStringList toLines() const;

Q_SIGNALS:
    void configsChanged();

private:
    const ranks::TraceConfigPlan* planFor(int row) const;

    std::vector<ranks::BatchConfig> m_configs;
    std::vector<ranks::TraceConfigPlan> m_plans;
};

} // namespace stratex::ui
