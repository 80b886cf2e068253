// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>

#include "ui/page.h"

#include "controllers/calibration_controller.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableView;
class QTableWidget;

namespace stratex::ui {

class CalibrationRunModel;
class CalibrationScatterChart;
class PathLineEdit;

// The Calibrate page (issue 10): measured runs of one cluster (run records, Megatron-LM logs,
// PyTorch-profiler traces) in, the cost model's efficiencies fitted to them as stratex-cli
// calibrate fits them, and out: predicted against measured before and after the fit (a scatter
// chart and a table with each run's errors, held-out errors with 3 runs or more), the fitted
// parameters before and after, and the calibrated cluster file. A view over CalibrationController.
class CalibratePage : public Page {
    Q_OBJECT
public:
    explicit CalibratePage(QWidget* parent = nullptr);
    ~CalibratePage() override;

    QString pageId() const override { return QStringLiteral("calibrate"); }
    QString title() const override { return tr("Calibrate"); }
    QIcon icon() const override;
    QList<jobs::JobRunner*> jobRunners() const override;
    QList<QAction*> exportActions() const override;
    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    controllers::CalibrationController* controller() const { return m_controller; }
    CalibrationScatterChart* chart() const { return m_chart; }
    CalibrationRunModel* runModel() const { return m_runModel; }
    QTableView* runTable() const { return m_runTable; }
    QTableWidget* parameterTable() const { return m_parameters; }
    QListWidget* runList() const { return m_runList; }
    QComboBox* gpuBox() const { return m_gpu; }
    QSpinBox* gpusPerNodeBox() const { return m_gpusPerNode; }
    QPushButton* calibrateButton() const { return m_calibrate; }
    QString summaryText() const;
    QString whatToBringText() const; // shown above the runs at all times

    void addRunPaths(const QStringList& paths);
    // The fit's parameters, by short name; the others unchecked.
    void setFitParameters(const std::vector<std::string>& names);
    // The form's inputs, as CalibrationController takes them.
    controllers::CalibrationInputs inputs() const;
    // Writes the calibrated cluster, as stratex-cli calibrate --out does.
    bool saveCluster(const QString& path, QString* error) const;

public Q_SLOTS:
    void calibrate();
    void addRunFilesWithDialog();
    void addRunFolderWithDialog();
    void removeSelectedRuns();
    void saveClusterWithDialog();

private:
    void showOutcome(const std::shared_ptr<const controllers::CalibrationOutcome>& outcome);
    void showFailure(const QString& message);
    void updateButtons();
    void updateWhatToBring();

    controllers::CalibrationController* m_controller;
    QListWidget* m_runList;
    PathLineEdit* m_startCluster;
    QComboBox* m_gpu;
    QSpinBox* m_gpusPerNode;
    QSpinBox* m_warmup;
    QListWidget* m_fit;
    QPushButton* m_calibrate;
    QPushButton* m_cancel;
    QPushButton* m_save;
    QLabel* m_summary;
    QLabel* m_whatToBring;
    CalibrationScatterChart* m_chart;
    CalibrationRunModel* m_runModel;
    QTableView* m_runTable;
    QTableWidget* m_parameters;
    QAction* m_saveAction;
};

} // namespace stratex::ui
