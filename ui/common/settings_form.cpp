// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/settings_form.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QVBoxLayout>

namespace stratex::ui {

using settings::SettingKind;
using settings::SettingSpec;
using settings::SettingValue;

namespace {

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

// The spin box's lowest value: one below the range when the field can be left open.
int spinMinimum(const SettingSpec& spec)
{
    return int(spec.minimum) - (spec.openText.empty() ? 0 : 1);
}

} // namespace

QString settingToolTip(const SettingSpec& spec, const SettingValue& defaultValue)
{
    QString tip = QString::fromStdString(settings::settingHelp(spec, defaultValue));
    tip += QStringLiteral("\n(--%1").arg(text(spec.flag));
    if (!spec.peerName.empty())
        tip += QStringLiteral(", Galvatron: %1").arg(text(spec.peerName));
    return tip + QLatin1Char(')');
}

SettingsForm::SettingsForm(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->addStretch();
}

QFormLayout* SettingsForm::groupLayout(const QString& group)
{
    const auto it = m_groups.find(group);
    if (it != m_groups.end())
        return it->second;
    auto* box = new QGroupBox(group, this);
    auto* form = new QFormLayout(box);
    m_layout->insertWidget(m_layout->count() - 1, box); // before the stretch
    m_groups.emplace(group, form);
    return form;
}

void SettingsForm::addSettings(const std::vector<SettingSpec>& specs, const std::vector<SettingValue>& defaults)
{
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const SettingSpec& spec = specs[i];
        QFormLayout* form = groupLayout(tr(spec.group.data()));
        const QString label = text(spec.label);
        QWidget* widget = nullptr;
        switch (spec.kind) {
        case SettingKind::Integer: {
            auto* box = new QSpinBox(this);
            box->setRange(spinMinimum(spec), int(spec.maximum));
            if (!spec.openText.empty())
                box->setSpecialValueText(text(spec.openText));
            else if (!spec.specialText.empty())
                box->setSpecialValueText(text(spec.specialText));
            connect(box, &QSpinBox::valueChanged, this, &SettingsForm::changed);
            form->addRow(label, box);
            widget = box;
            break;
        }
        case SettingKind::Real: {
            auto* box = new QDoubleSpinBox(this);
            box->setDecimals(3);
            box->setRange(spec.minimum, spec.maximum);
            box->setSingleStep(spec.maximum - spec.minimum > 10 ? 1.0 : 0.05);
            if (!spec.specialText.empty())
                box->setSpecialValueText(text(spec.specialText));
            connect(box, &QDoubleSpinBox::valueChanged, this, &SettingsForm::changed);
            form->addRow(label, box);
            widget = box;
            break;
        }
        case SettingKind::Flag:
        case SettingKind::Switch: {
            auto* box = new QCheckBox(label, this);
            connect(box, &QCheckBox::toggled, this, &SettingsForm::changed);
            form->addRow(box);
            widget = box;
            break;
        }
        case SettingKind::Choice: {
            auto* box = new QComboBox(this);
            for (std::string_view choice : spec.choices)
                box->addItem(text(choice));
            connect(box, &QComboBox::currentIndexChanged, this, &SettingsForm::changed);
            form->addRow(label, box);
            widget = box;
            break;
        }
        case SettingKind::Text: {
            auto* edit = new QLineEdit(this);
            edit->setPlaceholderText(text(spec.openText));
            connect(edit, &QLineEdit::textChanged, this, &SettingsForm::changed);
            form->addRow(label, edit);
            widget = edit;
            break;
        }
        }
        widget->setObjectName(text(spec.flag));
        widget->setAccessibleName(label);
        widget->setToolTip(settingToolTip(spec, defaults[i]));
        m_fields.push_back({ spec, widget });
        setValue(spec.flag, defaults[i]);
    }
}

const SettingsForm::Field* SettingsForm::fieldOf(std::string_view flag) const
{
    for (const Field& field : m_fields) {
        if (field.spec.flag == flag)
            return &field;
    }
    return nullptr;
}

QWidget* SettingsForm::field(std::string_view flag) const
{
    const Field* field = fieldOf(flag);
    return field ? field->widget : nullptr;
}

void SettingsForm::setFieldVisible(std::string_view flag, bool visible)
{
    const Field* field = fieldOf(flag);
    if (!field)
        return;
    const auto group = m_groups.find(tr(field->spec.group.data()));
    if (group != m_groups.end())
        group->second->setRowVisible(field->widget, visible);
}

bool SettingsForm::isFieldVisible(std::string_view flag) const
{
    const Field* field = fieldOf(flag);
    return field && !field->widget->isHidden();
}

void SettingsForm::setGroupVisible(const QString& group, bool visible)
{
    const auto it = m_groups.find(group);
    if (it != m_groups.end() && it->second->parentWidget())
        it->second->parentWidget()->setVisible(visible);
}

std::optional<SettingValue> SettingsForm::value(std::string_view flag) const
{
    const Field* field = fieldOf(flag);
    if (!field)
        return std::nullopt;
    const SettingSpec& spec = field->spec;
    switch (spec.kind) {
    case SettingKind::Integer: {
        const int shown = static_cast<QSpinBox*>(field->widget)->value();
        if (!spec.openText.empty() && shown < spec.minimum)
            return std::nullopt;
        return std::int64_t(shown);
    }
    case SettingKind::Real:
        return static_cast<QDoubleSpinBox*>(field->widget)->value();
    case SettingKind::Flag:
    case SettingKind::Switch:
        return static_cast<QCheckBox*>(field->widget)->isChecked();
    case SettingKind::Choice:
        return static_cast<QComboBox*>(field->widget)->currentText().toStdString();
    case SettingKind::Text: {
        const QString shown = static_cast<QLineEdit*>(field->widget)->text().trimmed();
        if (!spec.openText.empty() && shown.isEmpty())
            return std::nullopt;
        return shown.toStdString();
    }
    }
    return std::nullopt;
}

void SettingsForm::setValue(std::string_view flag, const std::optional<SettingValue>& value)
{
    const Field* field = fieldOf(flag);
    if (!field)
        return;
    const SettingSpec& spec = field->spec;
    if (!value && spec.openText.empty())
        return;
    switch (spec.kind) {
    case SettingKind::Integer:
        static_cast<QSpinBox*>(field->widget)
            ->setValue(value ? int(std::get<std::int64_t>(*value)) : spinMinimum(spec));
        break;
    case SettingKind::Real:
        if (value)
            static_cast<QDoubleSpinBox*>(field->widget)->setValue(std::get<double>(*value));
        break;
    case SettingKind::Flag:
    case SettingKind::Switch:
        if (value)
            static_cast<QCheckBox*>(field->widget)->setChecked(std::get<bool>(*value));
        break;
    case SettingKind::Choice:
        if (value) {
            auto* box = static_cast<QComboBox*>(field->widget);
            box->setCurrentIndex(std::max(0, box->findText(QString::fromStdString(std::get<std::string>(*value)))));
        }
        break;
    case SettingKind::Text:
        static_cast<QLineEdit*>(field->widget)
            ->setText(value ? QString::fromStdString(std::get<std::string>(*value)) : QString());
        break;
    }
}

} // namespace stratex::ui
