// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stratex::exporting {

// A Python 3 string literal of `text` (the Python Language Reference, "String and Bytes
// literals"): double quotes; \ and " escaped; \n \r \t; every other control character and DEL as
// \xHH; every non-ASCII character as \uXXXX or \UXXXXXXXX, so the written module is pure ASCII
// whatever its encoding declaration; a byte that does not start a valid UTF-8 sequence becomes
// \ufffd. A crafted model name ("\")\nimport os\n#") stays one string: it cannot end the literal
// or the line.
std::string pythonString(std::string_view text);

// A Python float literal that reads back as the same double (the shortest round trip, always with
// a "." or an exponent so that Python reads a float); float("nan") / float("inf") otherwise.
std::string pythonFloat(double value);

// A Python identifier made of `text`: every byte but ASCII letters, digits and _ becomes _, and a
// leading digit (or an empty text) gets a _ in front.
std::string pythonIdentifier(std::string_view text);

// Python's True / False.
std::string pythonBool(bool value);

// A Python list of string literals (pythonString each): ["a", "b"].
std::string pythonStringList(const std::vector<std::string>& items);

} // namespace stratex::exporting
