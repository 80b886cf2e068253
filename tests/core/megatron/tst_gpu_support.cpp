// SPDX-License-Identifier: GPL-3.0-or-later
// What each GPU preset runs (docs/kernels.md §10): its compute capability, and the precisions
// gpuSupportProblems refuses on it, in evaluate (estimate's problems) and in the search.
#include <QtTest>

#include "core/common/error.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/estimate.h"
#include "core/megatron/gpu_support.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"

using namespace stratex;
using megatron::Precision;

class TstGpuSupport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Every preset has a compute capability (CUDA C Programming Guide), and FP8 from 8.9 only
    // (Transformer Engine's _compute_fp8_support).
    void everyPresetHasCapability()
    {
        for (const hardware::GpuDescription& gpu : hardware::gpuPresets()) {
            const auto cc = megatron::gpuComputeCapability(gpu.name);
            QVERIFY2(cc.has_value(), gpu.name.c_str());
            QCOMPARE(megatron::gpuRunsFp8(gpu.name), *cc >= (megatron::ComputeCapability { 8, 9 }));
        }
    }

    void precisionOnGpu_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("precision");
        QTest::addColumn<QString>("problem"); // a part of the one message, or "" for none
        const char* a100 = "compute capability 8.0 has no FP8 tensor cores";
        QTest::newRow("fp8 a100-40gb") << "a100-40gb" << int(Precision::Fp8)
                                       << (QString("precision fp8 on a100-40gb: ") + a100);
        QTest::newRow("fp8 a100-80gb") << "a100-80gb" << int(Precision::Fp8) << "use precision bf16";
        QTest::newRow("bf16 a100-80gb") << "a100-80gb" << int(Precision::Bf16) << "";
        QTest::newRow("fp16 a100-40gb") << "a100-40gb" << int(Precision::Fp16) << "";
        QTest::newRow("fp8 l40s (Ada 8.9)") << "l40s-48gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 h100-80gb") << "h100-80gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 h800-80gb") << "h800-80gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 h100-96gb") << "h100-96gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 h200") << "h200-141gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 b200") << "b200-192gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 gb200") << "gb200-186gb" << int(Precision::Fp8) << "";
        QTest::newRow("fp8 v100 (Volta's message)") << "v100-32gb" << int(Precision::Fp8) << "use precision fp16";
        QTest::newRow("fp8 custom gpu") << "my-gpu" << int(Precision::Fp8) << "";
    }
    void precisionOnGpu()
    {
        QFETCH(QString, gpu);
        QFETCH(int, precision);
        QFETCH(QString, problem);
        megatron::ParallelStrategy s;
        s.precision = Precision(precision);
        const std::vector<std::string> problems = megatron::gpuSupportProblems(s, gpu.toStdString());
        if (problem.isEmpty()) {
            QVERIFY(problems.empty());
            return;
        }
        QCOMPARE(int(problems.size()), 1);
        QVERIFY2(problems.front().find(problem.toStdString()) != std::string::npos, problems.front().c_str());
    }

    // evaluate: estimate() reports the refusal and does not fit; search: the space is refused.
    void fp8RefusedInEvaluateAndSearch_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<bool>("refused");
        QTest::newRow("a100-80gb") << "a100-80gb" << true;
        QTest::newRow("a100-40gb") << "a100-40gb" << true;
        QTest::newRow("h100-80gb") << "h100-80gb" << false;
    }
    void fp8RefusedInEvaluateAndSearch()
    {
        QFETCH(QString, gpu);
        QFETCH(bool, refused);
        hardware::ClusterDescription cluster;
        cluster.gpu = hardware::gpuPreset(gpu.toStdString());
        cluster.num_nodes = 1;
        cluster.gpus_per_node = 8;
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        megatron::ParallelStrategy s;
        s.tp = 1;
        s.pp = 1;
        s.dp = 8;
        s.zero = 1;
        s.micro_batch_size = 1;
        s.global_batch_size = 64;
        s.recompute = megatron::Recompute::Full;
        s.precision = Precision::Fp8;
        const hardware::HardwareModel hw(cluster, hardware::efficiencyFor(cluster));
        const megatron::Estimate e = megatron::estimate(model, s, hw);
        bool named = false;
        for (const std::string& problem : e.problems)
            named = named || problem.find("precision fp8 on " + gpu.toStdString()) != std::string::npos;
        QCOMPARE(named, refused);

        megatron::StrategySearchRequest request;
        request.model = model;
        request.cluster = cluster;
        request.efficiency = hardware::efficiencyFor(cluster);
        request.global_batch_size = 64;
        request.space.precision = Precision::Fp8;
        request.top = 1;
        NullProgress progress;
        if (refused) {
            try {
                megatron::searchStrategies(request, progress);
                QFAIL("the search took fp8 on an Ampere GPU");
            } catch (const Error& error) {
                QVERIFY2(std::string(error.what()).find("search: precision fp8 on " + gpu.toStdString())
                        != std::string::npos,
                    error.what());
            }
        }
    }
};

QTEST_APPLESS_MAIN(TstGpuSupport)
#include "tst_gpu_support.moc"
