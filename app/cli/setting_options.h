// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A settings table as command-line options: one option per row, its --help from the row and the
// struct's default; values parsed and range-checked by the row (usage errors, exit 2).

#include "app/cli/cli_parser.h"
#include "core/common/error.h"
#include "core/settings/setting_table.h"

namespace stratex::cli {

QString settingValueName(const settings::SettingSpec& spec);
void addSettingOption(CliParser& parser, const settings::SettingSpec& spec, const settings::SettingValue& fallback);
// The row's value on the command line, if given; a bad value is a usage error naming the flag.
std::optional<settings::SettingValue> settingOptionValue(const CliParser& parser, const settings::SettingSpec& spec);

template <typename S> void addSettingOptions(CliParser& parser, const settings::SettingTable<S>& table)
{
    const S defaults {};
    for (const settings::Setting<S>& row : table.rows())
        addSettingOption(parser, row.spec, row.get(defaults));
}

// The flags of the table's settings the command line gives.
template <typename S>
settings::SettingNames givenSettingOptions(const CliParser& parser, const settings::SettingTable<S>& table)
{
    settings::SettingNames given;
    for (const settings::Setting<S>& row : table.rows()) {
        if (parser.isSet(QString::fromUtf8(row.spec.flag.data(), qsizetype(row.spec.flag.size()))))
            given.insert(std::string(row.spec.flag));
    }
    return given;
}

// Sets every setting the command line gives; returns their flags.
template <typename S>
settings::SettingNames readSettingOptions(const CliParser& parser, const settings::SettingTable<S>& table, S& values)
{
    settings::SettingNames given;
    for (const settings::Setting<S>& row : table.rows()) {
        if (const auto value = settingOptionValue(parser, row.spec)) {
            row.set(values, *value);
            given.insert(std::string(row.spec.flag));
        }
    }
    return given;
}

} // namespace stratex::cli
