// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <QWidget>

#include "core/settings/setting_table.h"

class QFormLayout;
class QVBoxLayout;

namespace stratex::ui {

// A form generated from a settings table: one field per row (spin box, check box, combo box or
// line edit, by the row's kind), grouped by the rows' groups, each with the CLI's help as its
// tooltip. Pages add their own fields to the groups (groupLayout) before or after the rows.
class SettingsForm : public QWidget {
    Q_OBJECT
public:
    explicit SettingsForm(QWidget* parent = nullptr);

    // Adds a field per spec, set to its default.
    void addSettings(
        const std::vector<settings::SettingSpec>& specs, const std::vector<settings::SettingValue>& defaults);
    // The form layout of a group box, created (appended) on first use.
    QFormLayout* groupLayout(const QString& group);

    QWidget* field(std::string_view flag) const; // nullptr for an unknown flag
    // Shows or hides a setting's row (a form over two tables shows the rows that apply), and a
    // group's box.
    void setFieldVisible(std::string_view flag, bool visible);
    bool isFieldVisible(std::string_view flag) const;
    void setGroupVisible(const QString& group, bool visible);
    template <typename W> W* fieldAs(std::string_view flag) const { return qobject_cast<W*>(field(flag)); }

    // The shown value; nothing when the field is left open (the row's openText).
    std::optional<settings::SettingValue> value(std::string_view flag) const;
    // Nothing opens the field (rows with openText only; others keep their value).
    void setValue(std::string_view flag, const std::optional<settings::SettingValue>& value);

    // Struct <-> form through the table: read() starts from `base` and sets every field that is
    // not open; `given` receives their flags.
    template <typename S> S read(const settings::SettingTable<S>& table, S base, settings::SettingNames* given) const
    {
        for (const settings::Setting<S>& row : table.rows()) {
            if (const auto shown = value(row.spec.flag)) {
                row.set(base, *shown);
                if (given)
                    given->insert(std::string(row.spec.flag));
            }
        }
        return base;
    }
    // Shows the struct's values; the flags in `open` are shown open where their row allows it.
    template <typename S>
    void write(const settings::SettingTable<S>& table, const S& values, const settings::SettingNames& open = {})
    {
        for (const settings::Setting<S>& row : table.rows()) {
            if (open.contains(row.spec.flag) && !row.spec.openText.empty())
                setValue(row.spec.flag, std::nullopt);
            else
                setValue(row.spec.flag, row.get(values));
        }
    }

Q_SIGNALS:
    void changed();

private:
    struct Field {
        settings::SettingSpec spec;
        QWidget* widget = nullptr;
    };
    const Field* fieldOf(std::string_view flag) const;

    QVBoxLayout* m_layout;
    std::map<QString, QFormLayout*> m_groups;
    std::vector<Field> m_fields;
};

// "help (default ...)\n(--flag, Galvatron: name)": the tooltip of a setting's field.
QString settingToolTip(const settings::SettingSpec& spec, const settings::SettingValue& defaultValue);

} // namespace stratex::ui
