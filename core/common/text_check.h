// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace stratex {

// Where a text file stops being printable UTF-8.
struct TextFault {
    int line = 0; // 1-based
    std::string found; // e.g. "byte 0x80 (not UTF-8)", "control character 0x01"
};

// The first byte of `text` that is not part of valid UTF-8 or is a control character other than
// tab, CR and LF; nullopt when the whole text is printable. Text read from a user's file ends up
// in JSON output, terminals and scripts, which all need it to be both.
std::optional<TextFault> findUnprintableText(std::string_view text);

} // namespace stratex
