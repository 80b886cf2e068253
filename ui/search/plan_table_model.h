// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include <QAbstractTableModel>

#include "core/galvatron/plan.h"

namespace stratex::ui {

// Searched plans as a table (throughput, time, memory, pp, TP/SP mode, batch, micro-batches, the
// per-layer summary, the embedding choice). Qt::UserRole gives raw numbers for sorting.
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
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setPlans(std::vector<galvatron::Plan> plans);
    // The legend of Galvatron's per-layer notation ("2-4*-2-sp x3"): the Layers column's header
    // tooltip and the layer strip's.
    static QString layerNotationLegend();
    static QVariant columnToolTip(int section);
    const std::vector<galvatron::Plan>& plans() const { return m_plans; }
    const galvatron::Plan* plan(int row) const;

private:
    std::vector<galvatron::Plan> m_plans;
};

// "vtp 2 · Ulysses · ZeRO-3" for the embedding / LM head of a plan.
QString embeddingSummary(const galvatron::Plan& plan);

} // namespace stratex::ui
