// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/family_prior.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/runs/calibration.h"

namespace stratex::runs {

namespace {

std::string fixed2(double value)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

struct Verdict {
    int informative = 0;
    double posteriorSd = 0;
    bool passes = false;
};

// The verdicts of the parameters `kept` (columns of `s`) judged together.
std::vector<Verdict> judge(const std::vector<std::vector<double>>& s, const std::vector<std::size_t>& kept,
    double priorSdLog)
{
    const auto n = Eigen::Index(kept.size());
    Eigen::MatrixXd jac(Eigen::Index(s.size()), n);
    for (std::size_t k = 0; k < s.size(); ++k) {
        for (Eigen::Index j = 0; j < n; ++j)
            jac(Eigen::Index(k), j) = s[k][kept[std::size_t(j)]];
    }
    // Posterior precision: the runs' Fisher information plus the prior's (docs/calibration.md).
    Eigen::MatrixXd precision = jac.transpose() * jac / (kModelNoiseLog * kModelNoiseLog);
    precision.diagonal().array() += 1.0 / (priorSdLog * priorSdLog);
    const Eigen::MatrixXd covariance = precision.ldlt().solve(Eigen::MatrixXd::Identity(n, n));
    std::vector<Verdict> out(kept.size());
    for (Eigen::Index j = 0; j < n; ++j) {
        Verdict& v = out[std::size_t(j)];
        for (Eigen::Index k = 0; k < jac.rows(); ++k) {
            if (std::abs(jac(k, j)) >= kInformativeShare)
                ++v.informative;
        }
        v.posteriorSd = std::sqrt(std::max(0.0, covariance(j, j)));
        v.passes = v.informative >= kMinInformativeRuns && v.posteriorSd <= kIdentifiedSdRatio * priorSdLog;
    }
    return out;
}

std::string verdictReason(const Verdict& v, double priorSdLog, bool fitted, std::size_t runs, std::size_t fittedCount)
{
    std::string text = std::to_string(v.informative) + " of " + std::to_string(runs) + " runs spend >= "
        + std::to_string(int(kInformativeShare * 100)) + " % of their time on it, posterior sd " + fixed2(v.posteriorSd)
        + " of prior " + fixed2(priorSdLog) + " (log)";
    if (fitted)
        return text;
    if (v.informative < kMinInformativeRuns)
        return text + ": fewer than " + std::to_string(kMinInformativeRuns) + " informative runs";
    if (v.posteriorSd > kIdentifiedSdRatio * priorSdLog)
        return text + ": the runs do not narrow it to " + fixed2(kIdentifiedSdRatio) + " of the prior";
    return text + ": fewer than " + std::to_string(kMinInformativeRuns) + " runs per parameter for "
        + std::to_string(fittedCount + 1) + " parameters";
}

} // namespace

std::string parentFamily(const std::string& family)
{
    // torchtitan's Grand Teton H100s (records' notes: 96 GB HBM2e at 2.4 TB/s, 500 W power limit)
    // are the H100 die of the h100 family: same SMs, same tensor cores.
    if (family == "h100-96gb")
        return "h100";
    // B200 is other silicon, run by the same frameworks as the h100 family's records (NeMo,
    // Megatron-Core, Transformer Engine): its prior is the h100 fit carried onto B200's own
    // best-shape kernel figures (calibration.cpp familyPrior, docs/calibration.md §2).
    if (family == "b200-192gb")
        return "h100";
    // GB200 is the B200's Blackwell die at its own clocks (hardware_model.cpp's figures).
    if (family == "gb200-186gb")
        return "b200-192gb";
    return {};
}

std::vector<std::string> FamilyIdentification::fitted() const
{
    std::vector<std::string> out;
    for (const ParameterDecision& d : parameters) {
        if (d.fitted)
            out.push_back(d.name);
    }
    return out;
}

FamilyIdentification identifyParameters(const std::string& family, const std::vector<ReferenceRun>& runs,
    const hardware::Efficiency& prior, const std::vector<std::string>& candidates, double priorSdLog,
    const std::string& priorName)
{
    FamilyIdentification out;
    out.family = family;
    out.prior = priorName;
    const std::vector<std::vector<double>> s = timeSensitivities(runs, prior, candidates);
    out.runs = int(s.size());
    std::vector<std::size_t> kept;
    for (std::size_t j = 0; j < candidates.size(); ++j)
        kept.push_back(j);
    std::vector<Verdict> final(candidates.size());
    std::vector<bool> dropped(candidates.size(), false);
    for (;;) {
        if (kept.empty())
            break;
        const std::vector<Verdict> verdicts = judge(s, kept, priorSdLog);
        for (std::size_t i = 0; i < kept.size(); ++i)
            final[kept[i]] = verdicts[i];
        const bool enoughRuns = s.size() >= kMinInformativeRuns * kept.size();
        // The worst: fewest informative runs, then the largest posterior sd; the first in order on a tie.
        std::size_t worst = kept.size();
        for (std::size_t i = 0; i < kept.size(); ++i) {
            if (verdicts[i].passes && enoughRuns)
                continue;
            if (worst == kept.size() || verdicts[i].informative < verdicts[worst].informative
                || (verdicts[i].informative == verdicts[worst].informative
                    && verdicts[i].posteriorSd > verdicts[worst].posteriorSd))
                worst = i;
        }
        if (worst == kept.size())
            break;
        dropped[kept[worst]] = true;
        kept.erase(kept.begin() + std::ptrdiff_t(worst));
    }
    for (std::size_t j = 0; j < candidates.size(); ++j) {
        ParameterDecision d;
        d.name = candidates[j];
        d.fitted = !dropped[j];
        d.informative_runs = final[j].informative;
        d.prior_sd = priorSdLog;
        d.posterior_sd = final[j].posteriorSd;
        d.reason = verdictReason(final[j], priorSdLog, d.fitted, s.size(), kept.size());
        out.parameters.push_back(std::move(d));
    }
    return out;
}

std::string identificationText(const FamilyIdentification& identification)
{
    std::string text = identification.family + ": prior " + identification.prior + ", "
        + std::to_string(identification.runs) + " fit runs\n";
    for (const ParameterDecision& d : identification.parameters)
        text += "    " + d.name + (d.fitted ? " fitted: " : " inherited from the prior: ") + d.reason + "\n";
    return text;
}

} // namespace stratex::runs
