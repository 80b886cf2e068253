// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/common/json_reader.h"
#include "core/settings/setting.h"

namespace stratex::settings {

// The settings of one struct S (search, planner, synthesis), one row each, in help order.
template <typename S> class SettingTable {
public:
    explicit SettingTable(std::vector<Setting<S>> rows)
        : m_rows(std::move(rows))
    {
        for (std::size_t i = 0; i < m_rows.size(); ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                if (m_rows[i].spec.flag == m_rows[j].spec.flag)
                    throw std::logic_error("setting --" + std::string(m_rows[i].spec.flag) + " is listed twice");
            }
        }
    }

    const std::vector<Setting<S>>& rows() const { return m_rows; }

    const Setting<S>* find(std::string_view flag) const
    {
        const auto it = std::find_if(
            m_rows.begin(), m_rows.end(), [flag](const Setting<S>& row) { return row.spec.flag == flag; });
        return it == m_rows.end() ? nullptr : &*it;
    }

    // For code that names a setting of its own table: a wrong flag is a programming error.
    const Setting<S>& at(std::string_view flag) const
    {
        if (const Setting<S>* row = find(flag))
            return *row;
        throw std::logic_error("no setting --" + std::string(flag));
    }

    std::vector<SettingSpec> specs() const
    {
        std::vector<SettingSpec> specs;
        for (const Setting<S>& row : m_rows)
            specs.push_back(row.spec);
        return specs;
    }

    std::vector<SettingValue> values(const S& settings) const
    {
        std::vector<SettingValue> values;
        for (const Setting<S>& row : m_rows)
            values.push_back(row.get(settings));
        return values;
    }

    std::string help(std::string_view flag) const { return settingHelp(at(flag).spec, at(flag).get(S {})); }

    // Every setting under its JSON key (flag with '_'), in table order.
    nlohmann::ordered_json toJson(const S& settings) const
    {
        nlohmann::ordered_json json = nlohmann::ordered_json::object();
        for (const Setting<S>& row : m_rows) {
            std::visit([&](const auto& value) { json[row.spec.jsonKey()] = value; }, row.get(settings));
        }
        return json;
    }

    // Sets the settings an object names; the others keep their values. Unknown keys and values
    // of the wrong type or range are InputErrors naming file and key path. Returns the flags set.
    SettingNames applyJson(S& settings, const JsonView& object) const
    {
        object.requireObject();
        SettingNames given;
        for (const auto& [key, view] : object.members()) {
            const Setting<S>* row = nullptr;
            for (const Setting<S>& candidate : m_rows) {
                if (candidate.spec.jsonKey() == key)
                    row = &candidate;
            }
            if (!row)
                view.fail("a known setting key (e.g. " + m_rows.front().spec.jsonKey() + ")");
            const SettingValue value = valueFromJson(row->spec, view);
            const std::string problem = settingValueProblem(row->spec, value);
            if (!problem.empty())
                view.fail(expectedText(row->spec));
            row->set(settings, value);
            given.insert(std::string(row->spec.flag));
        }
        return given;
    }

private:
    static SettingValue valueFromJson(const SettingSpec& spec, const JsonView& view)
    {
        switch (spec.kind) {
        case SettingKind::Integer:
            return view.integer();
        case SettingKind::Real:
            return view.number();
        case SettingKind::Flag:
        case SettingKind::Switch:
            return view.boolean();
        case SettingKind::Choice:
        case SettingKind::Text:
            return view.string();
        }
        return {};
    }

    std::vector<Setting<S>> m_rows;
};

// Row builders: a spec plus a member (or a member of a member) of S. Integers, doubles, bools
// and strings map to the matching SettingValue; enums go through their name functions.
namespace detail {

template <typename T> SettingValue toValue(const T& value)
{
    if constexpr (std::is_same_v<T, bool>)
        return value;
    else if constexpr (std::is_integral_v<T>)
        return std::int64_t(value);
    else if constexpr (std::is_floating_point_v<T>)
        return double(value);
    else
        return std::string(value);
}

template <typename T> T fromValue(const SettingValue& value)
{
    if constexpr (std::is_same_v<T, bool>)
        return std::get<bool>(value);
    else if constexpr (std::is_integral_v<T>)
        return T(std::get<std::int64_t>(value));
    else if constexpr (std::is_floating_point_v<T>)
        return T(std::get<double>(value));
    else
        return T(std::get<std::string>(value));
}

} // namespace detail

template <typename S, typename T> Setting<S> row(SettingSpec spec, T S::*member)
{
    return { std::move(spec), [member](const S& s) { return detail::toValue(s.*member); },
        [member](S& s, const SettingValue& value) { s.*member = detail::fromValue<T>(value); } };
}

template <typename S, typename Inner, typename T> Setting<S> row(SettingSpec spec, Inner S::*outer, T Inner::*member)
{
    return { std::move(spec), [outer, member](const S& s) { return detail::toValue((s.*outer).*member); },
        [outer, member](S& s, const SettingValue& value) { (s.*outer).*member = detail::fromValue<T>(value); } };
}

template <typename S, typename Outer, typename Inner, typename T>
Setting<S> row(SettingSpec spec, Outer S::*outer, Inner Outer::*inner, T Inner::*member)
{
    return { std::move(spec),
        [outer, inner, member](const S& s) { return detail::toValue(((s.*outer).*inner).*member); },
        [outer, inner, member](
            S& s, const SettingValue& value) { ((s.*outer).*inner).*member = detail::fromValue<T>(value); } };
}

// An enum member shown by name: the choices are name(value) of `values`, in that order.
template <typename S, typename E, typename NameOf>
Setting<S> choiceRow(SettingSpec spec, E S::*member, NameOf name, std::initializer_list<E> values)
{
    spec.kind = SettingKind::Choice;
    spec.choices.clear();
    std::vector<E> all(values);
    for (E value : all)
        spec.choices.push_back(name(value));
    return { std::move(spec), [member, name](const S& s) { return SettingValue(std::string(name(s.*member))); },
        [member, name, all](S& s, const SettingValue& value) {
            for (E candidate : all) {
                if (name(candidate) == std::get<std::string>(value))
                    s.*member = candidate;
            }
        } };
}

} // namespace stratex::settings
