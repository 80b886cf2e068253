// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::ranks {

// One "WORLD_SIZE PP TP" line of a tracer batch list (seed 001). A line that cannot be read
// keeps its text and the reason, so the list can report it and go on with the others.
struct BatchConfig {
    int world = 0;
    int pp = 0;
    int tp = 0;
    std::string source; // the line as written, without its comment
    int lineNumber = 0; // 1-based line in the file; 0 when not from a file
    std::string parseError; // empty when the three numbers were read

    bool operator==(const BatchConfig&) const = default;
};

// The seed tracer's single-config default (DEFAULT_FAKE_WORLD_SIZE / PP / TP).
BatchConfig defaultBatchConfig();

// Reads one line: three positive integers separated by blanks or commas, an optional trailing
// "# comment". Never throws; a bad line comes back with parseError set.
BatchConfig parseBatchConfigLine(std::string_view line, int lineNumber = 0);

// Reads a whole list: blank lines and lines starting with '#' are skipped.
std::vector<BatchConfig> parseBatchConfigs(std::string_view text);

// Reads a batch file with parseBatchConfigs. A file that cannot be read, is not UTF-8 or holds
// control characters throws (InputError naming the file and line): its lines are echoed into
// JSON, messages and scripts, so unlike a bad field this spoils the whole list.
std::vector<BatchConfig> loadBatchConfigs(const std::filesystem::path& file);

} // namespace stratex::ranks
