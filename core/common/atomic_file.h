// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace stratex {

enum class FileMode { Regular, Executable };

// Writes the whole content to a temporary file next to `path` and renames it over `path`, so a
// reader never sees a half-written file and a failed write leaves the old file untouched.
// Throws stratex::Error naming the file on failure.
void writeFileAtomically(
    const std::filesystem::path& path, std::string_view content, FileMode mode = FileMode::Regular);

// Reads a whole regular file (symbolic links followed) of at most maxInputBytes(); throws
// stratex::Error naming the file when it cannot be read, is a directory, a device, a FIFO or a
// socket, or is larger than the limit. Never reads more than the limit plus one byte.
std::string readTextFile(const std::filesystem::path& path);

// The size limit of every input file (limits::kDefaultMaxInputBytes unless set; the CLI's
// --max-input-mb sets it for the process). Thread-safe.
std::int64_t maxInputBytes();
void setMaxInputBytes(std::int64_t bytes);

} // namespace stratex
