// SPDX-License-Identifier: GPL-3.0-or-later
// The memory model (docs/memory-model.md): the ledger over the simulated schedule is the Timeline
// page's memory curve, each framework keeps what its source keeps, and the fit check uses the
// device peak.
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

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::hardware;

namespace {

using test::h100s;

bool agree(double a, double b)
{
    return std::abs(a - b) <= 1e-6 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

double curveMaxMb(const sim::DeviceTimeline& device)
{
    double highest = 0;
    for (const sim::MemorySample& sample : device.memory)
        highest = std::max(highest, sample.mem_mb);
    return highest;
}

} // namespace

class TestMemoryModel : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The plan's per-stage allocated peak is the maximum of the Timeline page's memory curve for
    // that stage: both come from the same ops in the same order. A perturbed curve (one
    // micro-batch's saved activations grown on the Timeline side only) must disagree.
    void ledgerIsTheTimelineCurve_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("gbs");
        QTest::addColumn<QString>("schedule");
        QTest::addColumn<bool>("perturbed");
        QTest::newRow("1F1B") << 4 << 1 << 16 << "1f1b" << false;
        QTest::newRow("interleaved") << 4 << 2 << 16 << "interleaved" << false;
        QTest::newRow("fewer micro-batches than stages") << 4 << 1 << 4 << "1f1b" << false;
        QTest::newRow("ZB-H1") << 4 << 1 << 16 << "zb-h1" << false;
        QTest::newRow("one stage") << 1 << 1 << 8 << "1f1b" << false;
        QTest::newRow("1F1B, curve perturbed") << 4 << 1 << 16 << "1f1b" << true;
        QTest::newRow("interleaved, curve perturbed") << 4 << 2 << 16 << "interleaved" << true;
        QTest::newRow("fewer micro-batches, curve perturbed") << 4 << 1 << 4 << "1f1b" << true;
    }
    void ledgerIsTheTimelineCurve()
    {
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, gbs);
        QFETCH(QString, schedule);
        QFETCH(bool, perturbed);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.dp = std::max(1, 8 / (s.tp * s.pp));
        s.zero = 1;
        s.sequence_parallel = true;
        s.micro_batch_size = 1;
        s.global_batch_size = gbs * s.dp; // gbs micro-batches per pipeline
        s.schedule = *parsePipelineSchedule(schedule.toStdString());
        const Estimate e = estimate(model, s, hw);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QCOMPARE(int(e.stages.size()), pp);

        PipelineSimulation pipeline = pipelineSimulation(model, s, hw);
        if (perturbed)
            pipeline.input.microbatches.back().layers.front().stored_mb += 100;
        const sim::Timeline timeline = sim::simulate(pipeline.input, pipeline.schedule).timeline;
        QCOMPARE(int(timeline.devices.size()), pp);
        bool all = true;
        for (int i = 0; i < pp; ++i) {
            QVERIFY(e.stages[std::size_t(i)].memory_from_ledger);
            const double ledger = e.stages[std::size_t(i)].memory.allocatedMb();
            const double curve = curveMaxMb(timeline.devices[std::size_t(i)]);
            all = all && agree(ledger, curve);
            if (!perturbed)
                QVERIFY2(agree(ledger, curve), qPrintable(QString("stage %1: ledger %2 MB, curve %3 MB").arg(i).arg(ledger).arg(curve)));
        }
        QCOMPARE(all, !perturbed);
    }

    // With fewer micro-batches than stages, stage 0 holds only the micro-batches there are, not
    // pp of them: the ledger sees it, the peak is m x activations + transient.
    void fewerMicrobatchesHoldFewer()
    {
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = 4;
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 2;
        const Estimate two = estimate(model, s, hw);
        s.global_batch_size = 8;
        const Estimate eight = estimate(model, s, hw);
        QVERIFY(two.problems.empty() && eight.problems.empty());
        QCOMPARE(two.stages.front().inflight_microbatches_x100, 200);
        QCOMPARE(eight.stages.front().inflight_microbatches_x100, 400);
        QVERIFY(two.stages.front().memory.activations_mb < eight.stages.front().memory.activations_mb);
    }

    // A chunk's output, the activation it sends to the next stage (tokens x h in 16 bit, over TP
    // under SP), is not among its layers' saved activations (they count each layer's input).
    // Megatron-LM and Megatron-Bridge free its data once sent (deallocate_output_tensor); PyTorch's
    // pipelining, under torchtitan, keeps it in fwd_cache until the chunk's backward: one more
    // tensor per (micro-batch, chunk) in flight on every chunk but the model's last
    // (docs/memory-model.md, "Pipeline stage outputs"). Compared with Megatron-Core on stage 0,
    // whose layers save the same tensors under both frameworks without recompute. Under
    // torchtitan stage 0 also keeps its stage objects' buffers (pipelineStageBuffers): the output
    // gradient receive buffers, one per micro-batch, and under interleaving its second chunk's
    // activation receive buffers, which its first layer's saved input aliases while in flight.
    void stageOutputsFreedOrHeld_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<bool>("simulate");
        QTest::addColumn<bool>("held");
        QTest::newRow("megatron-bridge 1F1B: freed after the send") << "megatron-bridge" << 4 << 1 << true << false;
        QTest::newRow("megatron-core interleaved: freed") << "megatron-core" << 4 << 2 << true << false;
        QTest::newRow("torchtitan 1F1B: held until the backward") << "torchtitan" << 4 << 1 << true << true;
        QTest::newRow("torchtitan interleaved: held per chunk") << "torchtitan" << 4 << 2 << true << true;
        QTest::newRow("torchtitan, first pass (not simulated)") << "torchtitan" << 4 << 1 << false << true;
        QTest::newRow("torchtitan, one stage: nothing sent") << "torchtitan" << 1 << 1 << true << false;
    }
    void stageOutputsFreedOrHeld()
    {
        QFETCH(QString, framework);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(bool, simulate);
        QFETCH(bool, held);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.tp = 2;
        s.pp = pp;
        s.vpp = vpp;
        s.schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
        s.dp = 8 / (s.tp * s.pp);
        s.zero = 1;
        s.sequence_parallel = true;
        s.global_batch_size = 8 * s.dp; // 8 micro-batches per pipeline
        EstimateOptions options;
        options.simulate_pipeline = simulate;
        const Estimate megatron = estimate(model, s, hw, options);
        s.framework = *parseFramework(framework.toStdString());
        const Estimate e = estimate(model, s, hw, options);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QVERIFY(megatron.problems.empty());
        const StageEstimate& stage = e.stages.front();
        QCOMPARE(stage.memory_from_ledger, simulate);
        const double chunksInFlight = megatron.stages.front().inflight_microbatches_x100 / 100.0 * vpp;
        const double sendMb = 2.0 * model.seq_length * model.hidden_size / s.tp / 1e6;
        const double outputMb = 2.0 * model.seq_length * model.vocab_size / s.tp / 1e6;
        double buffersMb = 0;
        for (int j = 0; j < vpp; ++j) {
            const int chunk = j * pp; // rank 0's chunks
            buffersMb += pipelineStageBuffers(s, sendMb, outputMb, chunk == 0, chunk + 1 == pp * vpp).total();
        }
        QCOMPARE(buffersMb > 0, held);
        const double expectedMb = held ? chunksInFlight * sendMb + buffersMb : 0.0;
        const double foundMb = stage.memory.activations_mb - megatron.stages.front().memory.activations_mb;
        if (vpp > 1) {
            // The second chunk's saved inputs in flight are its receive buffers: at most one per
            // chunk in flight less than the held outputs and the buffers.
            QVERIFY2(foundMb <= expectedMb + 1e-6 && foundMb >= expectedMb - chunksInFlight * sendMb - 1e-6,
                qPrintable(QString("stage 0 holds %1 MB more, expected %2 MB less at most %3").arg(foundMb).arg(expectedMb).arg(chunksInFlight * sendMb)));
            return;
        }
        // The in-flight count is the same: the output is part of each micro-batch's share.
        QCOMPARE(stage.inflight_microbatches_x100, megatron.stages.front().inflight_microbatches_x100);
        QVERIFY2(std::abs(foundMb - expectedMb) <= 1e-6 * std::max(1.0, expectedMb),
            qPrintable(QString("stage 0 holds %1 MB more than Megatron-Core, expected %2 MB (%3 chunks of %4 MB)")
                    .arg(foundMb)
                    .arg(expectedMb)
                    .arg(chunksInFlight)
                    .arg(sendMb)));
    }

    // What a step allocates and frees of the model state, the caching allocator's churn
    // (model_state_memory.h freed_each_step_mb): torchtitan's FSDP2 under PP frees the stage's
    // unsharded weights (2 bytes, 1 for float8 linears) and fp32 accumulated gradients (4) in the
    // last backward's post_backward and allocates them again the next step; nothing without PP
    // here (reshard after forward churns through gathered_mb) or under Megatron-Core's buffers.
    // Bytes per parameter, 1e9 parameters over d = 8.
    void stepChurnOfModelState_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("bytesPerParam");
        QTest::newRow("torchtitan pp bf16") << "torchtitan" << 4 << "bf16" << 6.0;
        QTest::newRow("torchtitan pp float8 linears") << "torchtitan" << 4 << "fp8" << 5.0;
        QTest::newRow("torchtitan without pp") << "torchtitan" << 1 << "bf16" << 0.0;
        QTest::newRow("megatron-core pp") << "megatron-core" << 4 << "bf16" << 0.0;
    }
    void stepChurnOfModelState()
    {
        QFETCH(QString, framework);
        QFETCH(int, pp);
        QFETCH(QString, precision);
        QFETCH(double, bytesPerParam);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.pp = pp;
        s.zero = 2;
        s.precision = precision == "fp8" ? Precision::Fp8 : Precision::Bf16;
        const double params = 1e9;
        const ModelStateMemory m = modelStateMemory(s, params, params / 8, 4, params);
        QCOMPARE(m.freed_each_step_mb, bytesPerParam * params / 1e6);
    }

    // Bytes per parameter each framework keeps, from its source (docs/memory-model.md), for a
    // stage of 1e9 parameters sharded over d = 8 data-parallel ranks and 4 layers.
    void frameworkModelState_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("gradsDtype");
        QTest::addColumn<QString>("optimizerDtype");
        QTest::addColumn<double>("weights");
        QTest::addColumn<double>("gradients");
        QTest::addColumn<double>("optimizer");
        const QString f32 = "fp32";
        // Megatron-Core: bf16 weights, the full fp32 grad buffer, 12 bytes sharded at ZeRO 1.
        QTest::newRow("megatron-core ddp") << "megatron-core" << 0 << 1 << f32 << f32 << 2.0 << 4.0 << 12.0;
        QTest::newRow("megatron-core distributed optimizer")
            << "megatron-core" << 1 << 1 << f32 << f32 << 2.0 << 4.0 << 1.5;
        QTest::newRow("nemo is megatron-core") << "nemo" << 1 << 2 << f32 << f32 << 2.0 << 4.0 << 1.5;
        // ZeRO 2 is Megatron-FSDP's optim_grads: reduce-scattered in every backward, so only the
        // fp32 shard stays (gradientReduction(), dp_traffic.h).
        QTest::newRow("megatron-fsdp optim_grads") << "megatron-core" << 2 << 4 << f32 << f32 << 2.0 << 0.5 << 1.5;
        // --grad-reduce-in-bf16: the grad buffer in the parameters' dtype (2 bytes); the
        // precision-aware optimizer with bf16 moments: 16-bit master remainders + 2 + 2 over d.
        QTest::newRow("megatron-core bf16 main grads")
            << "megatron-core" << 1 << 1 << "bf16" << f32 << 2.0 << 2.0 << 1.5;
        QTest::newRow("megatron-core bf16 optimizer states")
            << "megatron-core" << 1 << 1 << f32 << "bf16" << 2.0 << 4.0 << 6.0 / 8;
        QTest::newRow("nemo bf16 grads and states (Nemotron-4 340B)")
            << "nemo" << 1 << 8 << "bf16" << "bf16" << 2.0 << 2.0 << 6.0 / 8;
        // torchtitan FSDP2: fp32 shards 4 + 4 + 8 over d; with PP the stage's bf16 copies (2) and
        // fp32 unsharded gradients (4) stay across micro-batches; reshard after forward without PP
        // keeps two of the four layers gathered (2 x 1/2).
        QTest::newRow("torchtitan fsdp pp") << "torchtitan" << 2 << 4 << f32 << f32 << 0.5 + 2.0 << 0.5 + 4.0 << 1.0;
        QTest::newRow("torchtitan fsdp reshard") << "torchtitan" << 3 << 1 << f32 << f32 << 0.5 + 1.0 << 0.5 << 1.0;
        QTest::newRow("torchtitan fsdp no reshard") << "torchtitan" << 2 << 1 << f32 << f32 << 0.5 + 2.0 << 0.5 << 1.0;
        QTest::newRow("torchtitan no fsdp") << "torchtitan" << 0 << 1 << f32 << f32 << 4.0 << 4.0 << 8.0;
        QTest::newRow("torchtitan no fsdp pp") << "torchtitan" << 0 << 4 << f32 << f32 << 4.0 << 4.0 << 8.0;
        // FSDP2 reshard-after-forward under PP: still the no-sync micro-batches' unsharded fp32 gradients.
        QTest::newRow("torchtitan fsdp reshard pp") << "torchtitan" << 3 << 4 << f32 << f32 << 0.5 + 2.0 << 0.5 + 4.0 << 1.0;
        // DeepSpeed: 2 + 2 + 12 sharded by stage, and its 1 GB reduce bucket (5e8 16-bit elements;
        // deepspeed_memory.h). ZeRO 1 reduces only at the accumulation boundary: the full 16-bit
        // gradients stay, with the boundary's contiguous partition copy.
        QTest::newRow("deepspeed zero 2") << "deepspeed" << 2 << 1 << f32 << f32 << 2.0 << 0.25 + 1.0 << 1.5;
        QTest::newRow("deepspeed zero 1") << "deepspeed" << 1 << 1 << f32 << f32 << 2.0 << 2.0 + 0.25 + 1.0 << 1.5;
    }
    void frameworkModelState()
    {
        QFETCH(QString, framework);
        QFETCH(int, zero);
        QFETCH(int, pp);
        QFETCH(QString, gradsDtype);
        QFETCH(QString, optimizerDtype);
        QFETCH(double, weights);
        QFETCH(double, gradients);
        QFETCH(double, optimizer);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.zero = zero;
        s.pp = pp;
        s.main_grads_dtype = *parseStateDtype(gradsDtype.toStdString());
        s.optimizer_state_dtype = *parseStateDtype(optimizerDtype.toStdString());
        const double params = 1e9;
        const double shard = zero >= 1 ? params / 8 : params;
        // Every parameter in the four blocks' linears (no root group: torchtitanFsdpGroups has one).
        const ModelStateMemory m = modelStateMemory(s, params, shard, 4, params);
        QCOMPARE(m.weights_mb / 1e3, weights);
        QCOMPARE(m.gradients_mb / 1e3, gradients);
        QCOMPARE(m.optimizer_mb / 1e3, optimizer);
    }

    // torchtitan's op-level selective checkpointing (torchtitan_activations.h, torchtitan @ 9dec370):
    // per block the input, wq, wv, SDPA's output and logsumexp, w1 and w2 outputs, and under TP the
    // two reduce_scatter outputs; bytes for Llama 3 8B's shapes (h 4096, kv 1024, f 14336, 32
    // heads) at micro-batch 2 x 8192 tokens.
    void torchtitanOpCheckpointing_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("savedBytes");
        const double T = 2.0 * 8192;
        // input + wq + wv + SDPA out + logsumexp (fp32 per head) + w1 + w2
        QTest::newRow("tp 1") << 1
                              << 2 * T * 4096 + 2 * T * 4096 + 2 * T * 1024 + 2 * T * 4096 + 4 * T * 32 + 2 * T * 14336
                + 2 * T * 4096;
        // sequence-parallel input, column-parallel outputs / 8, w2's local partial sums whole, and
        // the two reduce_scatter outputs T/8 x h.
        QTest::newRow("tp 8, sequence parallel")
            << 8
            << 2 * T * 4096 / 8 + 2 * T * 4096 / 8 + 2 * T * 1024 / 8 + 2 * T * 4096 / 8 + 4 * T * 32 / 8
                + 2 * T * 14336 / 8 + 2 * T * 4096 + 2 * (2 * T * 4096 / 8);
    }
    void torchtitanOpCheckpointing()
    {
        QFETCH(int, tp);
        QFETCH(double, savedBytes);
        model::ModelDescription model = model::modelPreset("llama3-8b");
        model.seq_length = 8192;
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.tp = tp;
        s.sequence_parallel = tp > 1;
        s.micro_batch_size = 2;
        s.recompute = Recompute::Selective;
        QCOMPARE(torchtitanBlockActivations(model, s).op_sac_saved_bytes, savedBytes);
        // The ledger keeps that per block: 32 blocks on one stage, against Megatron's selective count.
        s.dp = 8 / tp;
        s.zero = 3;
        s.global_batch_size = 2 * s.dp;
        const HardwareModel hw = h100s(1);
        const Estimate titan = estimate(model, s, hw);
        QVERIFY(titan.problems.empty());
        s.framework = Framework::MegatronCore;
        const Estimate megatron = estimate(model, s, hw);
        QVERIFY(titan.stages.front().memory.activations_mb != megatron.stages.front().memory.activations_mb);
        QVERIFY(titan.stages.front().memory.activations_mb >= 32 * savedBytes / 1e6);
    }

    // torchtitan's loss peak per logit of the local vocabulary shard: without TP its loss_fn's
    // fused kernels (saved fp32 log_softmax output, nll_loss's gradient, log_softmax_backward's
    // output: 3 x 4 bytes); with TP PyTorch's loss_parallel decomposition, whose backward holds the
    // saved output, zeros_like, exp and their sum (4 x 4 bytes).
    void torchtitanLossPeak_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<double>("bytesPerLogit");
        QTest::newRow("tp 1: fused cross_entropy") << 1 << 12.0;
        QTest::newRow("tp 8: loss_parallel") << 8 << 16.0;
    }
    void torchtitanLossPeak()
    {
        QFETCH(int, tp);
        QFETCH(double, bytesPerLogit);
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.tp = tp;
        QCOMPARE(torchtitanLossBytesPerLogit(s), bytesPerLogit);
    }

    // Micro-batches in flight at each stage's peak under torchtitan's 1F1B: PyTorch's Schedule1F1B
    // runs min(n_microbatches, num_stages - stage_index) warm-up forwards before its first
    // backward (torch/distributed/pipelining/schedules.py; docs/memory-model.md, "torchtitan's
    // pipeline stages"), which the simulated 1F1B's ledger reproduces with the stage buffers and the
    // received inputs' alias in place. 4 stages, 8 or 2 micro-batches.
    void torchtitanInFlightPerStage_data()
    {
        QTest::addColumn<int>("microbatches");
        QTest::addColumn<int>("stage");
        for (const int m : { 8, 2 }) {
            for (int stage = 0; stage < 4; ++stage)
                QTest::addRow("m %d, stage %d", m, stage) << m << stage;
        }
    }
    void torchtitanInFlightPerStage()
    {
        QFETCH(int, microbatches);
        QFETCH(int, stage);
        const model::ModelDescription model = model::modelPreset("llama2-7b");
        const HardwareModel hw = h100s(1);
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.tp = 2;
        s.pp = 4;
        s.dp = 1;
        s.zero = 2;
        s.recompute = Recompute::Full;
        s.sequence_parallel = true;
        s.global_batch_size = microbatches;
        const Estimate e = estimate(model, s, hw);
        QVERIFY2(e.problems.empty(), e.problems.empty() ? "" : e.problems.front().c_str());
        QCOMPARE(e.stages[std::size_t(stage)].inflight_microbatches_x100, 100 * std::min(microbatches, s.pp - stage));
    }

    // torch.distributed.pipelining's stage buffers (pipeline_input.h, stage.py @ 01386103): one
    // activation receive buffer per micro-batch on every stage but the first, one output-gradient
    // receive buffer per micro-batch on every stage but the last, and every micro-batch's output in
    // output_chunks on the last; none under Megatron's schedules or without PP. 8 micro-batches,
    // send 10, output 100 (any unit).
    void torchtitanStageBuffers_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<int>("pp");
        QTest::addColumn<bool>("first");
        QTest::addColumn<bool>("last");
        QTest::addColumn<double>("recv");
        QTest::addColumn<double>("gradRecv");
        QTest::addColumn<double>("outputs");
        QTest::addColumn<double>("alias");
        QTest::newRow("torchtitan first stage") << "torchtitan" << 4 << true << false << 0.0 << 80.0 << 0.0 << 0.0;
        QTest::newRow("torchtitan middle stage") << "torchtitan" << 4 << false << false << 80.0 << 80.0 << 0.0 << 10.0;
        QTest::newRow("torchtitan last stage") << "torchtitan" << 4 << false << true << 80.0 << 0.0 << 800.0 << 10.0;
        QTest::newRow("torchtitan without PP") << "torchtitan" << 1 << true << true << 0.0 << 0.0 << 0.0 << 0.0;
        QTest::newRow("megatron-core: freed, no stage objects") << "megatron-core" << 4 << false << false << 0.0 << 0.0 << 0.0 << 0.0;
    }
    void torchtitanStageBuffers()
    {
        QFETCH(QString, framework);
        QFETCH(int, pp);
        QFETCH(bool, first);
        QFETCH(bool, last);
        QFETCH(double, recv);
        QFETCH(double, gradRecv);
        QFETCH(double, outputs);
        QFETCH(double, alias);
        ParallelStrategy s;
        s.framework = *parseFramework(framework.toStdString());
        s.pp = pp;
        s.dp = 1;
        s.micro_batch_size = 1;
        s.global_batch_size = 8;
        const PipelineStageBuffers b = pipelineStageBuffers(s, 10, 100, first, last);
        QCOMPARE(b.recv_bytes, recv);
        QCOMPARE(b.grad_recv_bytes, gradRecv);
        QCOMPARE(b.output_chunks_bytes, outputs);
        QCOMPARE(receivedInputAliasBytes(s, 10, first), alias);
    }

    // torchtitan's ring attention backward (torchtitan_activations.h; PyTorch _attention.py @
    // 0123248a, all-gather rotation by torchtitan 9dec370's default): with T tokens per rank and
    // K, V repeated to the rank's query heads (T x q / tp each), cat(K, V) and its all-gather hold
    // (1 + cp) x 2 x 2 bytes per element, the fp32 grad q, k, v and the fp32 dkv sent and received
    // 3 x 4 + 2 x 2 x 4. Llama 3.1 405B shapes at TP 8, 32k tokens per rank.
    void torchtitanRingAttention_data()
    {
        QTest::addColumn<int>("cp");
        QTest::addColumn<double>("gatheredPerElement");
        QTest::addColumn<double>("fp32PerElement");
        QTest::newRow("cp 1: no ring") << 1 << 0.0 << 0.0;
        QTest::newRow("cp 2") << 2 << 12.0 << 28.0;
        QTest::newRow("cp 8: the gather grows with cp") << 8 << 36.0 << 28.0;
    }
    void torchtitanRingAttention()
    {
        QFETCH(int, cp);
        QFETCH(double, gatheredPerElement);
        QFETCH(double, fp32PerElement);
        const model::ModelDescription model = model::modelPreset("llama3-405b");
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.tp = 8;
        s.cp = cp;
        s.micro_batch_size = 1;
        model::ModelDescription m = model;
        m.seq_length = 32768 * cp;
        const double elements = 32768.0 * m.attentionWidth() / s.tp;
        const TorchtitanRingAttentionBytes b = torchtitanRingAttentionBytes(m, s);
        QVERIFY(agree(b.gathered_kv_bytes, gatheredPerElement * elements));
        QVERIFY(agree(b.fp32_accumulator_bytes, fp32PerElement * elements));
    }

    // torchtitan's layer-level selective checkpointing (selective_ac_option N): every N-th block
    // keeps only its input, the others keep everything; N = 1 is full checkpointing's count.
    void torchtitanLayerCheckpointing()
    {
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.recompute = Recompute::Selective;
        s.recompute_num_layers = 2;
        QVERIFY(!torchtitanLayerCheckpointed(s, 0));
        QVERIFY(torchtitanLayerCheckpointed(s, 1));
        QVERIFY(!torchtitanLayerCheckpointed(s, 2));
        s.recompute_num_layers = 1;
        QVERIFY(torchtitanLayerCheckpointed(s, 0));
    }

    // Float8 with FSDP's float8 all-gather: the unsharded copies of the transformer layers' linear
    // weights are one byte, the rest (embeddings, norms, output) two; the fp32 shards are unchanged.
    void torchtitanFloat8Weights_data()
    {
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("weightsGb");
        // 1e9 parameters over d = 8 with PP (held across micro-batches), 0.8e9 of them float8 linears.
        QTest::newRow("bf16") << "bf16" << 0.5 + 2.0;
        QTest::newRow("fp8") << "fp8" << 0.5 + 0.8 + 2 * 0.2;
    }
    void torchtitanFloat8Weights()
    {
        QFETCH(QString, precision);
        QFETCH(double, weightsGb);
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.zero = 2;
        s.pp = 4;
        s.precision = *parsePrecision(precision.toStdString());
        const ModelStateMemory m = modelStateMemory(s, 1e9, 1e9 / 8, 4, 0.8e9);
        QCOMPARE(m.weights_mb / 1e3, weightsGb);
        QCOMPARE(m.gradients_mb / 1e3, 0.5 + 4.0);
    }

    // torchtitan's FSDP2 groups (model_state_memory.cpp, docs/memory-model.md "torchtitan"): the
    // root group (embeddings, output: the parameters outside the blocks, bf16 also under float8)
    // stays gathered from its forward to its backward, torchtitan keeps the last block gathered
    // after its forward and the backward prefetches the next: gathered = root + 2 blocks (before:
    // 2/L of all parameters, the root's share included). The all-gather outputs live in the pool
    // of FSDP's copy-in stream: reserved, not allocated: the largest group's flat output and the
    // next one's. 1e9 parameters, 0.8e9 of them in 4 blocks' linears (0.2e9 each), d = 8.
    void torchtitanFsdpGroups_data()
    {
        QTest::addColumn<int>("zero");
        QTest::addColumn<int>("pp");
        QTest::addColumn<QString>("precision");
        QTest::addColumn<double>("gatheredGb");
        QTest::addColumn<double>("stagingGb");
        // root 0.2e9 x 2 = 0.4 GB, a block 0.2e9 x 2 = 0.4 GB: gathered 0.4 + 0.8, pool 0.4 + 0.4.
        QTest::newRow("reshard after forward, bf16") << 3 << 1 << "bf16" << 0.4 + 0.8 << 0.4 + 0.4;
        // float8 blocks gather one byte: 0.2 GB a block; the root stays bf16 and is the largest.
        QTest::newRow("reshard after forward, float8") << 3 << 1 << "fp8" << 0.4 + 0.4 << 0.4 + 0.2;
        // With PP nothing is resharded (weights held, no churn), but the all-gathers of the first
        // micro-batch still go through the copy-in stream's pool.
        QTest::newRow("pp, float8") << 2 << 4 << "fp8" << 0.0 << 0.4 + 0.2;
        QTest::newRow("no fsdp") << 0 << 1 << "bf16" << 0.0 << 0.0;
    }
    void torchtitanFsdpGroups()
    {
        QFETCH(int, zero);
        QFETCH(int, pp);
        QFETCH(QString, precision);
        QFETCH(double, gatheredGb);
        QFETCH(double, stagingGb);
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.zero = zero;
        s.pp = pp;
        s.precision = *parsePrecision(precision.toStdString());
        const double shard = zero >= 1 ? 1e9 / 8 : 1e9;
        const ModelStateMemory m = modelStateMemory(s, 1e9, shard, 4, 0.8e9);
        QVERIFY2(agree(m.gathered_mb / 1e3, gatheredGb), qPrintable(QString::number(m.gathered_mb)));
        QVERIFY2(agree(m.staging_mb / 1e3, stagingGb), qPrintable(QString::number(m.staging_mb)));
        // The pool is reserved only: not in what the allocator hands out.
        QVERIFY(agree(m.totalMb(), m.weights_mb + m.gradients_mb + m.optimizer_mb));
    }

    // The estimate puts the copy-in pool in the reserved peak, not the allocated one; and
    // torchtitan's one-node launcher turns expandable segments on (cache: page rounding only),
    // its multi-node launcher does not (cache: the fragmentation share of the churn).
    void torchtitanReservedParts_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<bool>("expandable");
        QTest::newRow("one node: run_llama_train.sh") << 1 << true;
        QTest::newRow("two nodes: multinode_trainer.slurm") << 2 << false;
    }
    void torchtitanReservedParts()
    {
        QFETCH(int, nodes);
        QFETCH(bool, expandable);
        QCOMPARE(launcherExpandableSegments(Framework::Torchtitan, nodes), expandable);
        QVERIFY(!launcherExpandableSegments(Framework::MegatronCore, nodes));
        ParallelStrategy s;
        s.framework = Framework::Torchtitan;
        s.dp = 8 * nodes;
        s.zero = 3;
        s.micro_batch_size = 1;
        s.global_batch_size = 8 * nodes;
        const model::ModelDescription model = model::modelPreset("llama3-8b");
        const Estimate e = estimate(model, s, h100s(nodes));
        QVERIFY(e.problems.empty());
        const StageMemory& mem = e.stages.front().memory;
        QVERIFY(mem.allocator_cache_mb > 0);
        // Pool: the root (embedding + output, 2 x 128256 x 4096, bf16) and one block.
        const double rootMb = 2.0 * 2 * 128256 * 4096 / 1e6;
        const double cacheBeyondPool = mem.allocator_cache_mb - rootMb;
        QVERIFY2(cacheBeyondPool > 0, qPrintable(QString::number(mem.allocator_cache_mb)));
        // Expandable segments: the block's pool share plus at most one 2 MiB page; without: more
        // than a gigabyte of fragmentation on the activations and logits.
        QCOMPARE(cacheBeyondPool < 1000, expandable);
        QVERIFY(agree(mem.reservedMb(), mem.allocatedMb() + mem.allocator_cache_mb));
    }

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

    // The framework is a row of the search's settings table (CLI flag, GUI form, saved settings).
    void frameworkIsASetting()
    {
        StrategySearchSettings settings;
        QCOMPARE(settings.resolvedSpace().framework, Framework::MegatronCore);
        settings.framework = "torchtitan";
        QCOMPARE(settings.resolvedSpace().framework, Framework::Torchtitan);
        QCOMPARE(parseFramework("nemo"), std::optional<Framework>(Framework::MegatronBridge));
        QVERIFY(!parseFramework("jax").has_value());
        for (const Framework f :
            { Framework::MegatronCore, Framework::MegatronBridge, Framework::Torchtitan, Framework::DeepSpeed,
                Framework::Composer })
            QCOMPARE(parseFramework(frameworkName(f)), std::optional<Framework>(f));
    }

    // The gradient and optimizer-state dtypes are rows of the same table, reach the plan file
    // (strategy JSON) and back, and Megatron's own rule refuses bf16 states without the
    // distributed optimizer.
    void stateDtypesAreSettings()
    {
        StrategySearchSettings settings;
        QCOMPARE(settings.resolvedSpace().main_grads_dtype, StateDtype::Fp32);
        QCOMPARE(settings.resolvedSpace().optimizer_state_dtype, StateDtype::Fp32);
        settings.main_grads_dtype = "bf16";
        settings.optimizer_state_dtype = "bf16";
        QCOMPARE(settings.resolvedSpace().main_grads_dtype, StateDtype::Bf16);
        QCOMPARE(settings.resolvedSpace().optimizer_state_dtype, StateDtype::Bf16);
        QVERIFY(!parseStateDtype("fp16").has_value());

        const model::ModelDescription model = model::modelPreset("llama2-7b");
        ParallelStrategy s;
        s.dp = 8;
        s.global_batch_size = 8;
        s.main_grads_dtype = StateDtype::Bf16;
        s.optimizer_state_dtype = StateDtype::Bf16;
        const JsonDocument plan = JsonDocument::parse(toJson(s).dump(), "plan.json");
        QCOMPARE(plan.root()["main_grads_dtype"].string(), std::string("bf16"));
        const ParallelStrategy back = readStrategy(plan.root(), model, 8);
        QCOMPARE(back.main_grads_dtype, StateDtype::Bf16);
        QCOMPARE(back.optimizer_state_dtype, StateDtype::Bf16);
        // DDP with the precision-aware optimizer: Megatron refuses it (optimizer/__init__.py).
        QVERIFY(!strategyProblems(s, model, 8).empty());
        s.zero = 1;
        QVERIFY(strategyProblems(s, model, 8).empty());
        // Less memory than fp32 states on the same plan.
        const HardwareModel hw = h100s(1);
        const Estimate bf16 = estimate(model, s, hw);
        s.main_grads_dtype = StateDtype::Fp32;
        s.optimizer_state_dtype = StateDtype::Fp32;
        QVERIFY(bf16.allocated_peak_mb < estimate(model, s, hw).allocated_peak_mb);
    }
};

QTEST_GUILESS_MAIN(TestMemoryModel)
#include "tst_memory_model.moc"
