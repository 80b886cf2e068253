// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/python_literal.h"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace stratex::exporting {

namespace {

constexpr char kHex[] = "0123456789abcdef";

std::string hex(std::uint32_t value, int digits)
{
    std::string out(std::size_t(digits), '0');
    for (int i = digits - 1; i >= 0; --i, value >>= 4)
        out[std::size_t(i)] = kHex[value & 15];
    return out;
}

// The code point of the valid UTF-8 sequence at text[i] and its length (RFC 3629: no overlongs,
// no surrogates, at most U+10FFFF), or length 0.
std::pair<std::uint32_t, std::size_t> decodeUtf8(std::string_view text, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
    const auto continuation = [&](std::size_t k, unsigned char low = 0x80, unsigned char high = 0xbf) {
        return i + k < text.size() && byte(k) >= low && byte(k) <= high;
    };
    const unsigned char c = byte(0);
    if (c >= 0xc2 && c <= 0xdf && continuation(1))
        return { (std::uint32_t(c & 0x1f) << 6) | (byte(1) & 0x3f), 2 };
    const bool three = (c == 0xe0 && continuation(1, 0xa0) && continuation(2))
        || (((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) && continuation(1) && continuation(2))
        || (c == 0xed && continuation(1, 0x80, 0x9f) && continuation(2));
    if (three)
        return { (std::uint32_t(c & 0x0f) << 12) | (std::uint32_t(byte(1) & 0x3f) << 6) | (byte(2) & 0x3f), 3 };
    const bool four = (c == 0xf0 && continuation(1, 0x90) && continuation(2) && continuation(3))
        || (c >= 0xf1 && c <= 0xf3 && continuation(1) && continuation(2) && continuation(3))
        || (c == 0xf4 && continuation(1, 0x80, 0x8f) && continuation(2) && continuation(3));
    if (four)
        return { (std::uint32_t(c & 0x07) << 18) | (std::uint32_t(byte(1) & 0x3f) << 12)
                | (std::uint32_t(byte(2) & 0x3f) << 6) | (byte(3) & 0x3f),
            4 };
    return { 0, 0 };
}

} // namespace

std::string pythonString(std::string_view text)
{
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20 || c == 0x7f)
                    out += "\\x" + hex(c, 2);
                else
                    out += char(c);
            }
            ++i;
            continue;
        }
        const auto [codePoint, length] = decodeUtf8(text, i);
        if (length == 0) {
            out += "\\ufffd";
            ++i;
        } else {
            out += codePoint > 0xffff ? "\\U" + hex(codePoint, 8) : "\\u" + hex(codePoint, 4);
            i += length;
        }
    }
    return out + "\"";
}

std::string pythonFloat(double value)
{
    if (!std::isfinite(value))
        return std::isnan(value) ? "float(\"nan\")" : (value > 0 ? "float(\"inf\")" : "-float(\"inf\")");
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value); // shortest round trip
    std::string text(buffer, result.ptr);
    if (text.find_first_of(".e") == std::string::npos)
        text += ".0";
    return text;
}

std::string pythonIdentifier(std::string_view text)
{
    std::string out;
    for (const char c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        out += keep ? c : '_';
    }
    if (out.empty() || (out[0] >= '0' && out[0] <= '9'))
        out.insert(out.begin(), '_');
    return out;
}

std::string pythonBool(bool value)
{
    return value ? "True" : "False";
}

std::string pythonStringList(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + pythonString(items[i]);
    return out + "]";
}

} // namespace stratex::exporting
