// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace stratex {

// Base of every error core reports to a user: the message is one line that says what is wrong
// and, where it applies, which value caused it.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Bad input read from a file: names the file, the JSON key path (or line), what was expected
// and what was found, so the user can fix the file without reading our code.
class InputError : public Error {
public:
    InputError(std::string file, std::string keyPath, std::string expected, std::string found);

    const std::string& file() const { return m_file; }
    const std::string& keyPath() const { return m_keyPath; }
    const std::string& expected() const { return m_expected; }
    const std::string& found() const { return m_found; }

private:
    std::string m_file;
    std::string m_keyPath;
    std::string m_expected;
    std::string m_found;
};

} // namespace stratex
