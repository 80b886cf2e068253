// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/batch_config.h"

#include <charconv>
#include <limits>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/text_check.h"

namespace stratex::ranks {

namespace {
std::string_view trimmed(std::string_view text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

bool isSeparator(char c)
{
    return c == ' ' || c == '\t' || c == ',' || c == '\r';
}

// Strips the quotes of a bash array element ("8192 16 8") so lines copied from the seed script work.
std::string_view unquoted(std::string_view text)
{
    if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front())
        return trimmed(text.substr(1, text.size() - 2));
    return text;
}
} // namespace

BatchConfig defaultBatchConfig()
{
    BatchConfig config;
    config.world = 8192;
    config.pp = 2;
    config.tp = 2;
    config.source = "8192 2 2";
    return config;
}

BatchConfig parseBatchConfigLine(std::string_view line, int lineNumber)
{
    BatchConfig config;
    config.lineNumber = lineNumber;
    std::string_view body = line;
    if (const auto hash = body.find('#'); hash != std::string_view::npos)
        body = body.substr(0, hash);
    body = unquoted(trimmed(body));
    config.source = std::string(body);

    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < body.size()) {
        while (i < body.size() && isSeparator(body[i]))
            ++i;
        const std::size_t start = i;
        while (i < body.size() && !isSeparator(body[i]))
            ++i;
        if (i > start)
            fields.push_back(body.substr(start, i - start));
    }
    if (fields.size() != 3) {
        config.parseError = "expected three numbers \"WORLD_SIZE PP TP\", found " + std::to_string(fields.size())
            + (fields.size() == 1 ? " field" : " fields");
        return config;
    }
    static constexpr const char* kNames[] = { "WORLD_SIZE", "PP", "TP" };
    int* targets[] = { &config.world, &config.pp, &config.tp };
    for (std::size_t f = 0; f < 3; ++f) {
        long long value = 0;
        const auto [end, ec] = std::from_chars(fields[f].data(), fields[f].data() + fields[f].size(), value);
        if (ec != std::errc() || end != fields[f].data() + fields[f].size()) {
            config.parseError
                = std::string(kNames[f]) + " must be an integer, found \"" + std::string(fields[f]) + "\"";
            return config;
        }
        if (value <= 0 || value > std::numeric_limits<int>::max()) {
            config.parseError = std::string(kNames[f]) + " must be a positive integer, found " + std::string(fields[f]);
            return config;
        }
        *targets[f] = static_cast<int>(value);
    }
    return config;
}

std::vector<BatchConfig> parseBatchConfigs(std::string_view text)
{
    std::vector<BatchConfig> configs;
    int lineNumber = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        ++lineNumber;
        const std::string_view line = trimmed(text.substr(start, end - start));
        if (!line.empty() && line.front() != '#')
            configs.push_back(parseBatchConfigLine(line, lineNumber));
        if (end == text.size())
            break;
        start = end + 1;
    }
    return configs;
}

std::vector<BatchConfig> loadBatchConfigs(const std::filesystem::path& file)
{
    const std::string text = readTextFile(file);
    if (const std::optional<TextFault> fault = findUnprintableText(text))
        throw InputError(file.string(), "line " + std::to_string(fault->line),
            "printable UTF-8 text (\"WORLD_SIZE PP TP\" per line)", fault->found);
    std::vector<BatchConfig> configs = parseBatchConfigs(text);
    // An empty file is a mistake, not a request for the default batch.
    if (configs.empty())
        throw InputError(file.string(), "", "at least one \"WORLD_SIZE PP TP\" line", "no batch configs");
    return configs;
}

} // namespace stratex::ranks
