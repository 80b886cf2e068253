// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/perf/estimate.h"

namespace stratex::ui {

// The stratex cost model's plans as a table: Megatron's degrees (TP, PP, VPP, CP, EP, ETP, DP),
// sequence parallelism, ZeRO, recompute, micro-batch, schedule and pipeline layout, then what they
// cost (iteration time, tokens/s per GPU, MFU, peak memory, bubble). Qt::UserRole gives raw numbers
// for sorting; the headers carry the units.
class StratexPlanTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        TpColumn,
        PpColumn,
        VppColumn,
        CpColumn,
        EpColumn,
        EtpColumn,
        DpColumn,
        SpColumn,
        ZeroColumn,
        RecomputeColumn,
        MicroBatchColumn,
        ScheduleColumn,
        LayoutColumn,
        IterationColumn,
        TokensColumn,
        MfuColumn,
        MemoryColumn,
        BubbleColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setPlans(std::vector<perf::Estimate> plans);
    const std::vector<perf::Estimate>& plans() const { return m_plans; }
    const perf::Estimate* plan(int row) const;

private:
    std::vector<perf::Estimate> m_plans;
};

// "even" or "first 3 / last 5" (Megatron's --decoder-first/last-pipeline-num-layers).
QString stratexLayoutText(const perf::ParallelStrategy& strategy, int numLayers);

} // namespace stratex::ui
