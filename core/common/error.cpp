// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/common/error.h"

namespace stratex {

namespace {
std::string composeMessage(
    const std::string& file, const std::string& keyPath, const std::string& expected, const std::string& found)
{
    std::string message = file.empty() ? std::string("<input>") : file;
    if (!keyPath.empty())
        message += ": " + keyPath;
    message += ": expected " + expected;
    if (!found.empty())
        message += ", found " + found;
    return message;
}
} // namespace

InputError::InputError(std::string file, std::string keyPath, std::string expected, std::string found)
    : Error(composeMessage(file, keyPath, expected, found))
    , m_file(std::move(file))
    , m_keyPath(std::move(keyPath))
    , m_expected(std::move(expected))
    , m_found(std::move(found))
{
}

} // namespace stratex
