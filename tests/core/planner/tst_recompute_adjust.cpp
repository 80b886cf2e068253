// SPDX-License-Identifier: GPL-3.0-or-later
// Per-micro-batch recompute adjustment (adjust_rc_plan): redundancy from a timeline, the
// in-flight set at the peak, the raise rules, the per-device cap, unavailable types, and the
// plan keyed by stable micro-batch ids.
#include <QTest>

#include "core/common/error.h"
#include "core/planner/recompute_adjust.h"

using namespace stratex;
using namespace stratex::planner;
using namespace stratex::sim;

namespace {

TimelineOp op(OpKind kind, int microbatch, double start, double duration)
{
    TimelineOp o;
    o.kind = kind;
    o.microbatch = microbatch;
    o.start_us = start;
    o.duration_us = duration;
    return o;
}

// Device 0: F10 [0,10) F20 [10,20) B10 [20,40) idle 20 F30 [60,70) B20 [70,90) B30 [90,100).
// Device 1: F10 [10,20) B10 [20,30) idle 30 F20 [60,70) B20 [70,80).
// Memory peaks on device 0 at t=15 (10 and 20 in flight), on device 1 at t=65 (only 20).
Timeline sampleTimeline()
{
    Timeline timeline;
    timeline.makespan_us = 100;
    DeviceTimeline d0;
    d0.device = 0;
    d0.compute = { op(OpKind::Forward, 10, 0, 10), op(OpKind::Forward, 20, 10, 10), op(OpKind::Backward, 10, 20, 20),
        op(OpKind::Forward, 30, 60, 10), op(OpKind::Backward, 20, 70, 20), op(OpKind::Backward, 30, 90, 10) };
    d0.memory = { { 0, 100 }, { 10, 150 }, { 15, 300 }, { 40, 200 }, { 60, 250 }, { 100, 100 } };
    DeviceTimeline d1;
    d1.device = 1;
    d1.compute = { op(OpKind::Forward, 10, 10, 10), op(OpKind::Backward, 10, 20, 10), op(OpKind::Forward, 20, 60, 10),
        op(OpKind::Backward, 20, 70, 10) };
    d1.memory = { { 0, 50 }, { 10, 120 }, { 30, 50 }, { 65, 180 }, { 80, 50 } };
    timeline.devices = { d0, d1 };
    return timeline;
}

const auto kAlways = [](int, RecomputeType) { return true; };

} // namespace

class TestRecomputeAdjust : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void redundancyRanking();
    void inflightAtThePeak();
    void raisesHighRedundancyToFull();
    void capsPerDeviceAndSkipsFull();
    void capsDistinctMicrobatchesPerRound();
    void onlyOverLimitDevices();
    void unavailableTypesSkipToStronger();
    void nothingLeftMeansNoChange();
    void planIsKeyedByIds();
};

void TestRecomputeAdjust::redundancyRanking()
{
    const std::vector<BackwardRedundancy> ranking = backwardRedundancy(sampleTimeline());
    // Device 0: B10 gap 20 / 20 = 1.0; B20 gap 0 / 20 = 0; B30 is the last op. Device 1: B10
    // gap 30 / 10 = 3.0; B20 is last.
    QCOMPARE(ranking.size(), std::size_t(3));
    QCOMPARE(ranking[0].device, 1);
    QCOMPARE(ranking[0].microbatch, 10);
    QCOMPARE(ranking[0].redundancy, 3.0);
    QCOMPARE(ranking[1].device, 0);
    QCOMPARE(ranking[1].microbatch, 10);
    QCOMPARE(ranking[1].redundancy, 1.0);
    QCOMPARE(ranking[2].microbatch, 20);
    QCOMPARE(ranking[2].redundancy, 0.0);
}

void TestRecomputeAdjust::inflightAtThePeak()
{
    const Timeline timeline = sampleTimeline();
    QCOMPARE(inflightAtPeak(timeline.devices[0]), (std::vector<int> { 10, 20 }));
    QCOMPARE(inflightAtPeak(timeline.devices[1]), (std::vector<int> { 20 }));
    QCOMPARE(inflightAtPeak(DeviceTimeline {}), std::vector<int> {});
}

void TestRecomputeAdjust::raisesHighRedundancyToFull()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::None);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 200;
    const auto changes = adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways);
    // Only device 0 is over; of its peak set {10, 20}, 10 ranks first with redundancy 1.0 >= 0.5.
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0].device, 0);
    QCOMPARE(changes[0].microbatch, 10);
    QCOMPARE(changes[0].from, RecomputeType::None);
    QCOMPARE(changes[0].to, RecomputeType::Full);
    QCOMPARE(plan.at(10, 0), RecomputeType::Full);
    QCOMPARE(plan.at(10, 1), RecomputeType::None); // the other device is untouched
    // Next round: 10 is at full, so 20 (redundancy 0 < 0.5) goes to selective, then to full.
    QCOMPARE(
        adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways).at(0).to, RecomputeType::Selective);
    QCOMPARE(plan.at(20, 0), RecomputeType::Selective);
    QCOMPARE(adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways).at(0).to, RecomputeType::Full);
}

void TestRecomputeAdjust::capsPerDeviceAndSkipsFull()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::None);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 100;
    options.microbatches_per_device = 2;
    const auto changes = adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways);
    // Device 0 raises both of its peak set, device 1 its only one in flight at its peak (20).
    QCOMPARE(changes.size(), std::size_t(3));
    QCOMPARE(plan.at(10, 0), RecomputeType::Full);
    QCOMPARE(plan.at(20, 0), RecomputeType::Selective);
    QCOMPARE(plan.at(20, 1), RecomputeType::Selective);
    QCOMPARE(plan.at(10, 1), RecomputeType::None);
}

void TestRecomputeAdjust::capsDistinctMicrobatchesPerRound()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::None);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 100;
    options.microbatches_per_device = 2;
    options.max_microbatches_per_round = 1;
    // Device 0 raises 10 (its best); device 1's candidate 20 would be a second micro-batch.
    const auto changes = adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways);
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0].microbatch, 10);
    // With a cap of 2, 20 may be raised on both devices: it counts once.
    RecomputePlan two({ 10, 20, 30 }, 2, RecomputeType::None);
    options.max_microbatches_per_round = 2;
    const auto more = adjustRecomputePlan(two, sampleTimeline(), { 300, 180 }, options, kAlways);
    QCOMPARE(more.size(), std::size_t(3));
    QCOMPARE(two.at(20, 1), RecomputeType::Selective);
}

void TestRecomputeAdjust::onlyOverLimitDevices()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::None);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 1000;
    QVERIFY(adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways).empty());
    QCOMPARE(plan.countDifferentFrom(RecomputeType::None), 0);
}

void TestRecomputeAdjust::unavailableTypesSkipToStronger()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::None);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 200;
    options.full_recompute_redundancy = 10; // would choose selective...
    const auto noSelective = [](int, RecomputeType type) { return type != RecomputeType::Selective; };
    const auto changes = adjustRecomputePlan(plan, sampleTimeline(), { 300, 0 }, options, noSelective);
    QCOMPARE(changes.size(), std::size_t(1));
    QCOMPARE(changes[0].to, RecomputeType::Full); // ...which the cost model cannot price
}

void TestRecomputeAdjust::nothingLeftMeansNoChange()
{
    RecomputePlan plan({ 10, 20, 30 }, 2, RecomputeType::Full);
    RecomputeAdjustOptions options;
    options.memory_limit_mb = 1;
    QVERIFY(adjustRecomputePlan(plan, sampleTimeline(), { 300, 180 }, options, kAlways).empty());
    const auto nothing = [](int, RecomputeType) { return false; };
    RecomputePlan none({ 10, 20, 30 }, 2, RecomputeType::None);
    QVERIFY(adjustRecomputePlan(none, sampleTimeline(), { 300, 180 }, options, nothing).empty());
}

void TestRecomputeAdjust::planIsKeyedByIds()
{
    RecomputePlan plan({ 42, 7 }, 3, RecomputeType::Selective);
    QCOMPARE(plan.microbatchIds(), (std::vector<int> { 7, 42 }));
    plan.set(42, 2, RecomputeType::Full);
    QCOMPARE(plan.ofMicrobatch(42),
        (std::vector<RecomputeType> { RecomputeType::Selective, RecomputeType::Selective, RecomputeType::Full }));
    QCOMPARE(plan.countDifferentFrom(RecomputeType::Selective), 1);
    QVERIFY_THROWS_EXCEPTION(Error, plan.at(0, 0));
    QVERIFY_THROWS_EXCEPTION(Error, plan.at(42, 3));
    QVERIFY_THROWS_EXCEPTION(Error, plan.set(8, 0, RecomputeType::Full));
}

QTEST_GUILESS_MAIN(TestRecomputeAdjust)
#include "tst_recompute_adjust.moc"
