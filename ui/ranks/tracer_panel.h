// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include "core/ranks/parallel_config.h"
#include "core/ranks/tracer_plan.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;
class QTimer;

namespace stratex::jobs {
class JobRunner;
}

namespace stratex::ui {

class BatchConfigModel;

// The workload tracer's batch: an editable table of "WORLD_SIZE PP TP" configs with DP, validity,
// the ranks to trace and the saving, the tracer settings (model name, micro-batches, MoE
// selection) and "Export tracer script…". Plans are computed on a worker thread.
class TracerPanel : public QWidget {
    Q_OBJECT
public:
    explicit TracerPanel(QWidget* parent = nullptr);
    ~TracerPanel() override;

    BatchConfigModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    jobs::JobRunner* jobRunner() const { return m_runner; }
    bool hasPendingWork() const;

    // cp, ep, etp, order and GPUs per node come from the page's layout form.
    void setLayout(const ranks::ParallelConfig& layout);
    ranks::TracerSettings settings() const;
    void setSettings(const ranks::TracerSettings& settings);
    QString commandTemplate() const;
    void setCommandTemplate(const QString& command);

    bool loadBatchFile(const QString& path, QString* error);
    // Writes the tracer script for the current configs on a worker thread; scriptExported() or
    // exportFailed() follows.
    void exportScript(const QString& path);
    jobs::JobRunner* exportRunner() const { return m_exportRunner; }
    QString summaryText() const;

public Q_SLOTS:
    void addConfig();
    void removeSelectedConfigs();
    void loadBatchFileWithDialog();
    void exportScriptWithDialog();

Q_SIGNALS:
    // A valid config was double-clicked: show it in the grid.
    void configActivated(int world, int pp, int tp);
    void scriptExported(const QString& path);
    void exportFailed(const QString& message);
    void statusMessage(const QString& message);

private:
    void schedulePlanning();
    void plan();
    void updateSummary();

    BatchConfigModel* m_model;
    QTableView* m_table;
    QLineEdit* m_modelName;
    QSpinBox* m_microBatchSize;
    QSpinBox* m_microBatches;
    QSpinBox* m_globalBatch;
    QCheckBox* m_moe;
    QLineEdit* m_command;
    QLabel* m_summary;
    QTimer* m_debounce;
    jobs::JobRunner* m_runner;
    jobs::JobRunner* m_exportRunner;
    ranks::ParallelConfig m_layout;
};

} // namespace stratex::ui
