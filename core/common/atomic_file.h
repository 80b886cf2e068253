// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string_view>

namespace stratex {

enum class FileMode { Regular, Executable };

// Writes the whole content to a temporary file next to `path` and renames it over `path`, so a
// reader never sees a half-written file and a failed write leaves the old file untouched.
// Throws stratex::Error naming the file on failure.
void writeFileAtomically(
    const std::filesystem::path& path, std::string_view content, FileMode mode = FileMode::Regular);

// Reads a whole file; throws stratex::Error naming the file when it cannot be read.
std::string readTextFile(const std::filesystem::path& path);

} // namespace stratex
