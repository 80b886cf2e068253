// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small text helpers for the line-oriented readers of measured runs (Megatron-LM logs): numbers
// parsed locale-independently and exactly (std::from_chars), nothing allocated per character.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::runs {

std::string_view trimmed(std::string_view text);

// A finite decimal number spanning the whole (trimmed) text, or nullopt.
std::optional<double> parseNumber(std::string_view text);
// A whole number spanning the whole (trimmed) text, or nullopt.
std::optional<long long> parseWholeNumber(std::string_view text);

// The text's lines without their line ends (LF or CRLF); line i of the file is element i - 1.
std::vector<std::string_view> splitLines(std::string_view text);

// At most `limit` characters of `text` for an error message, with "..." when cut.
std::string excerpt(std::string_view text, std::size_t limit = 80);

} // namespace stratex::runs
