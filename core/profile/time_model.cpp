// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/time_model.h"

#include <algorithm>
#include <map>

#include "core/common/error.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

namespace {

std::string layerPrefix(int layerType)
{
    return "layertype_" + std::to_string(layerType) + "_";
}

constexpr std::string_view kOtherPrefix = "layertype_other_";

const TimeEntry* firstWithPrefix(const ComputationProfile& profile, std::string_view prefix)
{
    for (const TimeEntry& entry : profile.processed) {
        if (startsWith(entry.key, prefix))
            return &entry;
    }
    return nullptr;
}

const TimeEntry* exactKey(const ComputationProfile& profile, std::string_view key)
{
    for (const TimeEntry& entry : profile.processed) {
        if (entry.key == key)
            return &entry;
    }
    return nullptr;
}

[[noreturn]] void failKey(
    const ComputationProfile& profile, const std::string& key, const std::string& expected, const std::string& found)
{
    throw InputError(profile.file, "/" + key, expected, found);
}

// v2.0 files have no "other" time: derive it from the raw runs at the layer entry's batch size as
// (T(Lmin) - Lmin * t * b) / b, clipped at 0 (the profiler's own rule).
std::optional<double> otherFromRaw(const ComputationProfile& profile, double layerMs)
{
    struct Run {
        int layers;
        int bsz;
        double ms;
    };
    std::vector<Run> runs;
    for (const TimeEntry& entry : profile.raw) {
        // "layernum[6]_bsz2" / "layernum[6]_bsz2_seq512" / "layernum6_bsz2_seq512"
        std::string_view key = entry.key;
        const auto fields = splitUnderscore(key);
        if (fields.size() < 2 || !startsWith(fields[1], "bsz"))
            continue;
        std::string_view layers = fields[0].substr(8);
        if (!layers.empty() && layers.front() == '[' && layers.back() == ']')
            layers = layers.substr(1, layers.size() - 2);
        const auto l = parseAllDigits(layers);
        const auto b = parseAllDigits(fields[1].substr(3));
        if (l && b && *b > 0)
            runs.push_back({ *l, *b, entry.value_ms });
    }
    if (runs.empty())
        return std::nullopt;
    const Run* smallest = &runs.front();
    for (const Run& run : runs) {
        if (run.layers < smallest->layers || (run.layers == smallest->layers && run.bsz < smallest->bsz))
            smallest = &run;
    }
    const double other = (smallest->ms - smallest->layers * layerMs * smallest->bsz) / smallest->bsz;
    return std::max(0.0, other);
}

TimeModels resolveStatic(const ComputationProfile& profile, int layerType)
{
    TimeModels models;
    const std::string prefix = layerPrefix(layerType);
    const TimeEntry* layer = firstWithPrefix(profile, prefix);
    if (!layer)
        layer = exactKey(profile, "layertype_" + std::to_string(layerType));
    if (!layer)
        failKey(profile, prefix + "*", "a key starting with \"" + prefix + "\" (time-profile-mode static)",
            "nothing (key missing)");
    models.layer = TimeModel::constant(layer->value_ms, "static: first key \"" + layer->key + "\"");
    if (const TimeEntry* other = firstWithPrefix(profile, kOtherPrefix)) {
        models.other = TimeModel::constant(other->value_ms, "static: first key \"" + other->key + "\"");
    } else if (const auto derived = otherFromRaw(profile, layer->value_ms)) {
        models.other = TimeModel::constant(*derived, "static: derived from the raw layernum runs (v2.0 file)");
    } else {
        failKey(profile, std::string(kOtherPrefix) + "*",
            "a key starting with \"layertype_other_\" or raw \"layernum[L]_bsz{b}\" runs to derive it from",
            "nothing (key missing)");
    }
    return models;
}

// Batch mode: points (bsz, value * bsz) of keys with `prefix` containing "_seq{S}".
TimeModel fitBatch(const ComputationProfile& profile, std::string_view prefix, int seqLength)
{
    const std::string seqPart = "_seq" + std::to_string(seqLength);
    std::vector<double> x;
    std::vector<double> y;
    TimeModel model;
    for (const TimeEntry& entry : profile.processed) {
        if (!startsWith(entry.key, prefix) || !contains(entry.key, seqPart))
            continue;
        const auto fields = splitUnderscore(entry.key);
        const std::string_view bszField = fields.size() >= 2 ? fields[fields.size() - 2] : std::string_view();
        const auto bsz = bszField.size() > 3 ? parseAllDigits(bszField.substr(3)) : std::nullopt;
        if (!bsz)
            failKey(profile, entry.key, "a key of the form \"" + std::string(prefix) + "bsz{b}" + seqPart + "\"",
                "\"" + entry.key + "\"");
        x.push_back(double(*bsz));
        y.push_back(entry.value_ms * *bsz);
        model.points.emplace_back(x.back(), y.back());
    }
    std::vector<int> sizes;
    for (double v : x)
        sizes.push_back(int(v));
    if (x.size() < 8)
        failKey(profile, std::string(prefix) + "bsz*" + seqPart,
            "at least 8 batch sizes at sequence length " + std::to_string(seqLength) + " for time-profile-mode batch",
            x.empty() ? "none" : std::to_string(x.size()) + " (bsz " + joinNumbers(sizes) + ")");
    const LinearFitResult fit = fitLine(x, y);
    if (!fit.ok)
        failKey(profile, std::string(prefix) + "bsz*" + seqPart, "at least two different batch sizes",
            "bsz " + joinNumbers(sizes));
    const std::vector<std::pair<double, double>> points = model.points;
    model = TimeModel::linear(fit.fit,
        "batch: linear fit over " + std::to_string(x.size()) + " batch sizes of \"" + std::string(prefix) + "*"
            + seqPart + "\"");
    model.points = points;
    return model;
}

// Sequence mode: points (seq, value) of keys with `prefix` containing "_bsz1_".
std::pair<std::vector<double>, std::vector<double>> sequencePoints(
    const ComputationProfile& profile, std::string_view prefix)
{
    std::vector<double> x;
    std::vector<double> y;
    for (const TimeEntry& entry : profile.processed) {
        if (!startsWith(entry.key, prefix) || !contains(entry.key, "_bsz1_"))
            continue;
        const std::size_t at = entry.key.rfind("seq");
        const auto seq
            = at == std::string::npos ? std::nullopt : parseAllDigits(std::string_view(entry.key).substr(at + 3));
        if (!seq)
            failKey(profile, entry.key,
                "a key ending in \"_seq{S}\" with one sequence length (time-profile-mode sequence)",
                "\"" + entry.key + "\"");
        x.push_back(double(*seq));
        y.push_back(entry.value_ms);
    }
    return { x, y };
}

// What a sequence-mode fit failed on, for its error: the sequence lengths found.
std::string sequenceLengthsFound(const std::vector<double>& x)
{
    std::vector<int> seqs(x.begin(), x.end());
    return x.empty() ? "none" : "sequence lengths " + joinNumbers(seqs);
}

// A sequence-mode model: the fit's value `ms` at the run's sequence length, with the points
// (x, y) it was fitted to; `fit` names the fit ("quadratic", "linear").
TimeModel sequenceModel(
    double ms, const std::string& fit, const std::vector<double>& x, const std::vector<double>& y, int seqLength)
{
    TimeModel model = TimeModel::constant(ms,
        "sequence: " + fit + " fit over " + std::to_string(x.size()) + " sequence lengths, at "
            + std::to_string(seqLength));
    for (std::size_t i = 0; i < x.size(); ++i)
        model.points.emplace_back(x[i], y[i]);
    return model;
}

TimeModels resolveSequence(const ComputationProfile& profile, int seqLength, int layerType)
{
    TimeModels models;
    const std::string prefix = layerPrefix(layerType);
    const double s = seqLength;

    const auto [lx, ly] = sequencePoints(profile, prefix);
    const QuadraticFitResult layerFit = fitQuadratic(lx, ly);
    if (!layerFit.ok)
        failKey(profile, prefix + "bsz1_seq*", "at least 3 sequence lengths at bsz 1 for time-profile-mode sequence",
            sequenceLengthsFound(lx));
    models.layer = sequenceModel(layerFit.fit.at(s), "quadratic", lx, ly, seqLength);

    const auto [ox, oy] = sequencePoints(profile, kOtherPrefix);
    const LinearFitResult otherFit = fitLine(ox, oy);
    if (!otherFit.ok)
        failKey(profile, std::string(kOtherPrefix) + "*bsz1_seq*",
            "at least 2 sequence lengths at bsz 1 for time-profile-mode sequence", sequenceLengthsFound(ox));
    models.other = sequenceModel(otherFit.fit.at(s), "linear", ox, oy, seqLength);
    return models;
}

} // namespace

std::string_view timeProfileModeName(TimeProfileMode mode)
{
    switch (mode) {
    case TimeProfileMode::Static:
        return "static";
    case TimeProfileMode::Batch:
        return "batch";
    case TimeProfileMode::Sequence:
        return "sequence";
    }
    return "static";
}

std::optional<TimeProfileMode> parseTimeProfileMode(std::string_view name)
{
    for (TimeProfileMode mode : { TimeProfileMode::Static, TimeProfileMode::Batch, TimeProfileMode::Sequence }) {
        if (timeProfileModeName(mode) == name)
            return mode;
    }
    return std::nullopt;
}

TimeModel TimeModel::constant(double ms, std::string source)
{
    TimeModel model;
    model.kind = Kind::Constant;
    model.constant_ms = ms;
    model.source = std::move(source);
    return model;
}

TimeModel TimeModel::linear(LinearFit fit, std::string source)
{
    TimeModel model;
    model.kind = Kind::Linear;
    model.fit = fit;
    model.source = std::move(source);
    return model;
}

TimeModels resolveTimeModels(const ComputationProfile& profile, TimeProfileMode mode, int seqLength, int layerType)
{
    switch (mode) {
    case TimeProfileMode::Static:
        return resolveStatic(profile, layerType);
    case TimeProfileMode::Batch:
        return { fitBatch(profile, layerPrefix(layerType), seqLength), fitBatch(profile, kOtherPrefix, seqLength) };
    case TimeProfileMode::Sequence:
        return resolveSequence(profile, seqLength, layerType);
    }
    return resolveStatic(profile, layerType);
}

} // namespace stratex::profile
