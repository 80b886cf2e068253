// SPDX-License-Identifier: GPL-3.0-or-later
// k-means and the micro-batch permutations of the planner: separable clusters are found, runs
// are reproducible from the seed, and the permutation set has DynaPipe's size and shape; the
// warm-up orders put the lightest micro-batches at the head of the best order.
#include <algorithm>
#include <set>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/kmeans.h"
#include "core/planner/planner_permutations.h"
#include "core/planner/planner_rng.h"

using namespace stratex;
using namespace stratex::planner;

namespace {

// n points around each of the given 4-d centres, interleaved.
std::vector<std::vector<double>> blobs(
    const std::vector<std::vector<double>>& centres, int perCentre, std::uint64_t seed)
{
    PlannerRng rng(seed);
    std::vector<std::vector<double>> points;
    for (int i = 0; i < perCentre; ++i) {
        for (const auto& centre : centres) {
            std::vector<double> p = centre;
            for (double& x : p)
                x += rng.uniform() * 10;
            points.push_back(p);
        }
    }
    return points;
}

std::vector<int> ids(int n)
{
    std::vector<int> result;
    for (int i = 0; i < n; ++i)
        result.push_back(1000 + 3 * i);
    return result;
}

} // namespace

class TestKMeansPermutations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void findsSeparatedClusters();
    void reproducibleAndCapped();
    void permutationCounts_data();
    void permutationCounts();
    void clusterOrdersKeepClustersContiguous();
    void seedChangesShuffles();
    void warmupOrders_data();
    void warmupOrders();
    void warmupOrdersNeedEveryMicrobatch();
};

void TestKMeansPermutations::findsSeparatedClusters()
{
    const std::vector<std::vector<double>> centres { { 0, 0, 0, 0 }, { 1000, 0, 0, 0 }, { 0, 1000, 1000, 0 },
        { 500, 500, 500, 500 } };
    const auto points = blobs(centres, 6, 1);
    const KMeansResult result = kmeans(points, 4, 0);
    QCOMPARE(result.cluster_count, 4);
    for (std::size_t i = 0; i < points.size(); ++i)
        QCOMPARE(result.label[i], result.label[i % 4]); // every blob is one cluster
    QCOMPARE(std::set<int>(result.label.begin(), result.label.end()).size(), std::size_t(4));
    QCOMPARE(result.label[0], 0); // numbered by first appearance
}

void TestKMeansPermutations::reproducibleAndCapped()
{
    const auto points = blobs({ { 0, 0, 0, 0 }, { 50, 50, 50, 50 }, { 90, 0, 90, 0 } }, 8, 2);
    QCOMPARE(kmeans(points, 3, 5).label, kmeans(points, 3, 5).label);
    const std::vector<std::vector<double>> two { { 1, 1 }, { 1, 1 }, { 2, 2 }, { 2, 2 } };
    const KMeansResult capped = kmeans(two, 4, 0);
    QCOMPARE(capped.cluster_count, 2);
    QCOMPARE(capped.label, (std::vector<int> { 0, 0, 1, 1 }));
    QCOMPARE(capped.inertia, 0.0);
}

void TestKMeansPermutations::permutationCounts_data()
{
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("expected");
    QTest::newRow("m=1") << 1 << 1;
    QTest::newRow("m=3: all 3!") << 3 << 6;
    QTest::newRow("m=4: all 4!") << 4 << 24;
    QTest::newRow("m=8: 4!+1") << 8 << 25;
    QTest::newRow("m=20: 4!+1") << 20 << 25;
    QTest::newRow("m=21: 3!+1") << 21 << 7;
    QTest::newRow("m=64: 3!+1") << 64 << 7;
}

void TestKMeansPermutations::permutationCounts()
{
    QFETCH(int, m);
    QFETCH(int, expected);
    PlannerRng rng(static_cast<std::uint64_t>(m));
    std::vector<std::vector<double>> features;
    for (int i = 0; i < m; ++i)
        features.push_back({ rng.uniform() * 100, rng.uniform() * 100, rng.uniform() * 100, rng.uniform() * 100 });
    const auto orders = microbatchPermutations(ids(m), features, 0);
    QCOMPARE(static_cast<int>(orders.size()), expected);
    std::vector<int> sortedIds = ids(m);
    for (const auto& order : orders) {
        std::vector<int> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        QCOMPARE(sorted, sortedIds);
    }
    QCOMPARE(std::set<std::vector<int>>(orders.begin(), orders.end()).size(), orders.size());
    if (m > 4)
        QCOMPARE(orders.back(), ids(m)); // the identity comes last
    QCOMPARE(microbatchPermutations(ids(m), features, 0), orders);
}

void TestKMeansPermutations::clusterOrdersKeepClustersContiguous()
{
    const auto points = blobs({ { 0, 0, 0, 0 }, { 1000, 0, 0, 0 }, { 0, 1000, 0, 0 } }, 10, 3);
    const std::vector<int> idList = ids(30);
    const auto orders = microbatchPermutations(idList, points, 7);
    QCOMPARE(orders.size(), std::size_t(7));
    std::set<std::vector<int>> clusterSequences;
    for (std::size_t k = 0; k + 1 < orders.size(); ++k) {
        std::vector<int> sequence;
        for (int id : orders[k]) {
            const int blob = ((id - 1000) / 3) % 3;
            if (sequence.empty() || sequence.back() != blob)
                sequence.push_back(blob);
        }
        QCOMPARE(sequence.size(), std::size_t(3)); // each cluster one contiguous run
        clusterSequences.insert(sequence);
    }
    QCOMPARE(clusterSequences.size(), std::size_t(6)); // all 3! cluster orders
}

void TestKMeansPermutations::seedChangesShuffles()
{
    const auto points = blobs({ { 0, 0, 0, 0 }, { 1000, 0, 0, 0 }, { 0, 1000, 0, 0 } }, 10, 3);
    QVERIFY(microbatchPermutations(ids(30), points, 1) != microbatchPermutations(ids(30), points, 2));
}

using Orders = std::vector<std::vector<int>>;

void TestKMeansPermutations::warmupOrders_data()
{
    QTest::addColumn<std::vector<int>>("order");
    QTest::addColumn<std::vector<int>>("lightestFirst");
    QTest::addColumn<int>("maxHead");
    QTest::addColumn<Orders>("expected");

    QTest::newRow("heads 1..3, rest in the order's order")
        << std::vector<int> { 5, 9, 2, 7, 4 } << std::vector<int> { 7, 2, 4, 9, 5 } << 3
        << Orders { { 7, 5, 9, 2, 4 }, { 7, 2, 5, 9, 4 }, { 7, 2, 4, 5, 9 } };
    // Ids need not be small or contiguous.
    QTest::newRow("sparse ids") << std::vector<int> { 1000, 3, 77 } << std::vector<int> { 77, 1000, 3 } << 1
                                << Orders { { 77, 1000, 3 } };
    // q = 1 gives the order itself (its lightest already leads): dropped; q = 2 differs.
    QTest::newRow("the order itself is dropped")
        << std::vector<int> { 1, 3, 2 } << std::vector<int> { 1, 2, 3 } << 2 << Orders { { 1, 2, 3 } };
    // The whole order sorted would be q = m; q stops at m - 1, which gives the same order.
    QTest::newRow("head capped at m - 1")
        << std::vector<int> { 3, 2, 1 } << std::vector<int> { 1, 2, 3 } << 10 << Orders { { 1, 3, 2 }, { 1, 2, 3 } };
    QTest::newRow("already lightest first")
        << std::vector<int> { 1, 2, 3, 4 } << std::vector<int> { 1, 2, 3, 4 } << 4 << Orders {};
    QTest::newRow("one micro-batch") << std::vector<int> { 8 } << std::vector<int> { 8 } << 4 << Orders {};
    QTest::newRow("no head asked") << std::vector<int> { 2, 1 } << std::vector<int> { 1, 2 } << 0 << Orders {};
}

void TestKMeansPermutations::warmupOrders()
{
    QFETCH(std::vector<int>, order);
    QFETCH(std::vector<int>, lightestFirst);
    QFETCH(int, maxHead);
    QFETCH(Orders, expected);
    const Orders orders = planner::warmupOrders(order, lightestFirst, maxHead);
    QCOMPARE(orders, expected);
    for (const std::vector<int>& warm : orders) {
        std::vector<int> sorted = warm;
        std::sort(sorted.begin(), sorted.end());
        std::vector<int> all = order;
        std::sort(all.begin(), all.end());
        QCOMPARE(sorted, all); // a permutation of the same micro-batches
    }
}

void TestKMeansPermutations::warmupOrdersNeedEveryMicrobatch()
{
    QVERIFY_THROWS_EXCEPTION(Error, planner::warmupOrders({ 1, 2, 3 }, { 1, 2 }, 2));
    QVERIFY_THROWS_EXCEPTION(Error, planner::warmupOrders({ 1, 2, 3 }, { 1, 4, 2 }, 2));
}

QTEST_GUILESS_MAIN(TestKMeansPermutations)
#include "tst_kmeans_permutations.moc"
