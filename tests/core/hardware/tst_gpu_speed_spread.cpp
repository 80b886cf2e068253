// SPDX-License-Identifier: GPL-3.0-or-later
// gpu_speed_spread.h: a job's compute runs at its slowest GPU's pace, the expected maximum of the
// per-GPU slowness over its world size (docs/kernels.md, "The slowest GPU sets the pace").
#include <QtTest>

#include "core/hardware/cluster_description.h"
#include "core/hardware/gpu_speed_spread.h"
#include "core/hardware/hardware_model.h"

using namespace stratex::hardware;

class TestGpuSpeedSpread : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Blom's approximation against the exact expected maxima of n standard normals (Harter's
    // order-statistics tables: 0.5642, 1.5388, 2.5076, 3.2414): within 5 % at n = 2, 1 % beyond.
    void expectedMaximum_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("exact");
        QTest::addColumn<double>("tolerance");
        QTest::newRow("one GPU") << 1 << 0.0 << 0.0;
        QTest::newRow("2") << 2 << 0.5642 << 0.05;
        QTest::newRow("10") << 10 << 1.5388 << 0.01;
        QTest::newRow("100") << 100 << 2.5076 << 0.01;
        QTest::newRow("1000") << 1000 << 3.2414 << 0.01;
    }
    void expectedMaximum()
    {
        QFETCH(int, n);
        QFETCH(double, exact);
        QFETCH(double, tolerance);
        const double got = expectedMaxOfNormals(n);
        if (exact == 0)
            QCOMPARE(got, 0.0);
        else
            QVERIFY2(std::abs(got / exact - 1) <= tolerance, qPrintable(QString::number(got)));
    }

    // The factor grows with the world size and is the HardwareModel's: 1 % per standard deviation,
    // about +1.4 % on 8 GPUs and +4.0 % on 16,384.
    void factorOfAJob_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::newRow("one GPU") << 0 << 1.0 << 1.0;
        QTest::newRow("8 GPUs") << 1 << 1.013 << 1.015;
        QTest::newRow("512 GPUs") << 64 << 1.029 << 1.031;
        QTest::newRow("16,384 GPUs") << 2048 << 1.039 << 1.040;
    }
    void factorOfAJob()
    {
        QFETCH(int, nodes);
        QFETCH(double, low);
        QFETCH(double, high);
        const ClusterDescription cluster = nodes == 0 ? ClusterDescription { gpuPreset("h100-80gb"), 1, 1 }
                                                      : ClusterDescription { gpuPreset("h100-80gb"), nodes, 8 };
        const HardwareModel hw(cluster, efficiencyFor(cluster));
        QCOMPARE(hw.slowestGpuFactor(), slowestGpuFactor(cluster.worldSize()));
        QVERIFY2(hw.slowestGpuFactor() >= low && hw.slowestGpuFactor() <= high, qPrintable(QString::number(hw.slowestGpuFactor())));
        // Compute is charged the factor; a collective is not.
        ClusterDescription one = cluster;
        one.num_nodes = 1;
        one.gpus_per_node = 1;
        const HardwareModel single(one, efficiencyFor(one));
        QCOMPARE(hw.attentionS(1e12) / single.attentionS(1e12), hw.slowestGpuFactor());
    }
};

QTEST_GUILESS_MAIN(TestGpuSpeedSpread)
#include "tst_gpu_speed_spread.moc"
