// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace stratex::exporting {

// 'text' for POSIX shells: single quotes, embedded single quotes as '\''.
std::string shellQuote(std::string_view text);

// A text made safe for one "# ..." comment line of a script or a TOML file: every control
// character but tab becomes a space.
std::string commentLine(std::string_view text);

// A text made safe as part of a file name: every byte but letters, digits and . _ + - becomes _,
// so a model name cannot name a subfolder or climb out of the export folder.
std::string fileNamePart(std::string_view text);

} // namespace stratex::exporting
