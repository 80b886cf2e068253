// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include <QWidget>

#include "core/ranks/tracer_plan.h"

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace stratex::controllers {
class RanksController;
}

namespace stratex::ui {

class BatchConfigModel;

// The workload tracer's batch: an editable table of "WORLD_SIZE PP TP" configs with DP, validity,
// the ranks to trace and the saving, the tracer settings (model name, micro-batches, MoE
// selection) and "Export tracer script…". A view over RanksController, which plans the configs
// and writes the script on workers: edits go to it, its plans come back into the table.
class TracerPanel : public QWidget {
    Q_OBJECT
public:
    explicit TracerPanel(controllers::RanksController* controller, QWidget* parent = nullptr);
    ~TracerPanel() override;

    BatchConfigModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }

    // The settings the tracer plans with (cp, ep, etp, order and GPUs per node are the layout's).
    ranks::TracerSettings settings() const;
    void setSettings(const ranks::TracerSettings& settings);
    QString commandTemplate() const;
    void setCommandTemplate(const QString& command);

    bool loadBatchFile(const QString& path, QString* error);
    // File > Open: reads `path` (RanksController::readBatchFile) and, when it would replace
    // configs the user has (anything but the tracer's default), asks first ("Replace the N batch
    // configs…?", a box named "replaceBatchConfigsQuestion", Replace / Cancel, Cancel the default).
    // False with `error` when the file is not a batch list (nothing changes). True when loaded or
    // asked; batchFileLoaded follows once the file's configs are shown.
    bool openBatchFile(const QString& path, QString* error);
    // Puts back the configs a load replaced ("Undo load", Ctrl+Z); false when there is nothing to
    // undo (no load, or the configs were edited since).
    bool undoLoad();
    bool canUndoLoad() const { return m_beforeLoad.has_value(); }
    // Writes the tracer script for the current configs on a worker thread; the controller's
    // scriptExported() or scriptExportFailed() follows.
    void exportScript(const QString& path);
    QString summaryText() const;
    // Sends a valid row's config to the grid (configActivated); nothing for an invalid or
    // not yet planned row.
    void showConfigInGrid(int row);

public Q_SLOTS:
    void addConfig();
    void removeSelectedConfigs();
    void loadBatchFileWithDialog();
    void exportScriptWithDialog();

Q_SIGNALS:
    // A valid config was asked for (Show in Grid, a double-click on a plan column): show it.
    void configActivated(int world, int pp, int tp);
    void statusMessage(const QString& message);
    // The configs of `path` are shown (File > Open names it in the window title).
    void batchFileLoaded(const QString& path);

private:
    void applySettings();
    void showPlans();
    void replaceWithLoaded(const QString& path, std::vector<ranks::BatchConfig> configs);

    controllers::RanksController* m_controller;
    BatchConfigModel* m_model;
    QTableView* m_table;
    QLineEdit* m_modelName;
    QSpinBox* m_microBatchSize;
    QSpinBox* m_microBatches;
    QSpinBox* m_globalBatch;
    QCheckBox* m_moe;
    QLineEdit* m_command;
    QLabel* m_summary;
    QPushButton* m_undoLoad;
    // The configs before the last load, while they can be put back.
    std::optional<std::vector<ranks::BatchConfig>> m_beforeLoad;
    QString m_loadedFile;
    bool m_loading = false;
};

} // namespace stratex::ui
