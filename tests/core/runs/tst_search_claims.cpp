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
