// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/megatron/estimate.h"
#include "core/megatron/plan_evidence.h"
#include "core/megatron/plan_robustness.h"

namespace stratex::ui {

// The stratex cost model's plans as a table: what they cost (iteration time, tokens/s per GPU, MFU,
// peak memory, bubble), how far its rank holds when the model is off by ±10 %, then Megatron's degrees (TP, PP, VPP,
// CP, EP, ETP, DP), sequence parallelism, ZeRO, recompute, micro-batch, schedule and pipeline layout. Qt::UserRole
// gives raw numbers for sorting; the headers carry the units.
class StratexPlanTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    // What a plan costs first (as the Galvatron table), then its degrees: the cost columns stay in
    // view on a 1280 px window.
    enum Column {
        RankColumn,
        IterationColumn,
        TokensColumn,
        MfuColumn,
        MemoryColumn,
        BubbleColumn,
        // How far the plan's rank holds when the model is off (megatron::rankingRobustness).
        RankRangeColumn,
        RobustColumn,
        // Whether the plan lies inside what measured runs cover (megatron::PlanEvidence); the
        // tooltip lists each dimension outside.
        EvidenceColumn,
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
        // The plan's twins (predicted equal to the ms and the MB), "also: cp4 mbs2, …".
        TwinsColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // `robustness`, `evidence`, `twins`: one entry per plan, or empty (a plan file has no robustness
    // nor twins: the columns show a dash; no evidence: the column is blank).
    void setPlans(std::vector<megatron::Estimate> plans, std::vector<megatron::PlanRobustness> robustness = {},
        std::vector<megatron::PlanEvidence> evidence = {}, std::vector<std::vector<megatron::ParallelStrategy>> twins = {});
    const std::vector<megatron::Estimate>& plans() const { return m_plans; }
    const megatron::Estimate* plan(int row) const;
    const megatron::PlanRobustness* robustness(int row) const;
    const megatron::PlanEvidence* evidence(int row) const;
    // How far the measured runs of the plans' model were predicted (megatron::modelTimeEvidence):
    // one note for every row, in the evidence column's tooltip; empty: none shown.
    void setModelTimeNote(QString note) { m_modelTimeNote = std::move(note); }

private:
    QVariant robustnessData(int row, int column, int role) const;
    QVariant evidenceData(int row, int role) const;
    QVariant twinsData(int row, int role) const;

    std::vector<megatron::Estimate> m_plans;
    std::vector<megatron::PlanRobustness> m_robustness;
    std::vector<megatron::PlanEvidence> m_evidence;
    std::vector<std::vector<megatron::ParallelStrategy>> m_twins;
    QString m_modelTimeNote;
};

// "even" or "first 3 / last 5" (Megatron's --decoder-first/last-pipeline-num-layers).
QString stratexLayoutText(const megatron::ParallelStrategy& strategy, int numLayers);

} // namespace stratex::ui
