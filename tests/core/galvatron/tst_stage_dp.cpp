// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse stage knapsack against a literal transcription of Galvatron's dense dp_core.cpp
// (docs/galvatron-search.md §5.3, §5.4) on random problems full of ties: every cell value,
// every read-out row, every backtracked plan and remaining budget must be identical.
#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include <QTest>

#include "core/galvatron/dominance.h"
#include "core/galvatron/stage_dp.h"

using namespace stratex::galvatron;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct DenseDp {
    int M = 0;
    int S = 0;
    int layers = 0;
    std::vector<double> f; // (M + 1) x S, updated in place as dp_core.cpp does
    std::vector<std::vector<int>> mark; // per layer (M + 1) x S
    std::vector<std::vector<double>> snapshots; // f after each layer
    std::vector<int> weight;

    void run(const StageDp::Problem& p)
    {
        M = p.budget_mb;
        S = p.strategies;
        layers = p.layers;
        weight.assign(p.weight_mb, p.weight_mb + S);
        f.assign(std::size_t((M + 1) * S), 0.0);
        mark.assign(std::size_t(layers), std::vector<int>(std::size_t((M + 1) * S), -1));
        std::vector<double> cand(static_cast<std::size_t>(S));
        for (int i = 0; i < layers; ++i) {
            for (int m = M; m >= 0; --m) {
                for (int s = 0; s < S; ++s) {
                    const int w = weight[std::size_t(s)];
                    if (m < w) {
                        mark[std::size_t(i)][std::size_t(m * S + s)] = -1;
                        f[std::size_t(m * S + s)] = kInf;
                        continue;
                    }
                    for (int a = 0; a < S; ++a)
                        cand[std::size_t(a)] = (f[std::size_t((m - w) * S + a)] + p.inter_s[a * S + s]) + p.intra_s[s];
                    const int best = int(std::min_element(cand.begin(), cand.end()) - cand.begin());
                    mark[std::size_t(i)][std::size_t(m * S + s)] = best;
                    f[std::size_t(m * S + s)] = cand[std::size_t(best)];
                }
            }
            snapshots.push_back(f);
        }
    }

    // dp_core.cpp's read-out at `row` after `n` layers.
    StageDp::Readout readout(int row, int n, std::vector<int>& plan) const
    {
        StageDp::Readout result;
        if (row < 0)
            return result;
        const std::vector<double>& table = snapshots[std::size_t(n - 1)];
        int best = 0;
        for (int s = 1; s < S; ++s) {
            if (table[std::size_t(row * S + s)] < table[std::size_t(row * S + best)])
                best = s;
        }
        if (!(table[std::size_t(row * S + best)] < kInf))
            return result;
        plan.assign(std::size_t(n), 0);
        plan[std::size_t(n - 1)] = best;
        int m = row;
        for (int i = n - 1; i >= 1; --i) {
            const int current = plan[std::size_t(i)];
            plan[std::size_t(i - 1)] = mark[std::size_t(i)][std::size_t(m * S + current)];
            m -= weight[std::size_t(current)];
        }
        result.feasible = true;
        result.objective_s = table[std::size_t(row * S + best)];
        result.remaining_mb = m - weight[std::size_t(plan[0])];
        return result;
    }
};

struct RandomProblem {
    std::vector<int> weight;
    std::vector<double> intra;
    std::vector<double> inter;
    StageDp::Problem problem;
};

// Small value sets make exact ties and ulp-level near ties common.
RandomProblem makeProblem(std::mt19937& rng, int S, int layers, int budget, bool zeroFirstInter)
{
    RandomProblem r;
    std::uniform_int_distribution<int> weightDist(1, std::max(1, budget / 4));
    const double intraValues[] = { 0.1, 0.2, 0.3, 0.1 + 1e-17, 0.30000000000000004, 0.7, 1.0 / 3.0 };
    const double interValues[] = { 0.0, 0.0, 1e-10, 1e-9, 2e-9, 3e-9, 0.05, 0.024287350531283475 };
    std::uniform_int_distribution<int> pickIntra(0, 6);
    std::uniform_int_distribution<int> pickInter(0, 7);
    for (int s = 0; s < S; ++s) {
        r.weight.push_back(weightDist(rng));
        r.intra.push_back(intraValues[pickIntra(rng)]);
    }
    for (int a = 0; a < S; ++a) {
        for (int b = 0; b < S; ++b)
            r.inter.push_back(a == b || zeroFirstInter ? 0.0 : interValues[pickInter(rng)]);
    }
    r.problem.budget_mb = budget;
    r.problem.layers = layers;
    r.problem.strategies = S;
    r.problem.weight_mb = r.weight.data();
    r.problem.intra_s = r.intra.data();
    r.problem.inter_s = r.inter.data();
    return r;
}

} // namespace

class TestStageDp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesDenseTable_data();
    void matchesDenseTable();
    void rowLimitKeepsReadRows();
    void dominancePruningKeepsPlans();
    void infeasibleRows();
    void reusesWorkspace();
};

void TestStageDp::matchesDenseTable_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("strategies");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("budget");
    QTest::addColumn<bool>("zeroInter");
    QTest::newRow("tiny") << 1 << 2 << 3 << 10 << false;
    QTest::newRow("one layer") << 2 << 6 << 1 << 40 << false;
    QTest::newRow("zero inter") << 3 << 5 << 6 << 60 << true;
    QTest::newRow("many ties") << 4 << 8 << 8 << 120 << false;
    QTest::newRow("wide") << 5 << 14 << 6 << 200 << false;
    QTest::newRow("deep") << 6 << 4 << 16 << 150 << false;
    QTest::newRow("golden-like") << 7 << 24 << 5 << 300 << false;
    for (int seed = 100; seed < 130; ++seed)
        QTest::newRow(qPrintable(QStringLiteral("random %1").arg(seed)))
            << seed << 2 + seed % 9 << 1 + seed % 7 << 20 + (seed * 37) % 180 << (seed % 5 == 0);
}

void TestStageDp::matchesDenseTable()
{
    QFETCH(int, seed);
    QFETCH(int, strategies);
    QFETCH(int, layers);
    QFETCH(int, budget);
    QFETCH(bool, zeroInter);
    std::mt19937 rng { static_cast<unsigned>(seed) };
    const RandomProblem r = makeProblem(rng, strategies, layers, budget, zeroInter);
    DenseDp dense;
    dense.run(r.problem);
    // Every depth is read here, at every row: nothing may be pruned.
    std::vector<int> depths;
    for (int n = 1; n <= layers; ++n)
        depths.push_back(n);
    StageDp::Problem everything = r.problem;
    everything.read_depths = depths;
    StageDp sparse;
    sparse.run(everything);
    QCOMPARE(sparse.depth(), layers);
    for (int n = 1; n <= layers; ++n) {
        for (int row = 0; row <= budget; ++row) {
            for (int s = 0; s < strategies; ++s) {
                const double expected = dense.snapshots[std::size_t(n - 1)][std::size_t(row * strategies + s)];
                const double actual = sparse.value(n, row, s);
                if (!(expected == actual || (expected == kInf && actual == kInf)))
                    QFAIL(qPrintable(QStringLiteral("f[%1][%2] after %3 layers: dense %4, sparse %5")
                                         .arg(row)
                                         .arg(s)
                                         .arg(n)
                                         .arg(expected, 0, 'g', 17)
                                         .arg(actual, 0, 'g', 17)));
            }
            std::vector<int> densePlan;
            const StageDp::Readout expected = dense.readout(row, n, densePlan);
            std::vector<int> sparsePlan(static_cast<std::size_t>(n), -7);
            const StageDp::Readout actual = sparse.readout(row, n, sparsePlan);
            QCOMPARE(actual.feasible, expected.feasible);
            if (!expected.feasible)
                continue;
            QCOMPARE(actual.objective_s, expected.objective_s);
            QCOMPARE(actual.remaining_mb, expected.remaining_mb);
            QCOMPARE(sparsePlan, densePlan);
        }
    }
}

void TestStageDp::rowLimitKeepsReadRows()
{
    // With a highest read row and one read depth, the rows that can be read are unchanged.
    for (int seed = 200; seed < 220; ++seed) {
        std::mt19937 rng { static_cast<unsigned>(seed) };
        RandomProblem r = makeProblem(rng, 3 + seed % 6, 2 + seed % 5, 60 + seed % 50, false);
        DenseDp dense;
        dense.run(r.problem);
        const int maxRow = r.problem.budget_mb - seed % 17;
        StageDp::Problem limited = r.problem;
        limited.max_row = maxRow;
        StageDp sparse;
        sparse.run(limited);
        for (int row = 0; row <= maxRow; ++row) {
            std::vector<int> densePlan;
            std::vector<int> sparsePlan(static_cast<std::size_t>(r.problem.layers));
            const StageDp::Readout expected = dense.readout(row, r.problem.layers, densePlan);
            const StageDp::Readout actual = sparse.readout(row, r.problem.layers, sparsePlan);
            QCOMPARE(actual.feasible, expected.feasible);
            if (expected.feasible) {
                QCOMPARE(actual.objective_s, expected.objective_s);
                QCOMPARE(sparsePlan, densePlan);
                QCOMPARE(actual.remaining_mb, expected.remaining_mb);
            }
        }
    }
}

void TestStageDp::dominancePruningKeepsPlans()
{
    // Strategies in TP/SP-like groups: Galvatron's tie-break biases inside a group, a larger cost
    // between groups; several strategies are slower and bigger than a sibling.
    int prunedTotal = 0;
    for (int seed = 300; seed < 340; ++seed) {
        std::mt19937 rng { static_cast<unsigned>(seed) };
        const int S = 4 + seed % 8;
        const int layers = 2 + seed % 6;
        const int budget = 80 + seed % 60;
        std::uniform_int_distribution<int> weightDist(1, 25);
        std::uniform_int_distribution<int> timeDist(10, 40);
        std::uniform_int_distribution<int> biasDist(0, 3);
        RandomProblem r;
        for (int s = 0; s < S; ++s) {
            r.weight.push_back(weightDist(rng));
            r.intra.push_back(timeDist(rng) / 1000.0);
        }
        for (int a = 0; a < S; ++a) {
            for (int b = 0; b < S; ++b) {
                const bool sameGroup = a / 3 == b / 3;
                r.inter.push_back(a == b ? 0.0 : sameGroup ? biasDist(rng) * 1e-9 : 0.004 * (1 + std::max(a, b) / 3));
            }
        }
        r.problem = { budget, layers, S, r.weight.data(), r.intra.data(), r.inter.data() };
        DenseDp dense;
        dense.run(r.problem);

        Dominance dominance;
        dominance.prepare(S, r.inter.data());
        std::vector<int> kept;
        dominance.undominated(r.weight.data(), r.intra.data(), layers, kept);
        prunedTotal += S - int(kept.size());
        const int K = int(kept.size());
        std::vector<int> w;
        std::vector<double> t;
        std::vector<double> x;
        for (int i = 0; i < K; ++i) {
            w.push_back(r.weight[std::size_t(kept[std::size_t(i)])]);
            t.push_back(r.intra[std::size_t(kept[std::size_t(i)])]);
            for (int j = 0; j < K; ++j)
                x.push_back(r.inter[std::size_t(kept[std::size_t(i)] * S + kept[std::size_t(j)])]);
        }
        StageDp sparse;
        sparse.run({ budget, layers, K, w.data(), t.data(), x.data() });
        for (int row = 0; row <= budget; ++row) {
            std::vector<int> densePlan;
            std::vector<int> sparsePlan(static_cast<std::size_t>(layers));
            const StageDp::Readout expected = dense.readout(row, layers, densePlan);
            const StageDp::Readout actual = sparse.readout(row, layers, sparsePlan);
            QCOMPARE(actual.feasible, expected.feasible);
            if (!expected.feasible)
                continue;
            for (int& position : sparsePlan)
                position = kept[std::size_t(position)];
            QCOMPARE(actual.objective_s, expected.objective_s);
            QCOMPARE(sparsePlan, densePlan);
            QCOMPARE(actual.remaining_mb, expected.remaining_mb);
        }
    }
    QVERIFY(prunedTotal > 20); // the test must exercise pruning
}

void TestStageDp::infeasibleRows()
{
    // Two strategies of 5 and 7 MB, two layers: nothing fits below 10 MB.
    const int weight[] = { 5, 7 };
    const double intra[] = { 1.0, 0.5 };
    const double inter[] = { 0, 0, 0, 0 };
    StageDp dp;
    dp.run({ 20, 2, 2, weight, intra, inter });
    std::vector<int> plan(2);
    QVERIFY(!dp.readout(9, 2, plan).feasible);
    QVERIFY(!dp.readout(-1, 2, plan).feasible);
    const StageDp::Readout at10 = dp.readout(10, 2, plan);
    QVERIFY(at10.feasible);
    QCOMPARE(at10.objective_s, 2.0);
    QCOMPARE(at10.remaining_mb, 0);
    const StageDp::Readout at14 = dp.readout(14, 2, plan);
    QCOMPARE(at14.objective_s, 1.0);
    QCOMPARE(plan, std::vector<int>({ 1, 1 }));
    QCOMPARE(at14.remaining_mb, 0);
    const StageDp::Readout at13 = dp.readout(13, 2, plan);
    QCOMPARE(at13.objective_s, 1.5);
    QCOMPARE(at13.remaining_mb, 1);
}

void TestStageDp::reusesWorkspace()
{
    std::mt19937 rng(42);
    StageDp dp;
    for (int round = 0; round < 5; ++round) {
        const RandomProblem r = makeProblem(rng, 3 + round, 2 + round, 50 + 10 * round, false);
        DenseDp dense;
        dense.run(r.problem);
        dp.run(r.problem);
        for (int row = 0; row <= r.problem.budget_mb; ++row) {
            std::vector<int> a(static_cast<std::size_t>(r.problem.layers));
            std::vector<int> b;
            QCOMPARE(dp.readout(row, r.problem.layers, a).remaining_mb,
                dense.readout(row, r.problem.layers, b).remaining_mb);
        }
    }
}

QTEST_GUILESS_MAIN(TestStageDp)
#include "tst_stage_dp.moc"
