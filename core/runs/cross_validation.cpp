// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/cross_validation.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/common/error.h"
#include "core/common/parallel_for.h"
#include "core/runs/calibration_work.h"
#include "core/hardware/hardware_model.h"

namespace stratex::runs {

namespace {

// The "small models on one node" of issue 22 are GPT models with hidden 1024-2048 on 2-8 GPUs;
// 10 B parameters keeps the single-node 7-8 B runs of the records with them and leaves out the
// 13-30 B ones that fill a node's memory.
constexpr double kSmallModelParams = 10e9;
constexpr int kLongContextTokens = 32768;
constexpr int kLargeScaleGpus = 1000;

ErrorGroup group(std::string name, const std::vector<const CrossValidatedRun*>& members)
{
    ErrorGroup g;
    g.name = std::move(name);
    double absolute = 0;
    double signedSum = 0;
    for (const CrossValidatedRun* run : members) {
        if (!run->costed || !run->measured_time)
            continue;
        ++g.runs;
        absolute += std::abs(run->throughput_error);
        signedSum += run->throughput_error;
    }
    if (g.runs > 0) {
        g.mean_absolute_error = absolute / g.runs;
        g.mean_error = signedSum / g.runs;
    }
    return g;
}

template <typename Key>
std::vector<ErrorGroup> groupsBy(const std::vector<CrossValidatedRun>& runs, Key key)
{
    std::map<std::string, std::vector<const CrossValidatedRun*>> members;
    for (const CrossValidatedRun& run : runs)
        members[key(run)].push_back(&run);
    std::vector<ErrorGroup> out;
    for (const auto& [name, list] : members)
        out.push_back(group(name, list));
    return out;
}

} // namespace

std::vector<std::string> runRegimes(const ReferenceRun& run)
{
    std::vector<std::string> out;
    const int world = run.cluster.worldSize();
    if (run.cluster.num_nodes == 1 && model::countParameters(run.model).total <= kSmallModelParams)
        out.emplace_back(kRegimeSmallOneNode);
    if (run.model.moe)
        out.emplace_back(kRegimeMoe);
    if (run.model.seq_length >= kLongContextTokens)
        out.emplace_back(kRegimeLongContext);
    if (world > kLargeScaleGpus)
        out.emplace_back(kRegimeLargeScale);
    return out;
}

CrossValidation crossValidate(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options, int threads)
{
    if (runs.empty())
        throw Error("cross-validation: no runs");
    // Before any fit: a fold per source, each fitting the others' fit runs (issue 26).
    requireBoundedCrossValidation(runs, options);
    // Folds: one per source that holds fit runs (its fit leaves them out), and one for every
    // source without fit runs together (its fit is the plain preset fit: it saw none of them).
    std::set<std::string> fitSources;
    std::set<std::string> sources;
    for (const ReferenceRun& run : runs) {
        sources.insert(run.source);
        if (run.fit)
            fitSources.insert(run.source);
    }
    CrossValidation cv;
    std::vector<std::string> foldSource; // "" for the fold of the sources without fit runs
    for (const std::string& source : fitSources) {
        cv.folds.push_back({ { source }, {} });
        foldSource.push_back(source);
    }
    CrossValidationFold common;
    for (const std::string& source : sources) {
        if (!fitSources.contains(source))
            common.left_out.push_back(source);
    }
    if (!common.left_out.empty()) {
        cv.folds.push_back(std::move(common));
        foldSource.emplace_back();
    }
    std::map<std::string, std::size_t> foldOf;
    for (std::size_t f = 0; f < cv.folds.size(); ++f) {
        for (const std::string& source : cv.folds[f].left_out)
            foldOf[source] = f;
    }

    cv.runs.resize(runs.size());
    cv.threads = effectiveThreads(threads);
    parallelFor(int(cv.folds.size()), cv.threads, [&](int, int f) {
        CrossValidationFold& fold = cv.folds[std::size_t(f)];
        std::vector<ReferenceRun> training;
        for (const ReferenceRun& run : runs) {
            if (run.fit && std::ranges::find(fold.left_out, run.source) == fold.left_out.end()) {
                training.push_back(run);
                fold.trained_on.push_back(run.id);
            }
        }
        const std::vector<PresetFit> fits
            = training.empty() ? std::vector<PresetFit> {} : fitPresets(training, options);
        for (const PresetFit& fit : fits)
            fold.families.push_back(fit.identification);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const ReferenceRun& run = runs[i];
            if (foldOf.at(run.source) != std::size_t(f))
                continue;
            CrossValidatedRun& out = cv.runs[i];
            out.id = run.id;
            out.source = run.source;
            out.family = hardware::presetFamily(run.cluster.gpu.name);
            out.fit = run.fit;
            out.regimes = runRegimes(run);
            out.measured_iteration_s = run.measured_iteration_s;
            out.measured_time = run.measured_time;
            // No fit of its family in this fold: its prior (its parent family's fit, if any).
            hardware::Efficiency efficiency = familyPrior(out.family, run.cluster.gpu, fits, &out.prior);
            for (const PresetFit& fit : fits) {
                if (fit.family == out.family) {
                    efficiency = fit.result.fitted;
                    out.family_fitted = true;
                }
            }
            const ReferenceComparison c = compareWithRun(run, efficiency);
            if (!c.estimate.problems.empty()) {
                out.costed = false;
                out.problem = c.estimate.problems.front();
                continue;
            }
            out.predicted_iteration_s = c.predicted_iteration_s;
            out.throughput_error = c.throughput_error;
            if (c.memory_error)
                out.memory = MemoryError { run.strategy.framework, run.peak_memory_kind, *c.memory_error };
            out.outcome = memoryOutcomeRow(c);
        }
    });

    std::vector<const CrossValidatedRun*> all;
    for (const CrossValidatedRun& run : cv.runs)
        all.push_back(&run);
    cv.overall = group("all", all);
    cv.by_source = groupsBy(cv.runs, [](const CrossValidatedRun& r) { return r.source; });
    cv.by_family = groupsBy(cv.runs, [](const CrossValidatedRun& r) { return r.family; });
    for (const char* regime : { kRegimeSmallOneNode, kRegimeMoe, kRegimeLongContext, kRegimeLargeScale }) {
        std::vector<const CrossValidatedRun*> members;
        for (const CrossValidatedRun& run : cv.runs) {
            if (std::ranges::find(run.regimes, regime) != run.regimes.end())
                members.push_back(&run);
        }
        cv.by_regime.push_back(group(regime, members));
    }
    std::vector<MemoryError> memory;
    for (const CrossValidatedRun& run : cv.runs) {
        if (run.memory)
            memory.push_back(*run.memory);
    }
    cv.memory_by_framework = memoryErrorsByFramework(memory);
    cv.memory_by_framework_and_kind = memoryErrorsByFrameworkAndKind(memory);
    std::vector<MemoryOutcomeRow> outcomes;
    for (const CrossValidatedRun& run : cv.runs) {
        if (run.outcome)
            outcomes.push_back(*run.outcome);
    }
    cv.memory_outcomes = memoryOutcomes(outcomes);
    return cv;
}

} // namespace stratex::runs
