// SPDX-License-Identifier: GPL-3.0-or-later
// The cost model's calibration: synthetic runs made by the model itself with known errors in its
// parameters are recovered within 2 %, the preset fit on the published "fit" runs keeps the
// hold-out runs within issue 9's 10 %, and calibrated clusters round-trip through JSON.
#include <cmath>

#include <QtTest>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/runs/calibration.h"
#include "core/hardware/cluster_json.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

// Published runs of one GPU with varied TP / PP / CP / DP / recompute / precision, so that every
// parameter moves the iteration times differently.
std::vector<ReferenceRun> h100Runs()
{
    static const char* const ids[] = { "megatronlm2024-1.7b-48", "megatronlm2024-70b-768", "megatronlm2024-177b-2304",
        "nemo2407-llama2-7b-8", "nemo2407-gpt3-20b-64", "nemo2407-llama3-70b-64", "nemo-longseq-llama2-7b-128",
        "llmfoundry-mpt-7b-128", "llmfoundry-mpt-70b-64", "nemo2407-llama2-13b-16" };
    std::vector<ReferenceRun> runs;
    for (const char* id : ids)
        runs.push_back(readReferenceRun(kRuns / (std::string(id) + ".json")));
    return runs;
}

// The same runs as measured on a cluster whose true parameters are `truth`: the model's own
// prediction under them (and its peak memory).
std::vector<ReferenceRun> synthetic(std::vector<ReferenceRun> runs, const Efficiency& truth)
{
    for (ReferenceRun& run : runs) {
        const RunError e = runError(run, truth);
        run.measured_iteration_s = e.predicted_iteration_s;
        run.peak_memory_gib = e.predicted_peak_memory_gib;
    }
    return runs;
}

std::vector<std::string> split(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& part : text.split(','))
        out.push_back(part.toStdString());
    return out;
}

// The preset fit of `stratex-cli reference --fit` over every bundled record (every family), made
// once for the suite.
const std::vector<PresetFit>& allPresetFits()
{
    static const std::vector<PresetFit> fits = [] {
        CalibrationOptions options;
        options.robust_scale = 0.15;
        return fitPresets(readReferenceRuns(kRuns), options);
    }();
    return fits;
}

} // namespace

class TestCalibration : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Known errors injected into the parameters (factor on the preset's value) must come back
    // within 2 %, starting from the preset.
    void recoversInjectedErrors_data()
    {
        QTest::addColumn<QString>("parameters");
        QTest::addColumn<QString>("factors");
        QTest::newRow("gemm") << "gemm"
                              << "0.85";
        QTest::newRow("gemm network hbm") << "gemm,network,hbm"
                                          << "0.85,0.7,0.9";
        QTest::newRow("gemm curve") << "gemm,gemm_half_dim"
                                    << "1.1,300";
        // The network step latency enters only the inter-node steps of NCCL's collectives
        // (collectives.cpp), a small share of these runs' time: recovered without the prior.
        QTest::newRow("attention latency") << "attention,collective_latency_us"
                                           << "1.2,2";
        QTest::newRow("overlap") << "dp_overlap"
                                 << "0.8";
        // The device-memory parts beyond allocated (issue 23): the allocator's fragmentation, and
        // the reserve beyond the modelled parts (0 by default, so the true value is the factor).
        QTest::newRow("fragmentation") << "activation_fragmentation"
                                       << "1.05";
        QTest::newRow("memory reserve") << "memory_reserve_gb"
                                        << "1.5";
    }
    void recoversInjectedErrors()
    {
        QFETCH(QString, parameters);
        QFETCH(QString, factors);
        const std::vector<std::string> names = split(parameters);
        const std::vector<std::string> factorTexts = split(factors);
        const std::vector<ReferenceRun> published = h100Runs();
        Efficiency start = efficiencyFor(published.front().cluster.gpu);
        // The presets' reserve beyond the modelled device memory is 0 (issue 23); fit it from a
        // calibrated cluster's 1 GB, as a user refitting a cluster would.
        start.memory_reserve_gb = 1.0;
        Efficiency truth = start;
        for (std::size_t i = 0; i < names.size(); ++i) {
            const hardware::EfficiencyField& field = *hardware::findEfficiencyField(names[i]);
            const double factor = std::stod(factorTexts[i]);
            // A parameter that is off (0) gets the factor as its true value.
            truth.*field.member = start.*field.member > 0 ? start.*field.member * factor : factor;
        }
        const std::vector<ReferenceRun> runs = synthetic(published, truth);
        CalibrationOptions options;
        options.parameters = names;
        options.max_iterations = 100;
        options.prior_weight = 0; // exact synthetic data: nothing to pull towards
        const CalibrationResult result = calibrate(runs, start, options);
        for (const std::string& name : names) {
            const hardware::EfficiencyField& field = *hardware::findEfficiencyField(name);
            const double expected = truth.*field.member;
            const double found = result.fitted.*field.member;
            QVERIFY2(std::abs(found / expected - 1) <= 0.02,
                qPrintable(QString("%1: true %2, fitted %3").arg(name.c_str()).arg(expected).arg(found)));
        }
        QVERIFY(result.cost_after < result.cost_before);
        for (const RunError& e : result.after)
            QVERIFY2(std::abs(e.throughput_error) < 0.01, e.id.c_str());
    }

    void deterministic()
    {
        Efficiency truth = efficiencyFor(h100Runs().front().cluster.gpu);
        truth.gemm *= 0.9;
        const std::vector<ReferenceRun> runs = synthetic(h100Runs(), truth);
        const Efficiency start = efficiencyFor(runs.front().cluster.gpu);
        const CalibrationResult a = calibrate(runs, start);
        const CalibrationResult b = calibrate(runs, start);
        QVERIFY(a.fitted == b.fitted);
        QCOMPARE(a.iterations, b.iterations);
    }

    // Each run predicted by a fit on the others: with exact synthetic data, exact.
    void leaveOneOutPredictsTheLeftOutRun()
    {
        Efficiency truth = efficiencyFor(h100Runs().front().cluster.gpu);
        truth.gemm *= 0.9;
        std::vector<ReferenceRun> runs = synthetic(h100Runs(), truth);
        runs.resize(4);
        CalibrationOptions options;
        options.parameters = { "gemm" };
        const std::vector<RunError> errors = leaveOneOut(runs, efficiencyFor(runs.front().cluster.gpu), options);
        QCOMPARE(errors.size(), runs.size());
        for (const RunError& e : errors)
            QVERIFY2(std::abs(e.throughput_error) < 0.01, e.id.c_str());
        runs.resize(2);
        QVERIFY_THROWS_EXCEPTION(Error, leaveOneOut(runs, truth, options));
    }

    void badParametersAreErrors_data()
    {
        QTest::addColumn<QString>("parameters");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown") << "gemm,speed"
                                 << "unknown parameter \"speed\"";
        QTest::newRow("twice") << "gemm,gemm"
                               << "given twice";
    }
    void badParametersAreErrors()
    {
        QFETCH(QString, parameters);
        QFETCH(QString, message);
        CalibrationOptions options;
        options.parameters = split(parameters);
        const std::vector<ReferenceRun> runs = h100Runs();
        try {
            calibrate(runs, efficiencyFor(runs.front().cluster.gpu), options);
            QFAIL("accepted");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains(message), error.what());
        }
    }

    // Issue 9: fitted on the "fit" runs only, the presets predict the hold-out papers (Narayanan
    // et al. SC21, Korthikanti et al. 2022, Llama 3) within 10 % on average, and the fit is what
    // efficiencyFor() stores. Only the families with hold-out runs are fitted here.
    void presetFitKeepsHoldOutWithinTarget()
    {
        std::vector<ReferenceRun> runs;
        for (ReferenceRun& run : readReferenceRuns(kRuns)) {
            const std::string family = presetFamily(run.cluster.gpu.name);
            if (family == "a100" || family == "h100")
                runs.push_back(std::move(run));
        }
        CalibrationOptions options;
        options.robust_scale = 0.15;
        const std::vector<PresetFit> fits = fitPresets(runs, options);
        QCOMPARE(int(fits.size()), 2);
        std::vector<ReferenceComparison> holdout;
        for (const ReferenceRun& run : runs) {
            if (run.fit || !run.measured_time) // memory-only records have no time to predict
                continue;
            const PresetFit& fit = fits[fits[0].family == presetFamily(run.cluster.gpu.name) ? 0 : 1];
            holdout.push_back(compareWithRun(run, fit.result.fitted));
        }
        // + the three timed points of SC21's Figure 17 (session 26) + torchtitan's eight on 64 A100 (session 27)
        // + Trainy's two on H200, the H100 family (session 29)
        QCOMPARE(int(holdout.size()), 42);
        const double mae = meanAbsoluteError(holdout);
        QVERIFY2(mae <= 0.10, qPrintable(QString("hold-out MAE after the fit %1").arg(mae)));
        // Issue 22: no fitted parameter ends at a bound of its range (one that does stands in for
        // a missing mechanism; before the NCCL collectives and the DP overlap windows, h100's
        // network ended at 2.0 and its dp_overlap at 1.0).
        for (const PresetFit& fit : fits) {
            std::string names;
            for (const std::string& name : fit.result.at_bound)
                names += " " + name;
            QVERIFY2(
                fit.result.at_bound.empty(), qPrintable(QString::fromStdString(fit.family + " at a bound:" + names)));
        }
        // The stored defaults are this fit (to the 4 digits they are stored with).
        for (const PresetFit& fit : fits) {
            const Efficiency stored = efficiencyFor(hardware::gpuPreset(fit.gpus.front()));
            for (const hardware::EfficiencyField& field : hardware::efficiencyFields()) {
                const double fitted = fit.result.fitted.*field.member;
                const double kept = stored.*field.member;
                QVERIFY2(std::abs(fitted - kept) <= 1e-3 * std::max(1.0, std::abs(kept)),
                    qPrintable(QString("%1 %2: fitted %3, stored %4")
                                   .arg(fit.family.c_str(), field.name)
                                   .arg(fitted)
                                   .arg(kept)));
            }
        }
    }

    // Issue 22: no family's preset fit ends a parameter at a bound of its range (one that does
    // stands in for a missing mechanism), and what efficiencyFor() stores is that fit. One row per
    // family that has fit runs, so a family added later is checked too. Before TP overlap became a
    // mechanism and the network fraction physical, h100-96gb's network ended at 2.0 here.
    void everyFamilyPresetFitIsInsideItsRanges_data()
    {
        QTest::addColumn<int>("index");
        const std::vector<PresetFit>& fits = allPresetFits();
        for (std::size_t i = 0; i < fits.size(); ++i)
            QTest::newRow(fits[i].family.c_str()) << int(i);
    }
    void everyFamilyPresetFitIsInsideItsRanges()
    {
        QFETCH(int, index);
        const PresetFit& fit = allPresetFits()[std::size_t(index)];
        std::string names;
        for (const std::string& name : fit.result.at_bound)
            names += " " + name;
        QVERIFY2(fit.result.at_bound.empty(), qPrintable(QString::fromStdString(fit.family + " at a bound:" + names)));
        // No fitted network fraction beyond the links' datasheet (efficiency.cpp's range).
        QVERIFY(fit.result.fitted.network <= 1.0);
        const Efficiency stored = efficiencyFor(hardware::gpuPreset(fit.gpus.front()));
        for (const hardware::EfficiencyField& field : hardware::efficiencyFields()) {
            const double fitted = fit.result.fitted.*field.member;
            const double kept = stored.*field.member;
            QVERIFY2(std::abs(fitted - kept) <= 1e-3 * std::max(1.0, std::abs(kept)),
                qPrintable(QString("%1 %2: fitted %3, stored %4").arg(fit.family.c_str(), field.name).arg(fitted).arg(kept)));
        }
    }
    // The rows above cover every family the bundled records train on.
    void everyFamilyIsFitted()
    {
        QCOMPARE(int(allPresetFits().size()), 4); // a100, b200-192gb, h100, h100-96gb
    }

    // Issue 22: a fitted parameter within 1 % of a bound of its range is reported.
    void parametersAtBoundAreReported()
    {
        CalibrationResult result;
        result.parameters = { "gemm", "network", "dp_overlap" };
        result.fitted.gemm = 0.6;
        const hardware::EfficiencyField* network = hardware::findEfficiencyField("network");
        const hardware::EfficiencyField* overlap = hardware::findEfficiencyField("dp_overlap");
        result.fitted.network = network->maximum * 0.995;
        result.fitted.dp_overlap = overlap->minimum;
        QCOMPARE(parametersAtBound(result), (std::vector<std::string> { "network", "dp_overlap" }));
        result.fitted.network = network->maximum * 0.98;
        result.fitted.dp_overlap = 0.5;
        QVERIFY(parametersAtBound(result).empty());
    }

    void clusterWithEfficiencyRoundTrips()
    {
        hardware::ClusterDescription cluster { hardware::gpuPreset("h100-80gb"), 4, 8 };
        Efficiency e = efficiencyFor(cluster.gpu);
        e.gemm = 0.61;
        e.gemm_half_dim = 250;
        e.memory_reserve_gb = 4.5;
        cluster.efficiency = e;
        const JsonDocument document = JsonDocument::parse(hardware::toJson(cluster).dump(), "cluster.json");
        const hardware::ClusterDescription back = hardware::readCluster(document.root());
        QVERIFY(back.efficiency.has_value());
        QVERIFY(*back.efficiency == e);
        QCOMPARE(efficiencyFor(back).gemm, 0.61);
        // Without the object, the preset's fitted defaults.
        cluster.efficiency.reset();
        QVERIFY(efficiencyFor(cluster) == efficiencyFor(cluster.gpu));
    }

    void badEfficiencyNamesTheKey_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("keyPath");
        QTest::newRow("out of range") << "gemm_fraction_of_peak=1.5"
                                      << "/efficiency/gemm_fraction_of_peak";
        QTest::newRow("unknown key") << "gemm=0.5"
                                     << "/efficiency/gemm";
        QTest::newRow("missing key") << "-hbm_fraction_of_peak"
                                     << "/efficiency/hbm_fraction_of_peak";
        QTest::newRow("not a number") << "network_fraction_of_datasheet=\"fast\""
                                      << "/efficiency/network_fraction_of_datasheet";
    }
    void badEfficiencyNamesTheKey()
    {
        QFETCH(QString, change);
        QFETCH(QString, keyPath);
        hardware::ClusterDescription cluster { hardware::gpuPreset("a100-80gb"), 1, 8 };
        cluster.efficiency = efficiencyFor(cluster.gpu);
        nlohmann::ordered_json json = hardware::toJson(cluster);
        if (change.startsWith('-')) {
            json["efficiency"].erase(change.mid(1).toStdString());
        } else {
            const QStringList parts = change.split('=');
            json["efficiency"][parts[0].toStdString()] = nlohmann::ordered_json::parse(parts[1].toStdString());
        }
        const JsonDocument document = JsonDocument::parse(json.dump(), "cluster.json");
        try {
            hardware::readCluster(document.root());
            QFAIL("accepted");
        } catch (const InputError& error) {
            QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
            QCOMPARE(QString::fromStdString(error.file()), QString("cluster.json"));
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
