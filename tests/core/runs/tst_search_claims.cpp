// SPDX-License-Identifier: GPL-3.0-or-later
// What the search claims over measured runs (issue 22, "Done when"; core/runs/search_claims.h):
// the claim is measured / pick - 1, the runs' stated choices hold in the space (and a Megatron
// run's publication year, docs/frameworks.md), and the search is exact: its pick is never ranked
// behind the run's own layout when that layout fits.
#include <QtTest>

#include <algorithm>

#include "core/hardware/hardware_model.h"
#include "core/megatron/megatron_releases.h"
#include "core/megatron/plan_evidence.h"
#include "core/runs/reference_run.h"
#include "core/runs/search_claims.h"

using namespace stratex;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

std::vector<runs::ReferenceRun> onlyRun(const std::string& id)
{
    std::vector<runs::ReferenceRun> chosen;
    for (runs::ReferenceRun& run : runs::readReferenceRuns(kRuns)) {
        if (run.id == id)
            chosen.push_back(std::move(run));
    }
    return chosen;
}

} // namespace

class TestSearchClaims : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void claimOnOneRun_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("Megatron-Bridge Llama 3 8B, FSDP on 8") << "mbridge2511-llama3-8b-8";
        QTest::newRow("Megatron-Bridge Llama 3 70B, interleaved, TP overlap on 64") << "mbridge2511-llama3-70b-64";
        QTest::newRow("llm-foundry MPT-7B, composer on 8") << "llmfoundry-mpt-7b-8";
        QTest::newRow("Korthikanti 22B, tp8 selective recompute on 8 A100") << "korthikanti2022-22b-8-selective-sp";
        QTest::newRow("Narayanan 7.5B on 128 A100, Megatron-LM of 2021") << "narayanan2021-7.5b-128";
    }

    void claimOnOneRun()
    {
        QFETCH(QString, id);
        const std::vector<runs::ReferenceRun> chosen = onlyRun(id.toStdString());
        QCOMPARE(chosen.size(), std::size_t(1));
        const runs::ReferenceRun& run = chosen.front();
        runs::SearchClaimOptions options;
        options.min_gpus = 1;
        options.threads = 1;
        NullProgress progress;
        const std::vector<runs::SearchClaim> claims = runs::searchClaims(chosen, options, progress);
        QCOMPARE(claims.size(), std::size_t(1));
        const runs::SearchClaim& c = claims.front();
        QCOMPARE(c.run, &run);
        QVERIFY(c.pick.has_value());
        QCOMPARE(c.measured_s, run.measured_iteration_s);
        QCOMPARE(c.claim, run.measured_iteration_s / (c.pick->iteration_ms / 1e3) - 1);
        // The run's stated choices are the pick's.
        QCOMPARE(c.pick->strategy.precision, run.strategy.precision);
        QCOMPARE(c.pick->strategy.framework, run.strategy.framework);
        QCOMPARE(c.pick->strategy.attention_kernel, run.strategy.attention_kernel);
        QCOMPARE(c.pick->strategy.compile, run.strategy.compile);
        // A Megatron run is searched with its publication year's Megatron-LM (megatron_releases.h):
        // in 2021 no sequence parallelism, selective recompute or distributed optimizer.
        const bool megatron = megatron::followsMegatronReleases(run.strategy.framework);
        QCOMPARE(c.features_year, megatron ? run.year : 0);
        if (megatron && run.year == 2021) {
            QVERIFY(!c.pick->strategy.sequence_parallel);
            QVERIFY(c.pick->strategy.recompute != megatron::Recompute::Selective);
            QCOMPARE(c.pick->strategy.zero, 0);
        }
        // Exact search: the run's own layout (covered by construction: tst_plan_evidence) never
        // ranks ahead of the pick when it fits.
        const runs::ReferenceComparison expert = runs::compareWithRun(run, hardware::efficiencyFor(run.cluster));
        QCOMPARE(c.expert_predicted_s, expert.predicted_iteration_s);
        if (!expert.predicted_oom) {
            const double pickRank = megatron::rankingTimeMs(c.pick->iteration_ms, c.pick_evidence.extrapolated);
            QVERIFY2(pickRank <= expert.estimate.iteration_ms * (1 + 1e-9),
                (c.pick->strategy.notation() + " ranked behind the run's own " + run.strategy.notation()).c_str());
        }
    }

    // The summary against the bars: every claim, and apart the runs whose layout was
    // chosen for speed and the demonstrations and ablations (reference_run.h LayoutPurpose).
    void summaryCountsTunedLayoutsApart_data()
    {
        QTest::addColumn<QList<int>>("purposes"); // LayoutPurpose of each run
        QTest::addColumn<QList<double>>("claims"); // measured / pick - 1
        QTest::addColumn<QList<double>>("layoutErrors"); // the own layout's throughput error
        QTest::addColumn<QList<int>>("all"); // runs, over +15 %, layouts within 10 %, index of the largest claim
        QTest::addColumn<QList<int>>("tuned");
        QTest::addColumn<QList<int>>("fixed");
        const int t = int(runs::LayoutPurpose::Throughput);
        const int d = int(runs::LayoutPurpose::Demonstration);
        const int a = int(runs::LayoutPurpose::Ablation);
        QTest::newRow("all tuned") << QList<int> { t, t } << QList<double> { 0.2, 0.05 } << QList<double> { 0.02, -0.12 }
                                   << QList<int> { 2, 1, 1, 0 } << QList<int> { 2, 1, 1, 0 } << QList<int> { 0, 0, 0, -1 };
        QTest::newRow("the largest is a demonstration")
            << QList<int> { t, d, a } << QList<double> { 0.16, 0.9, 0.3 } << QList<double> { 0.0, 0.01, 0.2 }
            << QList<int> { 3, 3, 2, 1 } << QList<int> { 1, 1, 1, 0 } << QList<int> { 2, 2, 1, 1 };
        // At the bar is not over it.
        QTest::newRow("at the bars") << QList<int> { t } << QList<double> { 0.15 } << QList<double> { -0.10 }
                                     << QList<int> { 1, 0, 1, 0 } << QList<int> { 1, 0, 1, 0 }
                                     << QList<int> { 0, 0, 0, -1 };
    }

    void summaryCountsTunedLayoutsApart()
    {
        QFETCH(QList<int>, purposes);
        QFETCH(QList<double>, claims);
        QFETCH(QList<double>, layoutErrors);
        QFETCH(QList<int>, all);
        QFETCH(QList<int>, tuned);
        QFETCH(QList<int>, fixed);
        std::vector<runs::ReferenceRun> records(std::size_t(purposes.size()));
        std::vector<runs::SearchClaim> made;
        for (qsizetype i = 0; i < purposes.size(); ++i) {
            records[std::size_t(i)].id = "run" + std::to_string(i);
            records[std::size_t(i)].layout_purpose = runs::LayoutPurpose(purposes[i]);
        }
        for (qsizetype i = 0; i < purposes.size(); ++i) {
            runs::SearchClaim c;
            c.run = &records[std::size_t(i)];
            c.claim = claims[i];
            c.expert_error = layoutErrors[i];
            c.pick = megatron::Estimate {};
            made.push_back(c);
        }
        const runs::ClaimSummary summary = runs::summarizeClaims(made);
        const auto check = [&](const runs::ClaimTally& tally, const QList<int>& expected) {
            QCOMPARE(tally.runs, expected[0]);
            QCOMPARE(tally.over_claim_bar, expected[1]);
            QCOMPARE(tally.layouts_within_bar, expected[2]);
            QCOMPARE(tally.largest ? int(tally.largest - made.data()) : -1, expected[3]);
        };
        check(summary.all, all);
        check(summary.tuned, tuned);
        check(summary.fixed_layouts, fixed);
    }

    void onlyRunsOnEnoughGpus_data()
    {
        QTest::addColumn<int>("minGpus");
        QTest::addColumn<int>("claims");
        QTest::newRow("the run's own size") << 8 << 1;
        QTest::newRow("above it") << 9 << 0;
    }

    void onlyRunsOnEnoughGpus()
    {
        QFETCH(int, minGpus);
        QFETCH(int, claims);
        runs::SearchClaimOptions options;
        options.min_gpus = minGpus;
        options.threads = 1;
        NullProgress progress;
        QCOMPARE(int(runs::searchClaims(onlyRun("mbridge2511-llama3-8b-8"), options, progress).size()), claims);
    }
};

QTEST_APPLESS_MAIN(TestSearchClaims)
#include "tst_search_claims.moc"
