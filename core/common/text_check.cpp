// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/text_check.h"

#include <cstdio>

namespace stratex {

namespace {

std::string hexByte(unsigned char byte)
{
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "0x%02X", unsigned(byte));
    return buffer;
}

// Length of the UTF-8 sequence starting at text[i], or 0 when it is not one (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t sequenceLength(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead < 0x80)
        return 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0)
            low = 0xA0;
        if (lead == 0xED)
            high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0)
            low = 0x90;
        if (lead == 0xF4)
            high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > text.size())
        return 0;
    if (byte(i + 1) < low || byte(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 0;
    }
    return length;
}

} // namespace

std::optional<TextFault> findUnprintableText(std::string_view text)
{
    int line = 1;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '\n') {
            ++line;
            ++i;
            continue;
        }
        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7F)
            return TextFault { line, "control character " + hexByte(c) };
        const std::size_t length = sequenceLength(text, i);
        if (length == 0)
            return TextFault { line, "byte " + hexByte(c) + " (not UTF-8)" };
        i += length;
    }
    return std::nullopt;
}

} // namespace stratex
