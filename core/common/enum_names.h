// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <utility>

namespace stratex {

// An enum's public names as one table, read both ways: the file formats and the CLI spell the
// values, and each enum keeps its spelling in one place.
template <typename Enum, std::size_t N> using EnumNames = std::array<std::pair<Enum, std::string_view>, N>;

template <typename Enum, std::size_t N> std::string_view enumName(const EnumNames<Enum, N>& names, Enum value)
{
    for (const auto& [candidate, name] : names) {
        if (candidate == value)
            return name;
    }
    return {};
}

template <typename Enum, std::size_t N>
std::optional<Enum> parseEnumName(const EnumNames<Enum, N>& names, std::string_view text)
{
    for (const auto& [candidate, name] : names) {
        if (name == text)
            return candidate;
    }
    return std::nullopt;
}

} // namespace stratex
