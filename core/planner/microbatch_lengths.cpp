// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_lengths.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/planner/planner_rng.h"

namespace stratex::planner {

namespace {

constexpr std::string_view kLognormalPrefix = "lognormal:";
constexpr int kMaxSyntheticSamples = limits::kMaxSamples;
// exp(20) tokens is far beyond any model: a larger MEAN is the mean length, not its logarithm.
constexpr double kMaxMeanLog = 20;

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const auto pos = text.find(separator, start);
        parts.push_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos)
            break;
        start = pos + 1;
    }
    return parts;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n'))
        text.remove_suffix(1);
    return text;
}

bool parseDouble(std::string_view text, double& value)
{
    text = trim(text);
    if (text.empty())
        return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && std::isfinite(value);
}

template <typename Int> bool parseInteger(std::string_view text, Int& value)
{
    text = trim(text);
    if (text.empty())
        return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
}

int drawLength(PlannerRng& rng, const SyntheticLengthSpec& spec)
{
    const double length = std::exp(spec.mean_log + spec.sigma_log * rng.normal());
    const double clamped = std::clamp(std::round(length), double(spec.min_seqlen), double(spec.max_seqlen));
    return static_cast<int>(clamped);
}

std::vector<Sample> fromJson(const JsonView& root)
{
    std::vector<Sample> samples;
    const auto requireCount = [](const JsonView& array) {
        if (array.isArray() && array.size() > std::size_t(limits::kMaxSamples))
            array.fail("at most " + std::to_string(limits::kMaxSamples) + " samples");
    };
    auto readLengths = [&](const JsonView& array, int minimum) {
        requireCount(array);
        std::vector<int> lengths;
        for (const JsonView& element : array.elements()) {
            const std::int64_t value = element.integer();
            if (value < minimum || value > limits::kMaxSampleTokens)
                element.fail(std::string(minimum > 0 ? "a positive length" : "a length >= 0") + " of at most "
                    + std::to_string(limits::kMaxSampleTokens) + " tokens");
            lengths.push_back(static_cast<int>(value));
        }
        return lengths;
    };
    if (root.isObject()) {
        const std::vector<int> input = readLengths(root["sample_lengths"], 1);
        std::vector<int> target(input.size(), 0);
        if (const auto targets = root.find("target_lengths")) {
            target = readLengths(*targets, 0);
            if (target.size() != input.size())
                targets->fail("as many target lengths as sample lengths (" + std::to_string(input.size()) + ")");
        }
        for (std::size_t i = 0; i < input.size(); ++i)
            samples.push_back({ static_cast<int>(i), input[i], target[i] });
    } else {
        requireCount(root);
        const std::vector<JsonView> elements = root.elements();
        for (std::size_t i = 0; i < elements.size(); ++i) {
            Sample sample { static_cast<int>(i), 0, 0 };
            if (elements[i].isArray()) {
                if (elements[i].size() != 2)
                    elements[i].fail("[encoder length, decoder length]");
                sample.seqlen = readLengths(elements[i], 0).at(0);
                sample.decoder_seqlen = readLengths(elements[i], 0).at(1);
                if (sample.seqlen < 1)
                    elements[i].at(0).fail("a positive length in tokens");
            } else {
                const std::int64_t value = elements[i].integer();
                if (value < 1 || value > limits::kMaxSampleTokens)
                    elements[i].fail(
                        "a positive length of at most " + std::to_string(limits::kMaxSampleTokens) + " tokens");
                sample.seqlen = static_cast<int>(value);
            }
            samples.push_back(sample);
        }
    }
    if (samples.empty())
        root.fail("at least one sample length");
    return samples;
}

std::vector<Sample> fromText(std::string_view text, const std::string& name)
{
    std::vector<Sample> samples;
    int lineNumber = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto end = text.find('\n', start);
        std::string_view line
            = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        start = end == std::string_view::npos ? text.size() + 1 : end + 1;
        ++lineNumber;
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        std::string normalized(trim(line));
        std::replace(normalized.begin(), normalized.end(), ',', ' ');
        std::replace(normalized.begin(), normalized.end(), '\t', ' ');
        if (normalized.empty())
            continue;
        std::istringstream fields(normalized);
        std::vector<std::string> tokens;
        for (std::string token; fields >> token;)
            tokens.push_back(token);
        const std::string where = "line " + std::to_string(lineNumber);
        // A line of separators only ("," or ", ,") has text but no field.
        if (tokens.empty())
            throw InputError(
                name, where, "one length, or an encoder and a decoder length", "\"" + std::string(trim(line)) + "\"");
        if (tokens.size() > 2)
            throw InputError(name, where, "one length, or an encoder and a decoder length", "\"" + normalized + "\"");
        if (samples.size() >= std::size_t(limits::kMaxSamples))
            throw InputError(name, where, "at most " + std::to_string(limits::kMaxSamples) + " samples",
                "sample " + std::to_string(samples.size() + 1));
        Sample sample { static_cast<int>(samples.size()), 0, 0 };
        const std::string most = " of at most " + std::to_string(limits::kMaxSampleTokens) + " tokens";
        if (!parseInteger(tokens[0], sample.seqlen) || sample.seqlen < 1 || sample.seqlen > limits::kMaxSampleTokens)
            throw InputError(name, where, "a positive length" + most, "\"" + tokens[0] + "\"");
        if (tokens.size() == 2
            && (!parseInteger(tokens[1], sample.decoder_seqlen) || sample.decoder_seqlen < 0
                || sample.decoder_seqlen > limits::kMaxSampleTokens))
            throw InputError(name, where, "a decoder length >= 0" + most, "\"" + tokens[1] + "\"");
        samples.push_back(sample);
    }
    if (samples.empty())
        throw InputError(name, "", "at least one sample length", "no lengths");
    return samples;
}

} // namespace

std::string SyntheticLengthSpec::text() const
{
    std::ostringstream out;
    out << kLognormalPrefix << mean_log << ',' << sigma_log << ',' << count << ':' << seed;
    return out.str();
}

SyntheticLengthSpec parseSyntheticLengthSpec(std::string_view text)
{
    const std::string usage = "expected lognormal:MEAN,SIGMA,N[:SEED], got \"" + std::string(text) + "\"";
    if (text.substr(0, kLognormalPrefix.size()) != kLognormalPrefix)
        throw Error("unknown length distribution: " + usage);
    const std::vector<std::string_view> parts = split(text.substr(kLognormalPrefix.size()), ':');
    if (parts.size() > 2)
        throw Error(usage);
    const std::vector<std::string_view> numbers = split(parts[0], ',');
    if (numbers.size() != 3)
        throw Error(usage);
    SyntheticLengthSpec spec;
    if (!parseDouble(numbers[0], spec.mean_log))
        throw Error("MEAN must be a number: " + usage);
    if (spec.mean_log > kMaxMeanLog) {
        throw Error("MEAN is the mean of ln(length), not of the length: " + std::string(trim(numbers[0]))
            + " is too large (for a median of 400 tokens use " + std::to_string(std::log(400.0)).substr(0, 4) + ")");
    }
    if (!parseDouble(numbers[1], spec.sigma_log) || spec.sigma_log < 0)
        throw Error("SIGMA must be a number >= 0: " + usage);
    if (!parseInteger(numbers[2], spec.count) || spec.count < 1 || spec.count > kMaxSyntheticSamples)
        throw Error("N must be an integer from 1 to " + std::to_string(kMaxSyntheticSamples) + ": " + usage);
    if (parts.size() == 2 && !parseInteger(parts[1], spec.seed))
        throw Error("SEED must be a non-negative integer: " + usage);
    return spec;
}

std::vector<Sample> generateSyntheticSamples(const SyntheticLengthSpec& spec, bool encoderDecoder)
{
    PlannerRng rng(spec.seed);
    std::vector<Sample> samples;
    samples.reserve(static_cast<std::size_t>(spec.count));
    for (int i = 0; i < spec.count; ++i) {
        Sample sample { i, drawLength(rng, spec), 0 };
        if (encoderDecoder)
            sample.decoder_seqlen = drawLength(rng, spec);
        samples.push_back(sample);
    }
    return samples;
}

std::vector<Sample> parseSampleLengths(std::string_view text, const std::string& name)
{
    const std::string_view body = trim(text);
    if (!body.empty() && (body.front() == '[' || body.front() == '{')) {
        const JsonDocument document = JsonDocument::parse(text, name);
        return fromJson(document.root());
    }
    return fromText(text, name);
}

std::vector<Sample> loadSampleLengths(const std::filesystem::path& path)
{
    return parseSampleLengths(readTextFile(path), path.string());
}

} // namespace stratex::planner
