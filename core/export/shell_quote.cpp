// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/shell_quote.h"

namespace stratex::exporting {

std::string shellQuote(std::string_view text)
{
    // Inside single quotes every byte is literal but NUL, which no argument can hold: dropped.
    std::string quoted = "'";
    for (char c : text) {
        if (c == '\'')
            quoted += "'\\''";
        else if (c != '\0')
            quoted += c;
    }
    quoted += '\'';
    return quoted;
}

std::string commentLine(std::string_view text)
{
    std::string line;
    line.reserve(text.size());
    // A TOML comment may hold no control character but tab (TOML 1.0, "Comment"); a shell or
    // Python comment ends at a newline or carriage return. Every control character becomes a space,
    // so a crafted name ("x\n[job]\ny = 1") cannot start a line of its own (issue 26).
    for (char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        line += (byte < 0x20 && c != '\t') || byte == 0x7f ? ' ' : c;
    }
    return line;
}

std::string fileNamePart(std::string_view text)
{
    // Letters, digits and . _ + - only: a name with "/" wrote into subfolders, one with "../"
    // outside the chosen folder.
    std::string part;
    part.reserve(text.size());
    for (char c : text) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
            || c == '_' || c == '+' || c == '-';
        part += plain ? c : '_';
    }
    if (part.find_first_not_of('.') == std::string::npos)
        part = std::string(part.size(), '_'); // "." and ".." name folders
    return part;
}

} // namespace stratex::exporting
