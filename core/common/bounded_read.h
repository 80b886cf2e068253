// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace stratex {

// Reads a whole regular file (symbolic links followed) of at most maxInputBytes(); throws
// stratex::Error naming the file when it cannot be read, is a directory, a device, a FIFO or a
// socket, or is larger than the limit. Never reads more than the limit plus one byte.
std::string readTextFile(const std::filesystem::path& path);

// The size limit of every input file (limits::kDefaultMaxInputBytes unless set; the CLI's
// --max-input-mb sets it for the process). Thread-safe.
std::int64_t maxInputBytes();
void setMaxInputBytes(std::int64_t bytes);

} // namespace stratex
