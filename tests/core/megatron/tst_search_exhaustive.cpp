// SPDX-License-Identifier: GPL-3.0-or-later
// The search's plans are an exhaustive ranking's (docs/search-speed.md): every candidate of a small
// space costed and simulated, ranked, twins grouped; with a coverage, extrapolated plans ranked by
// their raised time; with the sampled threshold forced on, candidates pruned and the plans the same.
// Each space is costed once and shared by the rows that search it: under the sanitizers the
// exhaustive costing is most of this suite's time.
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/megatron/plan_evidence.h"
#include "core/megatron/strategy_search.h"
#include "support/search_request.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

StrategySearchRequest request(const QString& model, int nodes, int gpusPerNode, int globalBatch)
{
    StrategySearchRequest r
        = test::searchRequest(model.toUtf8().constData(), "a100-80gb", nodes, gpusPerNode, globalBatch);
    r.top = 5;
    r.space.max_micro_batch_size = 2;
    return r;
}

// Every candidate of the space that is legal and fits, simulated as the search's second pass does.
const std::vector<Estimate>& exhaustiveEstimates(const StrategySearchRequest& r, const std::string& key)
{
    static std::map<std::string, std::vector<Estimate>> cache;
    const auto [at, added] = cache.try_emplace(key);
    if (added) {
        const HardwareModel hw(r.cluster, r.efficiency);
        for (const ParallelStrategy& s : enumerateStrategies(r)) {
            Estimate e = estimate(r.model, s, hw);
            if (e.problems.empty() && e.fits)
                at->second.push_back(std::move(e));
        }
    }
    return at->second;
}

bool sameOrder(const Estimate& a, const Estimate& b)
{
    return a.iteration_ms < b.iteration_ms || (a.iteration_ms == b.iteration_ms && a.strategy < b.strategy);
}

} // namespace

class TestSearchExhaustive : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void topPlansAreTheExhaustiveOnes_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("gpusPerNode");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<bool>("withCoverage");
        // Sampled: the threshold of a sample (StrategySearchRequest::sampling) on these small
        // spaces, which leave it off by default: candidates pruned, the plans the same.
        QTest::addColumn<bool>("sampled");
        QTest::newRow("llama2-7b, 16 GPUs") << "llama2-7b" << 2 << 8 << 32 << false << false;
        QTest::newRow("llama2-13b, 24 GPUs (3 nodes)") << "llama2-13b" << 3 << 8 << 48 << false << false;
        QTest::newRow("mixtral-8x7b, 32 GPUs") << "mixtral-8x7b" << 4 << 8 << 64 << false << false;
        QTest::newRow("llama2-13b, 24 GPUs, evidence") << "llama2-13b" << 3 << 8 << 48 << true << false;
        QTest::newRow("mixtral-8x7b, 32 GPUs, evidence") << "mixtral-8x7b" << 4 << 8 << 64 << true << false;
        QTest::newRow("llama2-13b, 24 GPUs, sampled") << "llama2-13b" << 3 << 8 << 48 << false << true;
        QTest::newRow("mixtral-8x7b, 32 GPUs, sampled") << "mixtral-8x7b" << 4 << 8 << 64 << false << true;
        QTest::newRow("mixtral-8x7b, 32 GPUs, evidence, sampled") << "mixtral-8x7b" << 4 << 8 << 64 << true << true;
    }

    // The search's plans are the exhaustive ranking's, twins grouped (equal to the ms and the MB,
    // same evidence) and, with a coverage, extrapolated plans ranked by their raised time.
    void topPlansAreTheExhaustiveOnes()
    {
        QFETCH(QString, model);
        QFETCH(int, nodes);
        QFETCH(int, gpusPerNode);
        QFETCH(int, globalBatch);
        QFETCH(bool, withCoverage);
        QFETCH(bool, sampled);
        StrategySearchRequest r = request(model, nodes, gpusPerNode, globalBatch);
        if (sampled)
            r.sampling = { .stride = 7, .min_candidates = 0 };
        if (withCoverage) {
            EvidenceCoverage coverage = bundledCoverage();
            coverage.max_tp = 2; // some of the fastest plans extrapolated
            coverage.max_dp_by_zero = { 4, 4, 4, 4 };
            r.coverage = coverage;
        }
        NullProgress progress;
        const StrategySearchResult found = searchStrategies(r, progress);
        QVERIFY(!found.best.empty());
        QVERIFY(found.stats.simulated < found.stats.bounded); // the bound pruned something
        QCOMPARE(found.stats.pruned > 0, sampled);
        QCOMPARE(found.stats.refused + found.stats.pruned + found.stats.over_memory + found.stats.bounded,
            found.stats.enumerated);

        // The space depends on the model, the cluster and the batch only: coverage and sampling
        // change the ranking, not the costs.
        const std::string space = QString("%1 %2x%3 gbs %4").arg(model).arg(nodes).arg(gpusPerNode).arg(globalBatch).toStdString();
        struct Plan {
            const Estimate* estimate = nullptr;
            bool extrapolated = false;
            double key = 0;
        };
        std::vector<Plan> all;
        for (const Estimate& e : exhaustiveEstimates(r, space)) {
            const bool extrapolated = r.coverage && planEvidence(*r.coverage, r.model, r.cluster, e.strategy).extrapolated;
            all.push_back({ &e, extrapolated, rankingTimeMs(e.iteration_ms, extrapolated) });
        }
        std::ranges::sort(all, [](const Plan& a, const Plan& b) {
            if (a.key != b.key)
                return a.key < b.key;
            return sameOrder(*a.estimate, *b.estimate);
        });
        // Groups in order of their first member.
        std::vector<std::vector<const Plan*>> groups;
        std::map<std::tuple<long long, long long, bool>, std::size_t> groupOf;
        for (const Plan& p : all) {
            const auto [at, added] = groupOf.try_emplace(
                { std::llround(p.estimate->iteration_ms), std::llround(p.estimate->peak_memory_mb), p.extrapolated },
                groups.size());
            if (added)
                groups.emplace_back();
            groups[at->second].push_back(&p);
        }
        QCOMPARE(found.best.size(), std::min<std::size_t>(5, groups.size()));
        QCOMPARE(found.twins.size(), found.best.size());
        QCOMPARE(found.evidence.size(), found.best.size());
        for (std::size_t i = 0; i < found.best.size(); ++i) {
            QCOMPARE(found.best[i].strategy.notation(), groups[i].front()->estimate->strategy.notation());
            QCOMPARE(found.best[i].iteration_ms, groups[i].front()->estimate->iteration_ms);
            QCOMPARE(found.evidence[i].extrapolated, groups[i].front()->extrapolated);
            QCOMPARE(found.twins[i].size() + 1, groups[i].size());
            for (std::size_t k = 0; k < found.twins[i].size(); ++k)
                QCOMPARE(found.twins[i][k].notation(), groups[i][k + 1]->estimate->strategy.notation());
        }
    }
};

QTEST_GUILESS_MAIN(TestSearchExhaustive)
#include "tst_search_exhaustive.moc"
