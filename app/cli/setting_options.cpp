// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/setting_options.h"

namespace stratex::cli {

namespace {

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), qsizetype(view.size()));
}

} // namespace

QString settingValueName(const settings::SettingSpec& spec)
{
    switch (spec.kind) {
    case settings::SettingKind::Choice: {
        QStringList choices;
        for (std::string_view choice : spec.choices)
            choices << text(choice);
        return choices.join(QLatin1Char('|'));
    }
    case settings::SettingKind::Switch:
        return QStringLiteral("0|1");
    default:
        return text(spec.valueName);
    }
}

void addSettingOption(CliParser& parser, const settings::SettingSpec& spec, const settings::SettingValue& fallback)
{
    const QString help = QString::fromStdString(settings::settingHelp(spec, fallback));
    if (spec.kind == settings::SettingKind::Flag)
        parser.flag(text(spec.flag), help);
    else
        parser.option(text(spec.flag), settingValueName(spec), help);
}

std::optional<settings::SettingValue> settingOptionValue(const CliParser& parser, const settings::SettingSpec& spec)
{
    const QString flag = text(spec.flag);
    if (!parser.isSet(flag)) {
        if (spec.required)
            parser.usageError(QStringLiteral("--%1 is required").arg(flag));
        return std::nullopt;
    }
    try {
        return settings::parseSettingValue(spec, parser.value(flag).toStdString());
    } catch (const Error& error) {
        parser.usageError(QString::fromUtf8(error.what()));
    }
}

} // namespace stratex::cli
