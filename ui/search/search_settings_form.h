// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include "core/profile/profile_discovery.h"
#include "core/search/search_settings.h"
#include "core/settings/setting.h"
#include "ui/common/settings_form.h"

class QCheckBox;
class QComboBox;
class QLineEdit;
class QSpinBox;

namespace stratex::ui {

// Galvatron's search settings as a form generated from search::searchSettingTable(): every field
// has the flag's name, range, choices and --help text. Beside them: the profile folders, the
// thread count and the number of plans kept.
class SearchSettingsForm : public SettingsForm {
    Q_OBJECT
public:
    explicit SearchSettingsForm(QWidget* parent = nullptr);

    // The form's settings and the flags it gives (all but the fields left open).
    search::SearchSettings settings() const;
    settings::SettingNames given() const;
    void setSettings(const search::SearchSettings& settings, const settings::SettingNames& open = {});

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

    QLineEdit* m_profilesDir;
    QLineEdit* m_hardwareDir;
    QSpinBox* m_threads;
    QSpinBox* m_topK;
};

} // namespace stratex::ui
