// SPDX-License-Identifier: GPL-3.0-or-later
// GEMM and flash-attention time by shape (core/hardware/kernel_shapes.h, docs/kernels.md): tile and
// wave quantization on the GPU's SMs, worked by hand for shapes where the answer is plain.
#include <QtTest>

#include "core/hardware/gpu_speed_spread.h"
#include "core/hardware/hardware_model.h"
#include "core/hardware/kernel_shapes.h"

using namespace stratex;
using namespace stratex::hardware;

class TestKernelShapes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void gemmTiling_data()
    {
        QTest::addColumn<double>("m");
        QTest::addColumn<double>("n");
        QTest::addColumn<double>("k");
        QTest::addColumn<int>("sms");
        QTest::addColumn<double>("groups");
        QTest::addColumn<double>("efficiency");
        QTest::addColumn<int>("splitK");
        // 132 tiles of 128x256 on 132 SMs: one full wave.
        QTest::newRow("one full wave") << 128.0 * 132 << 256.0 << 4096.0 << 132 << 1.0 << 1.0 << 1;
        // 133 tiles: the tail is spread over the SMs (Stream-K's hybrid schedule), no idle half wave.
        QTest::newRow("tail over the SMs") << 128.0 * 133 << 256.0 << 4096.0 << 132 << 1.0 << 1.0 << 1;
        // Tile quantization: n = 8256 pads to 33 x 256 = 8448 with 128x256 tiles, to 65 x 128 = 8320
        // with 256x128 tiles (m = 8192 divides both): the latter, 8256/8320.
        QTest::newRow("padded side") << 8192.0 << 8256.0 << 8192.0 << 132 << 1.0 << 8256.0 / 8320 << 1;
        // Under one wave: 1024^2 is 32 large tiles on A100's 108 SMs; k = 8192 split 4 ways (2048
        // each) gives 128 CTAs, spread over the 108 SMs: no SM idle (reduction free here).
        QTest::newRow("under a wave, split-K") << 1024.0 << 1024.0 << 8192.0 << 108 << 1.0 << 1.0 << 4;
        // 4 experts of 128 tokens x 256 outputs in one grouped launch: 4 large tiles on 132 SMs.
        // Best: 128x64 tiles (16 CTAs, reuse 1/2) split 8 ways (4096 / 8 = 512 >= 256): 128 CTAs
        // in one wave, 128/132 x 1/2 (the reduction free here); the large tile split 8 ways gets
        // only 32/132.
        QTest::newRow("grouped experts, split-K") << 128.0 << 256.0 << 4096.0 << 132 << 4.0 << 128.0 / 132 * 0.5 << 8;
        // No SM count: no quantization.
        QTest::newRow("unknown SMs") << 100.0 << 100.0 << 100.0 << 0 << 1.0 << 1.0 << 1;
    }
    void gemmTiling()
    {
        QFETCH(double, m);
        QFETCH(double, n);
        QFETCH(double, k);
        QFETCH(int, sms);
        QFETCH(double, groups);
        QFETCH(double, efficiency);
        QFETCH(int, splitK);
        const GemmTiling tiling = hardware::gemmTiling(m, n, k, sms, groups);
        QVERIFY2(std::abs(tiling.efficiency - efficiency) < 1e-9,
            qPrintable(QString("efficiency %1, expected %2 (tile %3x%4, split %5)")
                           .arg(tiling.efficiency)
                           .arg(efficiency)
                           .arg(tiling.tile_m)
                           .arg(tiling.tile_n)
                           .arg(tiling.split_k)));
        QCOMPARE(tiling.split_k, splitK);
    }

    // A small GEMM (hidden 1024, TP 8: n = 384) takes smaller tiles or split-K over the large
    // tile's 24 CTAs, and never beats a full wave.
    void smallGemmChoosesFinerWork()
    {
        const GemmTiling tiling = hardware::gemmTiling(2048, 384, 1024, 132, 1);
        const double largeOnly = 2048.0 * 384 / (132 * 128 * 256); // 24 tiles, one wave
        QVERIFY2(tiling.efficiency > largeOnly, qPrintable(QString::number(tiling.efficiency)));
        QVERIFY(tiling.efficiency < 1);
        QVERIFY(tiling.tile_m * tiling.tile_n < 128 * 256 || tiling.split_k > 1);
    }

    // A tile's fixed cost of k0 k-steps: a one-wave GEMM over k = k0 runs at half the rate.
    void tileFixedCostHalvesAtItsK()
    {
        const GemmTiling tiling = hardware::gemmTiling(128.0 * 132, 256, 300, 132, 1, 300);
        QVERIFY(std::abs(tiling.efficiency - 0.5) < 1e-9);
    }

    // An expensive split-K reduction keeps k whole.
    void splitKPaysItsReduction()
    {
        const GemmTiling cheap = hardware::gemmTiling(128, 256, 4096, 132, 4, 0, 0);
        const GemmTiling dear = hardware::gemmTiling(128, 256, 4096, 132, 4, 0, 1e9);
        QVERIFY(cheap.split_k > 1);
        QCOMPARE(dear.split_k, 1);
    }

    void flashAttention_data()
    {
        QTest::addColumn<double>("batchHeads");
        QTest::addColumn<double>("queries");
        QTest::addColumn<double>("keys");
        QTest::addColumn<bool>("causal");
        QTest::addColumn<double>("occupancy");
        // 132 CTAs of equal work (no mask): one full wave.
        QTest::newRow("full wave") << 33.0 << 512.0 << 512.0 << false << 1.0;
        // 133: a second wave.
        QTest::newRow("second wave") << 133.0 << 128.0 << 4096.0 << false << 133.0 / 264;
        // Causal, 4 heads x 16 query blocks = 64 CTAs: the last block's CTA does twice the average
        // work: 64 / 264 busy, times the diagonal 1 / (1 + 128/2048).
        QTest::newRow("causal, under a wave") << 4.0 << 2048.0 << 2048.0 << true << 64.0 / 264 / (1 + 128.0 / 2048);
        // Causal with plenty of CTAs: only the diagonal.
        QTest::newRow("causal, long") << 32.0 << 32768.0 << 32768.0 << true << 1 / (1 + 128.0 / 32768);
    }
    void flashAttention()
    {
        QFETCH(double, batchHeads);
        QFETCH(double, queries);
        QFETCH(double, keys);
        QFETCH(bool, causal);
        QFETCH(double, occupancy);
        QVERIFY(std::abs(flashAttentionOccupancy(batchHeads, queries, keys, causal, 132) - occupancy) < 1e-12);
        QCOMPARE(flashAttentionOccupancy(batchHeads, queries, keys, causal, 0), 1.0);
    }

    // The hardware model: a GPU without an SM count (one a cluster file names itself) costs a GEMM
    // at the flat full-wave efficiency (issue 22's old model); a preset, never faster.
    void gemmTimeWithAndWithoutSms()
    {
        ClusterDescription cluster { gpuPreset("h100-80gb"), 1, 8 };
        const Efficiency e = efficiencyFor(cluster.gpu);
        const HardwareModel quantized(cluster, e);
        cluster.gpu.name = "my-gpu";
        const HardwareModel flat(cluster, e);
        const double m = 2048, n = 384, k = 1024;
        const double flops = 2 * m * n * k;
        const double bytes = 2 * (m * k + k * n) + 2 * m * n;
        // The tensor cores at the pace of the slowest of the cluster's 8 GPUs (gpu_speed_spread.h).
        const double expected = slowestGpuFactor(8) * flops / (989e12 * e.gemm)
            + bytes / (cluster.gpu.hbm_gb_per_s * 1e9 * e.hbm);
        QVERIFY(std::abs(flat.gemmS(m, n, k) / expected - 1) < 1e-12);
        QVERIFY(quantized.gemmS(m, n, k) > flat.gemmS(m, n, k));
        // Grouped: 4 experts in one launch cost no more than 4 launches.
        QVERIFY(groupedGemmS(quantized, 100, 512, 2048, false, 4) <= 4 * quantized.gemmS(100, 512, 2048));
    }

    // Every GPU preset has its datasheet SM count; other names none.
    void smCounts_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("sms");
        QTest::newRow("A100 80 GB") << "a100-80gb" << 108;
        QTest::newRow("H100 SXM") << "h100-80gb" << 132;
        QTest::newRow("H200") << "h200-141gb" << 132;
        QTest::newRow("B200") << "b200-192gb" << 148;
        QTest::newRow("GB200") << "gb200-186gb" << 148;
        QTest::newRow("L40S") << "l40s-48gb" << 142;
        QTest::newRow("a GPU of a cluster file") << "my-gpu" << 0;
    }
    void smCounts()
    {
        QFETCH(QString, gpu);
        QFETCH(int, sms);
        QCOMPARE(presetSmCount(gpu.toStdString()), sms);
    }
    void everyPresetHasItsSms()
    {
        for (const GpuDescription& gpu : gpuPresets())
            QVERIFY2(presetSmCount(gpu.name) > 0, gpu.name.c_str());
    }
};

QTEST_APPLESS_MAIN(TestKernelShapes)
#include "tst_kernel_shapes.moc"
