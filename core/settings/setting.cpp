// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/settings/setting.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "core/common/error.h"

namespace stratex::settings {

namespace {

std::string shortest(double value)
{
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

std::string joined(const std::vector<std::string_view>& items, std::string_view separator)
{
    std::string text;
    for (std::string_view item : items) {
        if (!text.empty())
            text += separator;
        text += item;
    }
    return text;
}

std::string inQuotes(std::string_view text)
{
    return "\"" + std::string(text) + "\"";
}

[[noreturn]] void reject(const SettingSpec& spec, std::string_view found)
{
    throw Error("--" + std::string(spec.flag) + ": expected " + expectedText(spec) + ", found " + inQuotes(found));
}

} // namespace

SettingSpec settingSpec(SettingKind kind, std::string_view flag, std::string_view group, std::string_view label,
    std::string_view valueName, std::string_view help, double minimum, double maximum)
{
    SettingSpec spec;
    spec.kind = kind;
    spec.flag = flag;
    spec.group = group;
    spec.label = label;
    spec.valueName = valueName;
    spec.help = help;
    spec.minimum = minimum;
    spec.maximum = maximum;
    return spec;
}

std::string SettingSpec::jsonKey() const
{
    std::string key(flag);
    std::replace(key.begin(), key.end(), '-', '_');
    return key;
}

std::string expectedText(const SettingSpec& spec)
{
    switch (spec.kind) {
    case SettingKind::Integer:
        return "an integer from " + shortest(spec.minimum) + " to " + shortest(spec.maximum);
    case SettingKind::Real:
        return "a number from " + shortest(spec.minimum) + " to " + shortest(spec.maximum);
    case SettingKind::Flag:
        return "no value";
    case SettingKind::Switch:
        return "0 or 1";
    case SettingKind::Choice:
        return "one of " + joined(spec.choices, ", ");
    case SettingKind::Text:
        return "a text";
    }
    return {};
}

std::string settingValueProblem(const SettingSpec& spec, const SettingValue& value)
{
    const auto outOfRange = [&](double number) { return !(number >= spec.minimum && number <= spec.maximum); };
    switch (spec.kind) {
    case SettingKind::Integer:
        if (!std::holds_alternative<std::int64_t>(value))
            return "expected an integer";
        if (outOfRange(double(std::get<std::int64_t>(value))))
            return "expected " + expectedText(spec) + ", found " + std::to_string(std::get<std::int64_t>(value));
        return {};
    case SettingKind::Real:
        if (!std::holds_alternative<double>(value))
            return "expected a number";
        if (!std::isfinite(std::get<double>(value)) || outOfRange(std::get<double>(value)))
            return "expected " + expectedText(spec) + ", found " + shortest(std::get<double>(value));
        return {};
    case SettingKind::Flag:
    case SettingKind::Switch:
        return std::holds_alternative<bool>(value) ? std::string() : std::string("expected true or false");
    case SettingKind::Choice: {
        if (!std::holds_alternative<std::string>(value))
            return "expected " + expectedText(spec);
        const std::string& text = std::get<std::string>(value);
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
            return "expected " + expectedText(spec) + ", found " + inQuotes(text);
        return {};
    }
    case SettingKind::Text:
        return std::holds_alternative<std::string>(value) ? std::string() : std::string("expected a text");
    }
    return {};
}

SettingValue parseSettingValue(const SettingSpec& spec, std::string_view text)
{
    SettingValue value;
    switch (spec.kind) {
    case SettingKind::Integer: {
        std::int64_t number = 0;
        const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
        if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size())
            reject(spec, text);
        value = number;
        break;
    }
    case SettingKind::Real: {
        double number = 0;
        const auto result = std::from_chars(text.data(), text.data() + text.size(), number);
        if (text.empty() || result.ec != std::errc() || result.ptr != text.data() + text.size())
            reject(spec, text);
        value = number;
        break;
    }
    case SettingKind::Flag:
        value = true;
        break;
    case SettingKind::Switch:
        if (text != "0" && text != "1")
            reject(spec, text);
        value = text == "1";
        break;
    case SettingKind::Choice:
    case SettingKind::Text:
        value = std::string(text);
        break;
    }
    if (!settingValueProblem(spec, value).empty())
        reject(spec, text);
    return value;
}

std::string formatSettingValue(const SettingSpec& spec, const SettingValue& value)
{
    return std::visit(
        [&spec](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>)
                return std::to_string(v);
            else if constexpr (std::is_same_v<T, double>)
                return shortest(v);
            else if constexpr (std::is_same_v<T, bool>)
                return spec.kind == SettingKind::Flag ? (v ? "on" : "off") : (v ? "1" : "0");
            else
                return v;
        },
        value);
}

std::string settingHelp(const SettingSpec& spec, const SettingValue& defaultValue)
{
    std::string help(spec.help);
    if (spec.kind == SettingKind::Flag)
        return help;
    if (!help.empty() && help.back() == '.')
        help.pop_back();
    // A required setting has no default to tell.
    if (spec.required)
        return help + " (required).";
    std::string fallback;
    if (!spec.defaultText.empty())
        fallback = std::string(spec.defaultText);
    else if (spec.kind == SettingKind::Text && std::get<std::string>(defaultValue).empty())
        fallback = "none";
    else
        fallback = formatSettingValue(spec, defaultValue);
    // A default at the minimum that has a name of its own: "-1: every divisor".
    const std::optional<double> number = std::holds_alternative<std::int64_t>(defaultValue)
        ? std::optional<double>(double(std::get<std::int64_t>(defaultValue)))
        : std::holds_alternative<double>(defaultValue) ? std::optional<double>(std::get<double>(defaultValue))
                                                       : std::nullopt;
    if (!spec.specialText.empty() && number == spec.minimum)
        fallback += ": " + std::string(spec.specialText);
    return help + " (default " + fallback + ").";
}

} // namespace stratex::settings
