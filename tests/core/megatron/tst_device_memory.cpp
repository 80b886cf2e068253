// SPDX-License-Identifier: GPL-3.0-or-later
// Device memory, not just tensors (docs/memory-model.md): the allocator cache, the CUDA context,
// NCCL and cuBLAS workspaces on top of the allocated peak, and the fit check on the device peak.
#include <algorithm>
#include <cmath>

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <QtTest>
#include "core/hardware/device_memory.h"
#include "core/megatron/estimate.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/strategy_json.h"
#include "core/megatron/strategy_search_settings.h"
#include "core/megatron/torchtitan_activations.h"
#include "core/model/model_presets.h"
#include "core/sim/simulator.h"
#include "support/h100_cluster.h"
#include "memory_test_util.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;
using stratex::test::h100s;
using stratex::test::agree;

class TestDeviceMemory : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The device peak adds the allocator cache, the CUDA context and NCCL buffers to the
    // allocated peak, and the fit check uses it: a limit between the two does not fit.
    void fitUsesTheDevicePeak()
    {
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = 2;
        s.dp = 2;
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 16;
        const Estimate free = estimate(model, s, hw);
        QVERIFY(free.problems.empty());
        QVERIFY(free.device_peak_mb > free.allocated_peak_mb);
        QCOMPARE(free.peak_memory_mb, free.device_peak_mb);
        for (const StageEstimate& stage : free.stages) {
            const StageMemory& m = stage.memory;
            QVERIFY(m.cuda_context_mb > 0 && m.nccl_mb > 0 && m.allocator_cache_mb > 0);
            QVERIFY(agree(m.reserve_mb, m.allocator_cache_mb + m.cuda_context_mb + m.nccl_mb));
        }
        EstimateOptions options;
        options.memory_limit_mb = (free.allocated_peak_mb + free.device_peak_mb) / 2;
        const Estimate tight = estimate(model, s, hw, options);
        QVERIFY(!tight.fits);
        QVERIFY(!tight.notes.empty());
        QVERIFY(tight.notes.back().find("allocated") != std::string::npos);
        options.memory_limit_mb = free.device_peak_mb + 1;
        QVERIFY(estimate(model, s, hw, options).fits);
    }

    void deviceMemoryParts_data()
    {
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<double>("cublasMb");
        // PyTorch CublasHandlePool.cpp: 4096 KiB x 8 on sm90, else 4096 KiB x 2 + 16 KiB x 8.
        QTest::newRow("hopper") << "h100-80gb" << 4096.0 * 8 * 1024 / 1e6;
        QTest::newRow("ampere") << "a100-80gb" << (4096.0 * 2 + 16 * 8) * 1024 / 1e6;
    }
    void deviceMemoryParts()
    {
        QFETCH(QString, gpu);
        QFETCH(double, cublasMb);
        QCOMPARE(cublasWorkspaceMb(gpu.toStdString()), cublasMb);
        QCOMPARE(ncclCommunicatorMb({ "tp", 1, false }), 0.0);
        QVERIFY(ncclCommunicatorMb({ "tp", 8, false }) > ncclCommunicatorMb({ "pp", 8, true }));
        // Expandable segments keep at most one 2 MiB page of slack; without them a share of the churn.
        QCOMPARE(allocatorCacheMb(10000, 1.1, false), 1000.0);
        QVERIFY(allocatorCacheMb(10000, 1.1, true) <= 2 * 1.048576);
    }
};

QTEST_GUILESS_MAIN(TestDeviceMemory)
#include "tst_device_memory.moc"
