// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include <QWidget>

#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner_config.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QStackedWidget;

namespace stratex::ui {

// The planner's inputs: cost model, length distribution (synthetic lognormal with sliders, or a
// lengths file), pipeline shape, memory, mode, and the global batches to compare.
class PlannerForm : public QWidget {
    Q_OBJECT
public:
    static const QString kBundledCostModel; // resource path of the synthetic example

    explicit PlannerForm(QWidget* parent = nullptr);

    enum class CostModelSource { Bundled, File, SearchProfile };
    CostModelSource costModelSource() const;
    // The Galvatron profile of the last search becomes a choice once there is one.
    void setSearchProfileAvailable(const QString& description);
    QString costModelPath() const; // kBundledCostModel unless the user chose a file
    void setCostModelPath(const QString& path);
    bool syntheticLengths() const;
    planner::SyntheticLengthSpec syntheticSpec() const;
    void setSyntheticSpec(double meanLog, double sigmaLog, int count, int seed);
    QString lengthsFile() const;
    void setLengthsFile(const QString& path);
    planner::PlannerConfig config() const; // mode included
    void setPipeline(int stages, int layersPerStage, double memoryMb);
    // Parsed "16,32,64"; throws stratex::Error naming the bad entry.
    std::vector<int> globalBatches() const;
    void setGlobalBatches(const QString& text);

Q_SIGNALS:
    void changed();

private:
    void updateSyntheticLabel();

    QComboBox* m_costSource;
    QLineEdit* m_costModel;
    QSpinBox* m_tp;
    QComboBox* m_lengthSource;
    QStackedWidget* m_lengthPages;
    QSlider* m_mean; // ln(length) x 10
    QSlider* m_sigma; // x 100
    QSpinBox* m_count;
    QSpinBox* m_seed;
    QLabel* m_syntheticLabel;
    QLineEdit* m_lengthsFile;
    QSpinBox* m_stages;
    QSpinBox* m_layersPerStage;
    QSpinBox* m_chunks;
    QSpinBox* m_dp;
    QSpinBox* m_memory;
    QComboBox* m_mode;
    QLineEdit* m_batches;
};

} // namespace stratex::ui
