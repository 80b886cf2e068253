// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::profile {

// Galvatron's profile files key their numbers by names such as "layertype_0_bsz8_seq2048",
// "allreduce_size_8_consec_1" or "all2all_size_4_64MB_time". These helpers read such names the way
// Galvatron does (split on '_', all-digit strings become integers) without throwing.

// The integer of an all-digit string ("2048" -> 2048); nullopt for anything else ("", "2k", "-1").
std::optional<int> parseAllDigits(std::string_view text);

// Splits on '_' keeping empty fields ("a__b" -> "a", "", "b").
std::vector<std::string_view> splitUnderscore(std::string_view text);

bool startsWith(std::string_view text, std::string_view prefix);
bool contains(std::string_view text, std::string_view part);

// Numbers listed as "1, 2, 4" for messages.
std::string joinNumbers(const std::vector<int>& numbers);

} // namespace stratex::profile
