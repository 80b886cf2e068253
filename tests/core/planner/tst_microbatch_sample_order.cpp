// SPDX-License-Identifier: GPL-3.0-or-later
// Sample ordering for the DP: decoder-only sort, complete-linkage clustering against a naive
// oracle, the open-tour heuristic against brute force, and the encoder-decoder order.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include <QTest>

#include "core/planner/microbatch_sample_order.h"
#include "core/planner/planner_rng.h"

using namespace stratex;
using namespace stratex::planner;

using Points = std::vector<std::pair<double, double>>;

namespace {

// Textbook agglomeration: repeatedly merge the globally closest pair of clusters (complete
// linkage = largest pairwise distance) while it is below the threshold. O(n^3) per merge.
std::set<std::set<int>> naiveClusters(const Points& points, double threshold)
{
    std::vector<std::set<int>> clusters;
    for (std::size_t i = 0; i < points.size(); ++i)
        clusters.push_back({ static_cast<int>(i) });
    auto linkage = [&](const std::set<int>& a, const std::set<int>& b) {
        double worst = 0;
        for (int i : a) {
            for (int j : b) {
                const double dx = points[static_cast<std::size_t>(i)].first - points[static_cast<std::size_t>(j)].first;
                const double dy
                    = points[static_cast<std::size_t>(i)].second - points[static_cast<std::size_t>(j)].second;
                worst = std::max(worst, std::sqrt(dx * dx + dy * dy));
            }
        }
        return worst;
    };
    while (clusters.size() > 1) {
        double best = std::numeric_limits<double>::infinity();
        std::size_t bi = 0;
        std::size_t bj = 0;
        for (std::size_t i = 0; i < clusters.size(); ++i) {
            for (std::size_t j = i + 1; j < clusters.size(); ++j) {
                const double d = linkage(clusters[i], clusters[j]);
                if (d < best) {
                    best = d;
                    bi = i;
                    bj = j;
                }
            }
        }
        if (!(best < threshold))
            break;
        clusters[bi].insert(clusters[bj].begin(), clusters[bj].end());
        clusters.erase(clusters.begin() + static_cast<std::ptrdiff_t>(bj));
    }
    return { clusters.begin(), clusters.end() };
}

std::set<std::set<int>> asSets(const std::vector<int>& labels)
{
    std::map<int, std::set<int>> byLabel;
    for (std::size_t i = 0; i < labels.size(); ++i)
        byLabel[labels[i]].insert(static_cast<int>(i));
    std::set<std::set<int>> result;
    for (auto& [label, members] : byLabel)
        result.insert(members);
    return result;
}

Points randomPoints(std::uint64_t seed, int n, double spread)
{
    PlannerRng rng(seed);
    Points points;
    for (int i = 0; i < n; ++i)
        points.emplace_back(spread * rng.uniform(), spread * rng.uniform());
    return points;
}

} // namespace

class TestSampleOrder : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void decoderOnlySortsLongestFirst();
    void clustersMatchNaiveOracle_data();
    void clustersMatchNaiveOracle();
    void tourIsNearOptimal_data();
    void tourIsNearOptimal();
    void tourOnALineIsTheLine();
    void encoderDecoderOrderKeepsClustersTogether();
    void sortDescendingForEncoderDecoder();
};

void TestSampleOrder::decoderOnlySortsLongestFirst()
{
    NullProgress progress;
    const std::vector<Sample> samples { { 0, 100, 0 }, { 1, 300, 0 }, { 2, 100, 0 }, { 3, 200, 0 } };
    const std::vector<Sample> ordered = orderSamples(samples, false, SampleOrderConfig {}, progress);
    std::vector<int> ids;
    for (const Sample& s : ordered)
        ids.push_back(s.id);
    // Equal lengths: the higher id first (DynaPipe sorts (len, 0, id) tuples descending).
    QCOMPARE(ids, (std::vector<int> { 1, 3, 2, 0 }));
}

void TestSampleOrder::clustersMatchNaiveOracle_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("spread");
    QTest::newRow("dense") << 1 << 40 << 60.0;
    QTest::newRow("sparse") << 2 << 40 << 400.0;
    QTest::newRow("medium") << 3 << 60 << 120.0;
    QTest::newRow("tiny") << 4 << 3 << 20.0;
}

void TestSampleOrder::clustersMatchNaiveOracle()
{
    QFETCH(int, seed);
    QFETCH(int, count);
    QFETCH(double, spread);
    const Points points = randomPoints(static_cast<std::uint64_t>(seed), count, spread);
    NullProgress progress;
    const std::vector<int> labels = completeLinkageClusters(points, 16, progress);
    QCOMPARE(asSets(labels), naiveClusters(points, 16));
    // Every cluster is tighter than the threshold.
    for (std::size_t i = 0; i < points.size(); ++i) {
        for (std::size_t j = 0; j < points.size(); ++j) {
            if (labels[i] == labels[j])
                QVERIFY(std::hypot(points[i].first - points[j].first, points[i].second - points[j].second) < 16);
        }
    }
}

void TestSampleOrder::tourIsNearOptimal_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("distance");
    for (int seed = 1; seed <= 6; ++seed)
        QTest::newRow(("seed-" + std::to_string(seed)).c_str()) << seed << seed % 3;
}

void TestSampleOrder::tourIsNearOptimal()
{
    QFETCH(int, seed);
    QFETCH(int, distance);
    const TourDistance kind = TourDistance(distance);
    const Points points = randomPoints(static_cast<std::uint64_t>(100 + seed), 7, 1000);
    const std::vector<int> tour = openTour(points, kind);
    std::vector<int> sorted = tour;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(points.size());
    std::iota(all.begin(), all.end(), 0);
    QCOMPARE(sorted, all);
    double optimum = std::numeric_limits<double>::infinity();
    do {
        optimum = std::min(optimum, tourLength(points, all, kind));
    } while (std::next_permutation(all.begin(), all.end()));
    const double length = tourLength(points, tour, kind);
    QVERIFY(length >= optimum - 1e-9);
    QVERIFY2(length <= optimum * 1.1 + 1e-9, qPrintable(QStringLiteral("%1 vs optimum %2").arg(length).arg(optimum)));
    QCOMPARE(openTour(points, kind), tour);
}

void TestSampleOrder::tourOnALineIsTheLine()
{
    Points points;
    for (int x : { 50, 10, 90, 30, 70, 20, 60, 100, 0, 80, 40 })
        points.emplace_back(x, 2 * x);
    const std::vector<int> tour = openTour(points, TourDistance::Sum);
    QCOMPARE(tourLength(points, tour, TourDistance::Sum), 300.0);
}

void TestSampleOrder::encoderDecoderOrderKeepsClustersTogether()
{
    PlannerRng rng(7);
    std::vector<Sample> samples;
    // Four shape families, interleaved in the input.
    const int centres[4][2] = { { 1000, 100 }, { 200, 400 }, { 60, 30 }, { 500, 500 } };
    for (int i = 0; i < 80; ++i) {
        const auto* c = centres[i % 4];
        samples.push_back({ i, c[0] + static_cast<int>(rng.below(6)), c[1] + static_cast<int>(rng.below(6)) });
    }
    NullProgress progress;
    const std::vector<Sample> ordered = orderSamples(samples, true, SampleOrderConfig {}, progress);
    QCOMPARE(ordered.size(), samples.size());
    std::set<int> ids;
    int changes = 0;
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        ids.insert(ordered[i].id);
        if (i > 0 && ordered[i].id % 4 != ordered[i - 1].id % 4)
            ++changes;
    }
    QCOMPARE(ids.size(), samples.size());
    QCOMPARE(changes, 3); // each family is one contiguous run
    QCOMPARE(ordered.front().id % 4, 0); // the tour is walked from its longer end
    QCOMPARE(orderSamples(samples, true, SampleOrderConfig {}, progress), ordered);
}

void TestSampleOrder::sortDescendingForEncoderDecoder()
{
    NullProgress progress;
    SampleOrderConfig config;
    config.ordering = SampleOrdering::SortDescending;
    const std::vector<Sample> samples { { 0, 100, 5 }, { 1, 100, 50 }, { 2, 300, 1 } };
    const std::vector<Sample> ordered = orderSamples(samples, true, config, progress);
    QCOMPARE(ordered, (std::vector<Sample> { { 2, 300, 1 }, { 1, 100, 50 }, { 0, 100, 5 } }));
}

QTEST_GUILESS_MAIN(TestSampleOrder)
#include "tst_microbatch_sample_order.moc"
