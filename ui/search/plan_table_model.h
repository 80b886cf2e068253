// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/galvatron/plan.h"

namespace stratex::ui {

// Searched plans as a table (throughput, iteration, planned peak, pp, TP/SP mode, batch,
// micro-batches, the per-layer summary, the embedding choice, exact ties). Qt::UserRole gives raw
// numbers for sorting. Iteration and memory carry the labels and tooltips of their one definition
// (core/common/plan_figures.h); memory is the planned peak, the quantity the memory chart's bars
// show against the search's limit, with Galvatron's reserve in its tooltip. Plans tied exactly
// (galvatron::groupExactTies) are one row whose Also column names the others.
class PlanTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        RankColumn,
        ThroughputColumn,
        TimeColumn,
        MemoryColumn,
        PpColumn,
        ModeColumn,
        BatchColumn,
        ChunksColumn,
        LayersColumn,
        EmbeddingColumn,
        TiesColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // `reserveMb`: Galvatron's allocator reserve of the search (MemoryBudget::reserve_mb), taken off
    // the plans' memory_cost to give the planned peak.
    void setPlans(std::vector<galvatron::Plan> plans, int reserveMb = 0);
    int reserveMb() const { return m_reserveMb; }
    // The planned peak of row `row` in MB (0 without a plan).
    int plannedPeakMb(int row) const;
    // The plans tied with row `row` (empty for most rows).
    const std::vector<galvatron::Plan>& ties(int row) const;
    // The legend of Galvatron's per-layer notation ("2-4*-2-sp x3"): the Layers column's header
    // tooltip and the layer strip's.
    static QString layerNotationLegend();
    static QVariant columnToolTip(int section);
    const std::vector<galvatron::Plan>& plans() const { return m_plans; }
    const galvatron::Plan* plan(int row) const;

private:
    std::vector<galvatron::Plan> m_plans; // one per row: the first of its ties
    std::vector<std::vector<galvatron::Plan>> m_ties; // per row
    int m_reserveMb = 0;
};

// "vtp 2 · Ulysses · ZeRO-3" for the embedding / LM head of a plan.
QString embeddingSummary(const galvatron::Plan& plan);

} // namespace stratex::ui
