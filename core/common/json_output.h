// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Every JSON file and JSON report Stratex writes goes through jsonText() (issue 26: every string
// written must be escaped for its format; a non-finite number must not make invalid JSON). The
// policy, one for all writers:
// - strings: nlohmann's escaping (quote, backslash, every control character as \n, \t or
//   \u00XX); a byte that is not UTF-8 (a run's id from a Latin-1 file name) is written as U+FFFD
//   instead of failing the write with nlohmann's type_error;
// - numbers: NaN and infinities have no JSON form. nlohmann writes them as null, which a reader
//   takes for "no value" ("iteration inf s" read back as a missing time, issue 26), so they are
//   refused: stratex::Error naming the output and the key path, before anything is written.
// The Chrome trace writer streams its events by hand; its strings go through jsonString().

#include <cmath>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/common/error.h"

namespace stratex {

// The JSON pointer ("/runs/3/predicted_iteration_s") of the first number in `json` that is NaN or
// infinite, depth first in document order; empty when every number is finite. `found` gets the
// value as text ("inf", "-inf", "nan").
template <typename Json> std::string firstNonFiniteNumber(const Json& json, std::string* found = nullptr)
{
    if (json.is_number_float()) {
        const double value = json.template get<double>();
        if (std::isfinite(value))
            return {};
        if (found)
            *found = std::isnan(value) ? "nan" : value > 0 ? "inf" : "-inf";
        return "/";
    }
    auto child = [&](const std::string& key, const Json& value) -> std::string {
        const std::string path = firstNonFiniteNumber(value, found);
        if (path.empty())
            return {};
        // RFC 6901: "~" and "/" in a key are written "~0" and "~1".
        std::string escaped;
        for (const char c : key)
            escaped += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
        return "/" + escaped + (path == "/" ? "" : path);
    };
    if (json.is_object()) {
        for (auto it = json.begin(); it != json.end(); ++it) {
            if (std::string path = child(it.key(), it.value()); !path.empty())
                return path;
        }
    } else if (json.is_array()) {
        for (std::size_t i = 0; i < json.size(); ++i) {
            if (std::string path = child(std::to_string(i), json[i]); !path.empty())
                return path;
        }
    }
    return {};
}

// `json` as text (indent as nlohmann's dump: -1 compact), by the policy above. `output` names what
// is written (a file, "the calibrated cluster") in the error.
template <typename Json> std::string jsonText(const Json& json, int indent, std::string_view output)
{
    std::string found;
    if (const std::string path = firstNonFiniteNumber(json, &found); !path.empty())
        throw Error(std::string(output) + ": " + path + " is " + found
            + ", which JSON cannot hold: not written (a computed value overflowed; check the inputs' sizes and "
              "figures)");
    return json.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// One JSON string literal, quoted, by the policy above.
inline std::string jsonString(std::string_view text)
{
    return nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace stratex
