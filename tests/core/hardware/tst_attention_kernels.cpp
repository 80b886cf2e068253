// SPDX-License-Identifier: GPL-3.0-or-later
// The attention kernels of measured runs (docs/kernels.md §6): the rate the table holds for MPT's
// Triton flash attention is what llm-foundry's own sequence-length sweeps measure.
#include <QtTest>

#include "core/hardware/attention_kernels.h"

using namespace stratex::hardware;

class TestAttentionKernels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Row pairs of mosaicml/llm-foundry scripts/train/benchmarking/ README @ 8c8dd48f (sections
    // "H100 80GB BF16" and "A100 80GB with 1600 Gbps node-node interconnect (RoCE)"): one model on
    // 8 GPUs at two sequence lengths, same activation checkpointing, Throughput (T/s/GPU) as
    // published. Model shapes from scripts/train/yamls/pretrain/mpt-*.yaml (d_model, n_layers).
    // The extra time per token is the extra causal attention work: 2·Δs·d_model·n_layers FLOPs per
    // token forward, x3.89 with the backward at 2.89x the forward's time (the cost model's
    // flash backward, docs/kernels.md §4: 2.5x the FLOPs at 0.865 of the speed), x4.89 with
    // checkpointing (the forward recomputed).
    void tritonRateIsTheSweepsRate_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<double>("peakTflops");
        QTest::addColumn<int>("dModel");
        QTest::addColumn<int>("layers");
        QTest::addColumn<bool>("checkpointing");
        QTest::addColumn<int>("seqShort");
        QTest::addColumn<double>("tokensShort");
        QTest::addColumn<int>("seqLong");
        QTest::addColumn<double>("tokensLong");
        const double h100 = 989.5;
        const double a100 = 312;
        QTest::newRow("h100 7b 8K-32K") << "h100" << h100 << 4096 << 32 << true << 8192 << 6935.0 << 32768 << 3318.0;
        QTest::newRow("h100 7b 32K-64K") << "h100" << h100 << 4096 << 32 << true << 32768 << 3318.0 << 65536 << 1956.0;
        QTest::newRow("h100 13b 4K-16K") << "h100" << h100 << 5120 << 40 << true << 4096 << 4717.0 << 16384 << 2985.0;
        QTest::newRow("h100 13b 16K-32K") << "h100" << h100 << 5120 << 40 << true << 16384 << 2985.0 << 32768 << 1976.0;
        QTest::newRow("h100 3b 4K-8K") << "h100" << h100 << 2560 << 32 << false << 4096 << 20964.0 << 8192 << 16578.0;
        QTest::newRow("h100 1b 8K-16K") << "h100" << h100 << 2048 << 24 << false << 8192 << 29157.0 << 16384 << 19649.0;
        QTest::newRow("h100 1b 16K-32K") << "h100" << h100 << 2048 << 24 << false << 16384 << 19649.0 << 32768 << 12025.0;
        QTest::newRow("h100 760m 8K-16K") << "h100" << h100 << 1536 << 24 << false << 8192 << 41825.0 << 16384 << 27815.0;
        QTest::newRow("a100 7b 8K-16K") << "a100" << a100 << 4096 << 32 << true << 8192 << 3206.0 << 16384 << 2453.0;
        QTest::newRow("a100 7b 32K-64K") << "a100" << a100 << 4096 << 32 << true << 32768 << 1672.0 << 65536 << 1013.0;
        QTest::newRow("a100 13b 8K-16K") << "a100" << a100 << 5120 << 40 << true << 8192 << 1795.0 << 16384 << 1431.0;
        QTest::newRow("a100 3b 8K-16K") << "a100" << a100 << 2560 << 32 << false << 8192 << 7695.0 << 16384 << 5529.0;
        QTest::newRow("a100 760m 8K-16K") << "a100" << a100 << 1536 << 24 << false << 8192 << 20933.0 << 16384 << 14274.0;
        QTest::newRow("a100 350m 32K-64K") << "a100" << a100 << 1024 << 24 << false << 32768 << 13652.0 << 65536 << 7524.0;
    }
    void tritonRateIsTheSweepsRate()
    {
        QFETCH(QString, family);
        QFETCH(double, peakTflops);
        QFETCH(int, dModel);
        QFETCH(int, layers);
        QFETCH(bool, checkpointing);
        QFETCH(int, seqShort);
        QFETCH(double, tokensShort);
        QFETCH(int, seqLong);
        QFETCH(double, tokensLong);
        const double backwardOverForward = 2.5 / 0.865;
        const double passes = (checkpointing ? 2.0 : 1.0) + backwardOverForward;
        const double extraFlopsPerToken = 2.0 * (seqLong - seqShort) * dModel * layers * passes;
        const double extraSPerToken = 1 / tokensLong - 1 / tokensShort;
        const double measured = extraFlopsPerToken / extraSPerToken / (peakTflops * 1e12);
        const std::optional<double> held = attentionKernelEfficiency(AttentionKernel::MptTriton, family.toStdString());
        QVERIFY(held.has_value());
        // Each pair within 10 % of the median the table holds.
        QVERIFY2(std::abs(measured / *held - 1) <= 0.10, qPrintable(QString("measured %1, held %2").arg(measured).arg(*held)));
    }

    void names_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("kernel");
        QTest::newRow("flash") << "flash" << int(AttentionKernel::Flash);
        QTest::newRow("mpt-triton") << "mpt-triton" << int(AttentionKernel::MptTriton);
    }
    void names()
    {
        QFETCH(QString, name);
        QFETCH(int, kernel);
        const std::optional<AttentionKernel> parsed = parseAttentionKernel(name.toStdString());
        QVERIFY(parsed.has_value());
        QCOMPARE(int(*parsed), kernel);
        QCOMPARE(QString::fromStdString(std::string(attentionKernelName(*parsed))), name);
        QVERIFY(QString::fromStdString(attentionKernelChoices()).contains(name));
    }
    void unknownNameIsRefused() { QVERIFY(!parseAttentionKernel("xformers")); }

    // Flash attention is the presets' fitted Efficiency::attention; MPT's kernel has no
    // measurement on other GPUs.
    void efficiencyWhereMeasured_data()
    {
        QTest::addColumn<int>("kernel");
        QTest::addColumn<QString>("family");
        QTest::addColumn<bool>("measured");
        QTest::newRow("flash h100") << int(AttentionKernel::Flash) << "h100" << false;
        QTest::newRow("triton h100") << int(AttentionKernel::MptTriton) << "h100" << true;
        QTest::newRow("triton a100") << int(AttentionKernel::MptTriton) << "a100" << true;
        QTest::newRow("triton b200") << int(AttentionKernel::MptTriton) << "b200-192gb" << false;
    }
    void efficiencyWhereMeasured()
    {
        QFETCH(int, kernel);
        QFETCH(QString, family);
        QFETCH(bool, measured);
        QCOMPARE(attentionKernelEfficiency(AttentionKernel(kernel), family.toStdString()).has_value(), measured);
    }
};

QTEST_GUILESS_MAIN(TestAttentionKernels)
#include "tst_attention_kernels.moc"
