// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// One row per setting, read by every front end: the CLI's options and --help, the GUI's forms
// and tooltips, JSON files of settings, and the tests. A row says what the setting is (flag,
// label, kind, range, choices, help) and how to read and write it in its settings struct, so a
// new setting is one row plus the code that uses it. The pointer-to-member table of KDAB
// hotspot's settings is the model.

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace stratex::settings {

enum class SettingKind {
    Integer, // --flag N
    Real, // --flag X
    Flag, // --flag (present = on)
    Switch, // --flag 0|1
    Choice, // --flag a|b|c
    Text, // --flag TEXT
};

// Integer, Real, Flag/Switch and Choice/Text values, in that order.
using SettingValue = std::variant<std::int64_t, double, bool, std::string>;

// The names (flags) of the settings a user gave explicitly; the others may be filled in from
// elsewhere (a synthesized profile set gives its model and cluster).
using SettingNames = std::set<std::string, std::less<>>;

// What one setting is, independent of the struct that holds it.
struct SettingSpec {
    std::string_view flag; // command-line option without "--"; the JSON key is the same with '_'
    std::string_view label; // GUI form label
    std::string_view group; // GUI form group, in the order groups first appear
    SettingKind kind = SettingKind::Integer;
    std::string_view valueName; // "N", "GB"; Choice: empty (the choices are listed)
    std::string_view help; // one or two sentences; "(default ...)" is appended from the struct
    std::string_view peerName; // the peer's name for it (Galvatron's search_dist.yaml key), if any
    double minimum = 0; // Integer and Real: the valid range
    double maximum = 0;
    std::vector<std::string_view> choices; // Choice
    std::string_view specialText; // GUI text shown for the minimum (e.g. -1: "every divisor")
    // Non-empty: the GUI can leave the setting open with this text; the value then comes from
    // the profiles (fromProfiles) instead of the form.
    std::string_view openText;
    // Left open (not given), the setting is taken from a synthesized profile set's record.
    bool fromProfiles = false;
    // Non-empty: the help says this instead of the struct's default ("the preset's").
    std::string_view defaultText;
    bool required = false; // the CLI insists on it; the help says "(required)" instead of a default

    std::string jsonKey() const;
    bool hasValue() const { return kind != SettingKind::Flag; }
};

// The fields every spec has; the others (choices, special texts, marks) are set on the result.
SettingSpec settingSpec(SettingKind kind, std::string_view flag, std::string_view group, std::string_view label,
    std::string_view valueName, std::string_view help, double minimum = 0, double maximum = 0);

// A setting of struct S: its spec and how to read and write it. `set` receives values that
// checkSettingValue accepted.
template <typename S> struct Setting {
    SettingSpec spec;
    std::function<SettingValue(const S&)> get;
    std::function<void(S&, const SettingValue&)> set;
};

// Parses a command-line or form text for the setting; throws stratex::Error naming the flag,
// what was expected and what was found ("--max-tp-deg: expected an integer from 1 to 1024,
// found \"x\"").
SettingValue parseSettingValue(const SettingSpec& spec, std::string_view text);
// The value as the CLI would take it ("8", "0.2", "1", "bf16").
std::string formatSettingValue(const SettingSpec& spec, const SettingValue& value);
// Empty when the value has the setting's type and lies in its range or choices, else why not.
std::string settingValueProblem(const SettingSpec& spec, const SettingValue& value);
// What is expected, for messages: "an integer from 1 to 1024", "one of bf16, fp16, fp32".
std::string expectedText(const SettingSpec& spec);
// The help with its default, as --help and the tooltips print it.
std::string settingHelp(const SettingSpec& spec, const SettingValue& defaultValue);

} // namespace stratex::settings
