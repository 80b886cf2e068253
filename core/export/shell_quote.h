// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace stratex::exporting {

// 'text' for POSIX shells: single quotes, embedded single quotes as '\''.
std::string shellQuote(std::string_view text);

// A text made safe for one "# ..." comment line of a script (newlines become spaces).
std::string commentLine(std::string_view text);

} // namespace stratex::exporting
