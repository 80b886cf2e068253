// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner_config.h"
#include "ui/common/settings_form.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QSlider;
class QSpinBox;
class QStackedWidget;

namespace stratex::ui {

// The planner's inputs: cost model, length distribution (synthetic lognormal with sliders, or a
// lengths file), the planner settings (pipeline shape, memory, mode, seed: fields generated from
// planner::plannerSettingTable(), named by their CLI flags), and the global batches to compare.
class PlannerForm : public SettingsForm {
    Q_OBJECT
public:
    explicit PlannerForm(QWidget* parent = nullptr);

    enum class CostModelSource { Bundled, File, SearchProfile };
    CostModelSource costModelSource() const;
    // The Galvatron profile of the last search becomes a choice once there is one.
    void setSearchProfileAvailable(const QString& description);
    QString costModelPath() const; // controllers::bundledCostModelPath() unless the user chose a file
    void setCostModelPath(const QString& path);
    bool syntheticLengths() const;
    planner::SyntheticLengthSpec syntheticSpec() const;
    void setSyntheticSpec(double meanLog, double sigmaLog, int count, int seed);
    QString lengthsFile() const;
    void setLengthsFile(const QString& path);
    planner::PlannerConfig config() const; // the table's settings; the rest PlannerConfig{}'s
    void setConfig(const planner::PlannerConfig& config);
    void setPipeline(int stages, int layersPerStage, double memoryMb);
    // Parsed "16,32,64"; throws stratex::Error naming the bad entry.
    std::vector<int> globalBatches() const;
    void setGlobalBatches(const QString& text);
    int compareSeeds() const;
    void setCompareSeeds(int seeds);

private:
    void updateSyntheticLabel();

    QComboBox* m_costSource;
    QLineEdit* m_costModel;
    QComboBox* m_lengthSource;
    QStackedWidget* m_lengthPages;
    QSlider* m_mean; // ln(length) x 10
    QSlider* m_sigma; // x 100
    QSpinBox* m_count;
    QSpinBox* m_seed;
    QLabel* m_syntheticLabel;
    QLineEdit* m_lengthsFile;
    QLineEdit* m_batches;
    QSpinBox* m_compareSeeds;
};

} // namespace stratex::ui
