// SPDX-License-Identifier: GPL-3.0-or-later
// A stage's data-parallel traffic (core/megatron/dp_traffic.h): the SMs NCCL's rings take from the
// compute they overlap (docs/collectives.md, "SMs taken by NCCL").
#include <QtTest>

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/dp_traffic.h"

using namespace stratex;

namespace {

hardware::HardwareModel cluster(const QString& gpu, int nodes)
{
    hardware::ClusterDescription c;
    c.gpu = hardware::gpuPreset(gpu.toStdString());
    c.num_nodes = nodes;
    c.gpus_per_node = 8;
    return hardware::HardwareModel(c, hardware::efficiencyFor(c.gpu));
}

} // namespace

class TestDpTraffic : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // NCCL's channels (one CTA each) for a ring, from its topology search (collectives.cpp,
    // ringCtas): 24 inside an NVSwitch node (6 rings, duplicated, doubled), 16 across nodes (one
    // ring per NIC, doubled); the compute keeps SMs - ctas: ctas / (SMs - ctas) more time.
    void ringCtasAndSlowdown_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("ctas");
        QTest::addColumn<double>("slowdown");
        QTest::newRow("h100 one node") << "h100-80gb" << 1 << 8 << 1 << 24 << 24.0 / 108;
        QTest::newRow("h100 tp2 pairs in a node") << "h100-80gb" << 1 << 4 << 2 << 24 << 24.0 / 108;
        QTest::newRow("h100 64 nodes") << "h100-80gb" << 64 << 512 << 1 << 16 << 16.0 / 116;
        QTest::newRow("h100 across nodes, one rank each") << "h100-80gb" << 16 << 16 << 8 << 16 << 16.0 / 116;
        QTest::newRow("a100 one node") << "a100-80gb" << 1 << 8 << 1 << 24 << 24.0 / 84;
        QTest::newRow("a100 16 nodes") << "a100-40gb" << 16 << 128 << 1 << 16 << 16.0 / 92;
        QTest::newRow("no group") << "h100-80gb" << 1 << 1 << 1 << 0 << 0.0;
    }
    void ringCtasAndSlowdown()
    {
        QFETCH(QString, gpu);
        QFETCH(int, nodes);
        QFETCH(int, size);
        QFETCH(int, stride);
        QFETCH(int, ctas);
        QFETCH(double, slowdown);
        const hardware::HardwareModel hw = cluster(gpu, nodes);
        const hardware::GroupShape group { size, stride };
        QCOMPARE(hw.collectives().ringCtas(group), ctas);
        QVERIFY2(std::abs(megatron::ncclComputeSlowdown(hw, group) - slowdown) < 1e-12,
            qPrintable(QString::number(megatron::ncclComputeSlowdown(hw, group))));
    }

    // The hidden traffic slows the compute it runs beside by compute_slowdown, for as long as the
    // two overlap: exposure grows by slowdown x min(hidden traffic, compute), and not at all when
    // nothing is hidden (no overlap) or the GPU's SMs are unknown (slowdown 0).
    void hiddenTrafficSlowsTheCompute_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<bool>("overlap");
        QTest::addColumn<double>("gatherMs"); // ZeRO 3: per layer; else all buckets
        QTest::addColumn<double>("reduceMs");
        QTest::addColumn<double>("slowdown");
        QTest::addColumn<double>("forwardMs"); // the stage's, per micro-batch
        QTest::addColumn<double>("backwardMs");
        QTest::addColumn<int>("microbatches");
        // FSDP, 32 layers, 1 ms gather and 2 ms reduce-scatter a layer under 10 / 20 ms of
        // compute a layer: 4 ms of 128 ms exposed (first gathers, last reduce-scatter), 124 hidden.
        QTest::newRow("zero3 hidden") << 3 << true << 1.0 << 2.0 << 16.0 / 116 << 320.0 << 640.0 << 1;
        QTest::newRow("zero3 no SM count") << 3 << true << 1.0 << 2.0 << 0.0 << 320.0 << 640.0 << 1;
        // Communication longer than the compute: only the compute's length is slowed.
        QTest::newRow("zero3 comm-bound") << 3 << true << 40.0 << 80.0 << 24.0 / 108 << 32.0 << 64.0 << 2;
        QTest::newRow("zero1 overlapped") << 1 << true << 30.0 << 60.0 << 24.0 / 108 << 300.0 << 600.0 << 8;
        QTest::newRow("zero1 not overlapped") << 1 << false << 30.0 << 60.0 << 24.0 / 108 << 300.0 << 600.0 << 8;
    }
    void hiddenTrafficSlowsTheCompute()
    {
        QFETCH(int, zero);
        QFETCH(bool, overlap);
        QFETCH(double, gatherMs);
        QFETCH(double, reduceMs);
        QFETCH(double, slowdown);
        QFETCH(double, forwardMs);
        QFETCH(double, backwardMs);
        QFETCH(int, microbatches);
        megatron::ParallelStrategy s;
        s.dp = 64;
        s.zero = zero;
        s.overlap_grad_reduce = overlap;
        megatron::DpTraffic dp;
        if (zero == 3) {
            dp.gather_s = gatherMs / 1e3;
            dp.reduce_s = reduceMs / 1e3;
        } else {
            dp.gather_total_s = gatherMs / 1e3;
            dp.grad_s = reduceMs / 1e3;
            dp.first_bucket_s = dp.gather_total_s / 4;
            dp.last_bucket_s = dp.grad_s / 4;
        }
        megatron::DpStageTiming t;
        t.m = microbatches;
        t.layers = 32;
        t.forward_s = forwardMs / 1e3;
        t.backward_s = backwardMs / 1e3;
        t.pipeline_s = microbatches * (t.forward_s + t.backward_s);
        const megatron::GradientReduction r = megatron::gradientReduction(s.framework, s.zero, s.pp);
        const megatron::DpExposure without = megatron::dpExposure(s, dp, r, 0.9, t);
        dp.compute_slowdown = slowdown;
        const megatron::DpExposure with = megatron::dpExposure(s, dp, r, 0.9, t);
        QCOMPARE(with.comm_s, without.comm_s);
        const double hidden = std::max(0.0, without.comm_s - without.exposed_s);
        const double compute = microbatches * (t.forward_s + t.backward_s);
        const double expected = without.exposed_s + slowdown * std::min(hidden, compute);
        QVERIFY2(std::abs(with.exposed_s - expected) < 1e-12,
            qPrintable(QString("exposed %1 ms, expected %2 ms").arg(with.exposed_s * 1e3).arg(expected * 1e3)));
        if (slowdown > 0 && hidden > 0)
            QVERIFY(with.exposed_s > without.exposed_s);
        else
            QCOMPARE(with.exposed_s, without.exposed_s);
    }
};

QTEST_GUILESS_MAIN(TestDpTraffic)
#include "tst_dp_traffic.moc"
