// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>

#include <QWidget>

#include "core/profile/profile_discovery.h"
#include "core/search/search_inputs.h"
#include "core/search/search_settings.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace stratex::ui {

// Galvatron's search settings as a form, under Galvatron's names; every field's tooltip is the
// same text `stratex-cli search --help` prints for its flag (search::searchSettingInfo()).
class SearchSettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit SearchSettingsForm(QWidget* parent = nullptr);

    search::SearchSettings settings() const;
    void setSettings(const search::SearchSettings& settings);
    // The profile files to load. The model's shape is always given by the form (a synthesized
    // folder fills it in when chosen); the sequence length and model name only when set.
    profile::ProfileDiscovery discovery() const;
    search::ExplicitSettings explicitSettings() const;
    QString profilesDir() const;
    void setProfilesDir(const QString& dir);
    void setHardwareDir(const QString& dir);
    int threads() const; // 0: all cores
    int topK() const;

    QSpinBox* spinBox(const char* flag) const; // for tests: the field of a CLI flag
    QComboBox* comboBox(const char* flag) const;
    QCheckBox* checkBox(const char* flag) const;

Q_SIGNALS:
    void changed();

private:
    QSpinBox* addSpin(QWidget* group, const char* flag, const QString& label, int low, int high, int value,
        const QString& special = {});
    QComboBox* addCombo(QWidget* group, const char* flag, const QString& label, const QStringList& items);
    QCheckBox* addCheck(QWidget* group, const char* flag, const QString& label);
    // A folder made by `stratex-cli profile synth` says which model it is for: take its shape.
    void adoptSynthesizedModel(const QString& dir);

    QLineEdit* m_profilesDir;
    QLineEdit* m_hardwareDir;
    QLineEdit* m_modelName;
    QDoubleSpinBox* m_costmodelCoe;
    QSpinBox* m_threads;
    QSpinBox* m_topK;
    std::map<std::string, QSpinBox*> m_spins;
    std::map<std::string, QComboBox*> m_combos;
    std::map<std::string, QCheckBox*> m_checks;
};

} // namespace stratex::ui
