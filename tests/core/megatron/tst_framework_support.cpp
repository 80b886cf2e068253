// SPDX-License-Identifier: GPL-3.0-or-later
// What each framework can run (core/megatron/framework_support.*, docs/frameworks.md): one row per
// framework x setting with the message it gives, the same through strategyProblems (what evaluate,
// the exports and the GUI report), and searches under torchtitan, Composer and DeepSpeed that offer
// no layout their framework refuses.
#include <QtTest>

#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/export/plan_file_checks.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/framework_support.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/strategy_search.h"
#include "core/model/model_presets.h"

#include "tests/support/h100_cluster.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

// llama3-8b on 64 GPUs: tp 2, cp 2, dp 16 unless a row changes them.
ParallelStrategy base(Framework framework)
{
    ParallelStrategy s;
    s.framework = framework;
    s.tp = 2;
    s.cp = 2;
    s.dp = 16;
    s.sequence_parallel = true;
    s.zero = 3;
    s.global_batch_size = 64;
    if (framework == Framework::DeepSpeed)
        s.cp_comm_type = CpCommType::A2a; // Ulysses: DeepSpeed's only CP
    if (framework == Framework::Composer) {
        s.tp = 1;
        s.cp = 1;
        s.dp = 64;
        s.sequence_parallel = false;
    }
    return s;
}

hardware::ClusterDescription h100(int nodes) { return test::h100Cluster(nodes); }

} // namespace

class TestFrameworkSupport : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Each row: a framework, one setting changed from a layout it runs, and the message expected
    // (empty: none). The baseline rows check that the layouts the rows start from are accepted.
    void refusals_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("setting"); // "key=value[,key=value]"
        QTest::addColumn<QString>("message");
        const QString noMessage;
        for (const char* fw : { "megatron-core", "megatron-bridge", "torchtitan", "deepspeed", "composer" })
            QTest::newRow((std::string(fw) + " baseline").c_str()) << fw << "" << noMessage;
        // Megatron-Core and Megatron-Bridge run every layout Megatron's rules accept.
        QTest::newRow("megatron-core zero1") << "megatron-core"
                                             << "zero=1" << noMessage;
        QTest::newRow("megatron-bridge pp vpp") << "megatron-bridge"
                                                << "pp=4,dp=4,vpp=2,interleaved" << noMessage;
        QTest::newRow("megatron-core a2a") << "megatron-core"
                                           << "a2a" << noMessage;
        // No zero-bubble schedule in Megatron-Core: Bridge refuses it (so does its export); a
        // Megatron-Core plan keeps it, the Megatron-LM export running it as 1F1B with a note.
        QTest::newRow("megatron-bridge zb-h1")
            << "megatron-bridge"
            << "pp=4,dp=4,zbh1"
            << "megatron-bridge: schedule zb-h1: Megatron-Core's schedules are 1F1B and interleaved 1F1B "
               "(megatron/core/pipeline_parallel/schedules.py); it runs 1f1b or interleaved";
        QTest::newRow("megatron-core zb-h1") << "megatron-core"
                                             << "pp=4,dp=4,zbh1" << noMessage;
        // torchtitan @ b5bcd76c.
        QTest::newRow("torchtitan zero1") << "torchtitan"
                                          << "zero=1"
                                          << "torchtitan: zero 1: FSDP2 shards gradients with the optimizer states (no "
                                             "ZeRO-1; distributed/fsdp.py); it runs zero 0 (replicate), 2 "
                                             "(fsdp_reshard_after_forward never) or 3 (always)";
        QTest::newRow("torchtitan zero2") << "torchtitan"
                                          << "zero=2" << noMessage;
        QTest::newRow("torchtitan zero0 cp1") << "torchtitan"
                                              << "zero=0,cp=1,dp=32" << noMessage;
        QTest::newRow("torchtitan zero0 cp2") << "torchtitan"
                                              << "zero=0"
                                              << "torchtitan: zero 0 with cp 2: its FSDP mesh is dp_shard x cp "
                                                 "(distributed/parallel_dims.py), the CP ranks shard the weights; it "
                                                 "runs zero 2 or 3 with cp > 1";
        QTest::newRow("torchtitan a2a") << "torchtitan"
                                        << "a2a"
                                        << "torchtitan: cp_comm_type a2a: its context parallelism is torch's ring "
                                           "attention (distributed/context_parallel/api.py); it runs p2p only";
        QTest::newRow("torchtitan interleaved zb") << "torchtitan"
                                                   << "pp=4,dp=4,vpp=2,interleaved" << noMessage;
        // 16 micro-batches: 4 rounds of 4, accepted; 18 on pp 4: 4 rounds, 18 % 4 != 0.
        QTest::newRow("torchtitan interleaved 18 micro-batches")
            << "torchtitan"
            << "pp=4,dp=4,vpp=2,interleaved,gbs=72"
            << "torchtitan: micro-batches 18 with pp 4: torch's ScheduleInterleaved1F1B needs them a multiple of "
               "max(1, micro-batches / pp) = 4 (torch/distributed/pipelining/schedules.py); it runs the interleaved "
               "schedule with micro-batches divisible by that";
        QTest::newRow("torchtitan interleaved 3 micro-batches") << "torchtitan"
                                                                << "pp=4,dp=4,vpp=2,interleaved,gbs=12" << QString();
        QTest::newRow("torchtitan zb-h1") << "torchtitan"
                                          << "pp=4,dp=4,zbh1" << noMessage;
        // Composer @ 64051888, llm-foundry @ 8c8dd48f.
        QTest::newRow("composer zero1") << "composer"
                                        << "zero=1"
                                        << "composer: zero 1: PyTorch FSDP has no optimizer-only sharding "
                                           "(mosaic_parallelism.py); it runs zero 0 (NO_SHARD), 2 (SHARD_GRAD_OP) or 3 "
                                           "(FULL_SHARD)";
        QTest::newRow("composer zero0") << "composer"
                                        << "zero=0" << noMessage;
        QTest::newRow("composer zero2") << "composer"
                                        << "zero=2" << noMessage;
        QTest::newRow("composer tp") << "composer"
                                     << "tp=2,dp=32"
                                     << "composer: tp 2: llm-foundry's only TP strategy ('ffn', "
                                        "llmfoundry/tp/ffn_tp_strategy.py) splits the FFN alone, not attention; it "
                                        "runs tp 1";
        QTest::newRow("composer pp") << "composer"
                                     << "pp=2,dp=32"
                                     << "composer: pp 2: Composer has no pipeline parallelism "
                                        "(composer/utils/parallelism.py: fsdp and tp only); it runs pp 1";
        QTest::newRow("composer cp") << "composer"
                                     << "cp=2,dp=32"
                                     << "composer: cp 2: Composer has no context parallelism "
                                        "(composer/utils/parallelism.py: fsdp and tp only); it runs cp 1";
        // DeepSpeed @ edaa7221.
        QTest::newRow("deepspeed pp zero1") << "deepspeed"
                                            << "pp=4,dp=4,zero=1" << noMessage;
        QTest::newRow("deepspeed pp zero2") << "deepspeed"
                                            << "pp=4,dp=4,zero=2"
                                            << "deepspeed: zero 2 with pp 4: \"ZeRO-2 and ZeRO-3 are incompatible with "
                                               "pipeline parallelism\" (runtime/pipe/engine.py); it runs zero 0 or 1 "
                                               "with pp > 1";
        QTest::newRow("deepspeed interleaved") << "deepspeed"
                                               << "pp=4,dp=4,zero=1,vpp=2,interleaved"
                                               << "deepspeed: schedule interleaved: the pipeline engine trains with "
                                                  "TrainSchedule alone (runtime/pipe/schedule.py); it runs 1f1b only";
        QTest::newRow("deepspeed p2p") << "deepspeed"
                                       << "p2p"
                                       << "deepspeed: cp_comm_type p2p: its sequence parallelism is Ulysses "
                                          "(deepspeed/sequence/layer.py DistributedAttention); it runs a2a only";
    }
    void refusals()
    {
        QFETCH(QString, framework);
        QFETCH(QString, setting);
        QFETCH(QString, message);
        ParallelStrategy s = base(*parseFramework(framework.toStdString()));
        for (const QString& item : setting.split(',', Qt::SkipEmptyParts)) {
            const QStringList kv = item.split('=');
            const int v = kv.size() == 2 ? kv[1].toInt() : 0;
            if (kv[0] == "zero")
                s.zero = v;
            else if (kv[0] == "tp")
                s.tp = v;
            else if (kv[0] == "pp")
                s.pp = v;
            else if (kv[0] == "cp")
                s.cp = v;
            else if (kv[0] == "dp")
                s.dp = v;
            else if (kv[0] == "gbs")
                s.global_batch_size = v;
            else if (kv[0] == "vpp")
                s.vpp = v;
            else if (kv[0] == "interleaved")
                s.schedule = PipelineSchedule::Interleaved;
            else if (kv[0] == "zbh1")
                s.schedule = PipelineSchedule::ZbH1;
            else if (kv[0] == "a2a")
                s.cp_comm_type = CpCommType::A2a;
            else if (kv[0] == "p2p")
                s.cp_comm_type = CpCommType::P2p;
            else
                QFAIL(qPrintable("unknown setting " + item));
        }
        s.sequence_parallel = s.tp > 1;
        const std::vector<std::string> problems = frameworkProblems(s);
        if (message.isEmpty()) {
            QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        } else {
            QCOMPARE(int(problems.size()), 1);
            QCOMPARE(QString::fromStdString(problems.front()), message);
        }
        // strategyProblems reports the same (what the search filters on and evaluate prints); the
        // layout itself passes Megatron's rules on llama3-8b and 64 GPUs.
        const std::vector<std::string> all = strategyProblems(s, model::modelPreset("llama3-8b"), 64);
        QCOMPARE(int(all.size()), int(problems.size()));
        if (!problems.empty())
            QCOMPARE(all.back(), problems.front());
    }

    // torchtitan: expert tensor parallelism was removed (pytorch/torchtitan#3167).
    void torchtitanExpertTp()
    {
        ParallelStrategy s = base(Framework::Torchtitan);
        s.ep = 4;
        s.etp = 2;
        const std::vector<std::string> problems = frameworkProblems(s);
        QCOMPARE(int(problems.size()), 1);
        QVERIFY(problems.front().starts_with("torchtitan: etp 2: expert tensor parallelism was removed"));
        s.etp = 1;
        QVERIFY(frameworkProblems(s).empty());
    }

    // The exports (torchtitan, Megatron-Bridge, Megatron-LM: requireValidStrategy) refuse a plan its
    // own framework cannot run, naming the rule; the same layout under Megatron-Core is exported.
    void exportsRefuseWhatTheFrameworkCannotRun()
    {
        megatron::PlanFile plan;
        plan.file = "plan.json";
        plan.model = model::modelPreset("llama3-8b");
        plan.cluster = h100(8);
        plan.strategy = base(Framework::Torchtitan);
        plan.strategy.zero = 1;
        bool refused = false;
        try {
            exporting::requireValidStrategy(plan, "torchtitan");
        } catch (const Error& e) {
            refused = true;
            QVERIFY2(std::string(e.what()).find("torchtitan: zero 1") != std::string::npos, e.what());
        }
        QVERIFY(refused);
        plan.strategy.framework = Framework::MegatronCore;
        exporting::requireValidStrategy(plan, "torchtitan"); // throws on failure
    }

    // The search under each framework offers only what it runs: none of its best plans (nor their
    // twins) breaks the framework's rules, and it refuses the candidates that would.
    void searchOffersOnlyWhatTheFrameworkRuns_data()
    {
        QTest::addColumn<QString>("framework");
        QTest::newRow("megatron-bridge") << "megatron-bridge";
        QTest::newRow("torchtitan") << "torchtitan";
        QTest::newRow("composer") << "composer";
        QTest::newRow("deepspeed") << "deepspeed";
    }
    void searchOffersOnlyWhatTheFrameworkRuns()
    {
        QFETCH(QString, framework);
        StrategySearchRequest r;
        r.model = model::modelPreset("llama3-8b");
        r.cluster = h100(2);
        r.efficiency = hardware::efficiencyFor(r.cluster);
        r.global_batch_size = 32;
        r.threads = 1;
        r.top = 40;
        r.space.framework = *parseFramework(framework.toStdString());
        r.space.max_micro_batch_size = 1;
        NullProgress progress;
        const StrategySearchResult result = searchStrategies(r, progress);
        QVERIFY(!result.best.empty());
        for (std::size_t i = 0; i < result.best.size(); ++i) {
            const ParallelStrategy& s = result.best[i].strategy;
            const std::vector<std::string> problems = frameworkProblems(s);
            QVERIFY2(problems.empty(), (s.notation() + ": " + (problems.empty() ? "" : problems.front())).c_str());
            for (const ParallelStrategy& twin : result.twins[i])
                QVERIFY2(frameworkProblems(twin).empty(), twin.notation().c_str());
        }
        QVERIFY(result.stats.refused > 0);
    }
};

QTEST_GUILESS_MAIN(TestFrameworkSupport)
#include "tst_framework_support.moc"
