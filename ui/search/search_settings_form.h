// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include "core/megatron/strategy_search_settings.h"
#include "core/profile/profile_discovery.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting.h"
#include "ui/common/settings_form.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace stratex::ui {

// The search settings as a form generated from the settings tables: Galvatron's
// (galvatron::searchSettingTable()) and the stratex cost model's (megatron::strategySearchSettingTable()),
// every field with the flag's name, range, choices and --help text. The cost model field decides
// which rows show: Galvatron's, or the stratex table's with the cluster, memory and model rows the
// stratex model reads too. Beside them: the profile folders, the thread count and the number of
// plans kept.
class SearchSettingsForm : public SettingsForm {
    Q_OBJECT
public:
    static constexpr int kInitialGlobalBatch = 64; // the stratex global batch the form starts with

    explicit SearchSettingsForm(QWidget* parent = nullptr);

    // The form's settings and the flags it gives (all but the fields left open).
    galvatron::SearchSettings settings() const;
    settings::SettingNames given() const;
    void setSettings(const galvatron::SearchSettings& settings, const settings::SettingNames& open = {});

    // The stratex table's settings (the cost model choice among them).
    megatron::StrategySearchSettings stratexSettings() const;
    void setStratexSettings(const megatron::StrategySearchSettings& settings);
    void setCostModel(megatron::CostModelChoice choice);
    // The cost model a search runs with: the choice, with "auto" resolved by megatron::resolveCostModel
    // over the chosen folder (synthesized or measured) or, without one, a model preset or GPU named.
    megatron::CostModelChoice resolvedCostModel() const;

    // The profile files to load (folders and model name).
    profile::ProfileDiscovery discovery() const;
    QString profilesDir() const;
    QString hardwareDir() const;
    void setProfilesDir(const QString& dir);
    void setHardwareDir(const QString& dir);
    int threads() const; // 0: all cores
    int topK() const;

    // For tests: the field of a CLI flag.
    QSpinBox* spinBox(const char* flag) const;
    QComboBox* comboBox(const char* flag) const;
    QCheckBox* checkBox(const char* flag) const;

private:
    // A folder made by `stratex-cli profile synth` says which model and cluster it is for.
    void adoptSynthesizedModel(const QString& dir);
    // Shows the rows of the cost model the search will run with.
    void showCostModelRows();

    QLineEdit* m_profilesDir;
    QLineEdit* m_hardwareDir;
    QSpinBox* m_threads;
    QSpinBox* m_topK;
    bool m_synthesizedFolder = false; // the profiles folder has a stratex_synthesis.json
};

} // namespace stratex::ui
