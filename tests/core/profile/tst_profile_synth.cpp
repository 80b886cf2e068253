// SPDX-License-Identifier: GPL-3.0-or-later
// The profile synthesizer: exact parameter counts, files every loader and profile mode accepts, a
// search on them, agreement with the measured llama2-7b profile and Galvatron's answer on it,
// determinism, and one-line errors for impossible descriptions.
#include <QTemporaryDir>
#include <QTest>

#include "core/common/atomic_file.h"
#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/profile/profile_discovery.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synthesis_record.h"
#include "core/profile/synth/transformer_estimates.h"
#include "core/galvatron/search_engine.h"
#include "core/galvatron/search_inputs.h"

#include "profile_test_util.h"

using namespace stratex;
using namespace stratex::profile::synth;
using namespace stratex::hardware;

namespace {

ClusterDescription cluster(const char* gpu, int nodes, int perNode)
{
    ClusterDescription c;
    c.gpu = gpuPreset(gpu);
    c.num_nodes = nodes;
    c.gpus_per_node = perNode;
    return c;
}

model::ModelDescription llama2At2048()
{
    model::ModelDescription model = model::modelPreset("llama2-7b");
    model.seq_length = 2048; // the length of the measured profile in tests/data
    return model;
}

std::filesystem::path writeSet(const QTemporaryDir& dir, const model::ModelDescription& model, const ClusterDescription& c,
    const SynthesisOptions& options = {})
{
    const std::filesystem::path path = dir.path().toStdString();
    writeProfileFiles(path, synthesizeProfiles(model, c, options));
    return path;
}

galvatron::SearchResult searchOn(const std::filesystem::path& dir, galvatron::SearchSettings& settings)
{
    profile::ProfileDiscovery request;
    request.profilesDir = dir;
    // The tests choose the memory per GPU; the rest comes from the set's record.
    const galvatron::SearchInputs inputs = galvatron::loadSearchInputs(request, settings, { "memory-constraint" });
    NullProgress progress;
    return galvatron::search(inputs, settings, progress, 1, 3);
}

double relative(double actual, double expected)
{
    return std::abs(actual - expected) / std::abs(expected);
}

} // namespace

class TestProfileSynth : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void parameterCounts_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<double>("parameters");
        // The models' published parameter counts (Hugging Face model cards / safetensors totals).
        QTest::newRow("llama2-7b") << "llama2-7b" << 6738415616.0;
        QTest::newRow("llama2-13b") << "llama2-13b" << 13015864320.0;
        QTest::newRow("llama2-70b (GQA)") << "llama2-70b" << 68976648192.0;
        QTest::newRow("llama3-8b (GQA, 128K vocab)") << "llama3-8b" << 8030261248.0;
    }
    void parameterCounts()
    {
        QFETCH(QString, preset);
        QFETCH(double, parameters);
        QCOMPARE(modelParameters(model::modelPreset(preset.toStdString())), parameters);
    }

    void loadsAndSearchesInEveryMode_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("gpu");
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("perNode");
        QTest::addColumn<QString>("timeMode");
        QTest::addColumn<QString>("memoryMode");
        QTest::addColumn<bool>("sequenceParallel");
        QTest::newRow("7b 1x8 sequence/static") << "llama2-7b"
                                                << "a100-80gb" << 1 << 8 << "sequence"
                                                << "static" << true;
        QTest::newRow("7b 1x8 batch/sequence") << "llama2-7b"
                                               << "a100-40gb" << 1 << 8 << "batch"
                                               << "sequence" << true;
        QTest::newRow("7b 1x8 static, no SP") << "llama2-7b"
                                              << "a100-80gb" << 1 << 8 << "static"
                                              << "static" << false;
        QTest::newRow("13b 2x8 batch") << "llama2-13b"
                                       << "h100-80gb" << 2 << 8 << "batch"
                                       << "static" << true;
        QTest::newRow("gpt3-13b 4x4 plain MLP, tied") << "gpt3-13b"
                                                      << "l40s-48gb" << 4 << 4 << "sequence"
                                                      << "static" << true;
        QTest::newRow("70b 4x8 GQA") << "llama2-70b"
                                     << "h800-80gb" << 4 << 8 << "sequence"
                                     << "sequence" << true;
    }
    void loadsAndSearchesInEveryMode()
    {
        QFETCH(QString, model);
        QFETCH(QString, gpu);
        QFETCH(int, nodes);
        QFETCH(int, perNode);
        QFETCH(QString, timeMode);
        QFETCH(QString, memoryMode);
        QFETCH(bool, sequenceParallel);
        QTemporaryDir dir;
        const ClusterDescription c = cluster(gpu.toLatin1().constData(), nodes, perNode);
        const std::filesystem::path path = writeSet(dir, model::modelPreset(model.toStdString()), c);

        galvatron::SearchSettings settings;
        settings.time_profile_mode = *profile::parseTimeProfileMode(timeMode.toStdString());
        settings.memory_profile_mode = *profile::parseMemoryProfileMode(memoryMode.toStdString());
        settings.sequence_parallel = sequenceParallel;
        settings.memory_constraint_gb = int(c.gpu.memory_gb);
        settings.settle_bsz = 8 * c.worldSize();
        const galvatron::SearchResult result = searchOn(path, settings);
        QVERIFY2(result.best.has_value(), "no plan fits on the synthesized profiles");
        QVERIFY(result.best->time_cost_s > 0);
        QCOMPARE(result.best->world, c.worldSize());
        // Model-FLOPs utilisation of the plan (6 FLOPs per parameter per token) must be physical.
        const model::ModelDescription m = model::modelPreset(model.toStdString());
        const double tokensPerS = result.best->throughput_samples_per_s * m.seq_length;
        const double mfu = 6 * modelParameters(m) * tokensPerS / (c.worldSize() * c.gpu.peak_tflops * 1e12);
        QVERIFY2(mfu > 0.05 && mfu < c.gpu.matmul_efficiency, qPrintable(QString::number(mfu)));
    }

    // The synthesizer is calibrated on the measured llama2-7b profile; the estimates of every
    // quantity the search reads must stay close to it.
    void agreesWithMeasuredLlama2_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("path");
        QTest::addColumn<double>("tolerance");
        const QString computation = QStringLiteral("computation_profiling_bf16_llama2-7b_all.json");
        const QString memory = QStringLiteral("memory_profiling_bf16_llama2-7b_all.json");
        QTest::newRow("layer forward bsz 8") << computation << QStringList { "layertype_0_bsz8_seq2048" } << 0.02;
        QTest::newRow("layer forward bsz 1") << computation << QStringList { "layertype_0_bsz1_seq2048" } << 0.02;
        QTest::newRow("other forward bsz 8") << computation << QStringList { "layertype_other_bsz8_seq2048" } << 0.05;
        QTest::newRow("other forward bsz 1") << computation << QStringList { "layertype_other_bsz1_seq2048" } << 0.05;
        const QStringList layer { "layertype_0_sp", "2048" };
        QTest::newRow("parameters") << memory << (layer + QStringList { "parameter_size" }) << 0.01;
        for (const char* tp : { "1", "2", "4", "8" })
            QTest::addRow("activation tp %s", tp)
                << memory << (layer + QStringList { "tp_activation_per_bsz_dict", tp }) << 0.07;
        QTest::newRow("checkpoint") << memory << (layer + QStringList { "tp_activation_per_bsz_dict", "checkpoint" })
                                    << 0.0;
        QTest::newRow("embedding+head states vtp 1")
            << memory << QStringList { "other_memory_pp_off_sp", "2048", "model_states", "1" } << 0.04;
        QTest::newRow("first stage states vtp 1")
            << memory << QStringList { "other_memory_pp_on_first_sp", "2048", "model_states", "1" } << 0.02;
        QTest::newRow("last stage activation tp 1")
            << memory << QStringList { "other_memory_pp_on_last_sp", "2048", "activation", "1" } << 0.15;
        QTest::newRow("first stage activation tp 1")
            << memory << QStringList { "other_memory_pp_on_first_sp", "2048", "activation", "1" } << 0.05;
    }
    void agreesWithMeasuredLlama2()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, path);
        QFETCH(double, tolerance);
        QTemporaryDir dir;
        const std::filesystem::path synthesized = writeSet(dir, llama2At2048(), cluster("a100-40gb", 1, 8));
        const JsonDocument estimated = JsonDocument::load(synthesized / file.toStdString());
        const JsonDocument measured = JsonDocument::load(test::galvatronFixture(file.toLatin1().constData()));
        JsonView e = estimated.root();
        JsonView m = measured.root();
        for (const QString& key : path) {
            e = e[key.toStdString()];
            m = m[key.toStdString()];
        }
        QVERIFY2(relative(e.number(), m.number()) <= tolerance,
            qPrintable(QStringLiteral("estimated %1, measured %2").arg(e.number()).arg(m.number())));
    }

    // On the synthesized llama2-7b the search lands where Galvatron lands on the measured one:
    // the first baseline of tests/data/galvatron-baseline (pp 1, tp 1, ZeRO-3, 1.0860 s).
    void searchAgreesWithGalvatronOnMeasuredProfile()
    {
        QTemporaryDir dir;
        const std::filesystem::path path = writeSet(dir, llama2At2048(), cluster("a100-40gb", 1, 8));
        galvatron::SearchSettings settings;
        settings.memory_constraint_gb = 36;
        settings.settle_bsz = 16;
        settings.time_profile_mode = profile::TimeProfileMode::Batch;
        const galvatron::SearchResult result = searchOn(path, settings);
        QVERIFY(result.best.has_value());
        QCOMPARE(result.best->pp, 1);
        QVERIFY2(relative(result.best->time_cost_s, 1.0860461243113173) < 0.05,
            qPrintable(QString::number(result.best->time_cost_s, 'g', 10)));
        QCOMPARE(settings.model.seq_length, 2048); // taken from the synthesis record
    }

    void deterministic()
    {
        const model::ModelDescription model = model::modelPreset("qwen2.5-7b");
        const ClusterDescription c = cluster("h100-80gb", 2, 8);
        const std::vector<ProfileFile> first = synthesizeProfiles(model, c);
        const std::vector<ProfileFile> second = synthesizeProfiles(model, c);
        QCOMPARE(first.size(), std::size_t(7));
        for (std::size_t i = 0; i < first.size(); ++i) {
            QCOMPARE(first[i].name, second[i].name);
            QVERIFY(first[i].content == second[i].content);
        }
    }

    // The app ships a profile set made by this synthesizer; it must be what the synthesizer makes
    // today (regenerate with the command in the record when the estimates change).
    void bundledExampleIsCurrent()
    {
        const std::filesystem::path bundled
            = std::filesystem::path(STRATEX_RESOURCES_DIR) / "examples" / "llama2-13b-a100-40gb-2x8";
        const auto record = readSynthesisRecord(bundled);
        QVERIFY(record.has_value());
        for (const ProfileFile& file : synthesizeProfiles(record->model, record->cluster, { record->precision, {}, 8 }))
            QVERIFY2(readTextFile(bundled / file.name) == file.content,
                qPrintable(QString::fromStdString(file.name)
                    + " differs: run stratex-cli profile synth --model "
                      "llama2-13b --gpu a100-40gb --num-nodes 2 --out resources/examples/llama2-13b-a100-40gb-2x8"));
    }

    void writesGalvatronNamesAndARecord()
    {
        QTemporaryDir dir;
        model::ModelDescription model = model::modelPreset("llama3-8b");
        model.name = "my model/v2"; // not a file name: sanitised
        const std::filesystem::path path = writeSet(dir, model, cluster("a100-80gb", 2, 8), { "fp16", {}, 8 });
        for (const char* name :
            { "computation_profiling_fp16_my-model-v2_all.json", "memory_profiling_fp16_my-model-v2_all.json",
                "allreduce_bandwidth_2nodes_8gpus_per_node.json", "p2p_bandwidth_2nodes_8gpus_per_node.json",
                "overlap_coefficient.json", "sp_time_2nodes_8gpus_per_node.json", "stratex_synthesis.json" })
            QVERIFY2(std::filesystem::is_regular_file(path / name), name);
        const auto record = readSynthesisRecord(path);
        QVERIFY(record.has_value());
        QCOMPARE(record->model.num_kv_heads, 8);
        QCOMPARE(record->model.seq_length, 8192);
        QCOMPARE(record->precision, std::string("fp16"));
        QCOMPARE(record->cluster.num_nodes, 2);
        QVERIFY(!readSynthesisRecord(dir.path().toStdString() + "/missing").has_value());
    }

    void crossNodeGroupsAreSlower()
    {
        const nlohmann::ordered_json allreduce = synthesizeAllreduceProfile(cluster("a100-80gb", 2, 8));
        // A consecutive group of 8 stays in a node; a strided one spans both nodes, and a pair
        // 8 ranks apart has one GPU, one NIC, on each.
        QVERIFY(allreduce["allreduce_size_8_consec_1"].get<double>()
            > allreduce["allreduce_size_8_consec_0"].get<double>());
        QVERIFY(allreduce["allreduce_size_2_consec_1"].get<double>()
            > 4 * allreduce["allreduce_size_2_consec_0"].get<double>());
        QVERIFY(allreduce["allreduce_size_16_consec_1"].get<double>()
            < allreduce["allreduce_size_8_consec_1"].get<double>());
        QVERIFY(!allreduce.contains("allreduce_size_16_consec_0"));
        const nlohmann::ordered_json spTime = synthesizeSpTimeProfile(cluster("a100-80gb", 2, 8));
        QVERIFY(
            spTime["allreduce_size_16_64MB_time"].get<double>() > spTime["allreduce_size_8_64MB_time"].get<double>());
        QVERIFY(
            spTime["allreduce_size_8_1024MB_time"].get<double>() > spTime["all2all_size_8_1024MB_time"].get<double>());
    }

    void rejectsImpossibleInput_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("heads") << "heads"
                               << "hidden_size 4096 is not divisible by num_heads 24";
        QTest::newRow("kv heads") << "kv"
                                  << "num_heads 32 is not divisible by num_kv_heads 5";
        QTest::newRow("layers") << "layers"
                                << "num_layers must be a positive integer, found 0";
        QTest::newRow("gpus per node") << "perNode"
                                       << "gpus_per_node must be a power of two, found 6";
        QTest::newRow("efficiency") << "efficiency"
                                    << "matmul_efficiency is a fraction of peak";
        QTest::newRow("precision") << "precision"
                                   << "precision must be bf16, fp16 or fp32, found 'int8'";
        QTest::newRow("batch sweep") << "sweep"
                                     << "at least 8 batch sizes";
        QTest::newRow("model preset") << "preset"
                                      << "unknown model preset 'llama9'";
        QTest::newRow("gpu preset") << "gpu"
                                    << "unknown GPU preset 'tpu'";
    }
    void rejectsImpossibleInput()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        model::ModelDescription model = model::modelPreset("llama2-7b");
        ClusterDescription c = cluster("a100-80gb", 1, 8);
        SynthesisOptions options;
        try {
            if (what == "heads")
                model.num_heads = model.num_kv_heads = 24;
            else if (what == "kv")
                model.num_kv_heads = 5;
            else if (what == "layers")
                model.num_layers = 0;
            else if (what == "perNode")
                c.gpus_per_node = 6;
            else if (what == "efficiency")
                c.gpu.matmul_efficiency = 1.5;
            else if (what == "precision")
                options.precision = "int8";
            else if (what == "sweep")
                options.max_profiled_bsz = 4;
            else if (what == "preset")
                model = model::modelPreset("llama9");
            else if (what == "gpu")
                c.gpu = gpuPreset("tpu");
            synthesizeProfiles(model, c, options);
            QFAIL("no error");
        } catch (const Error& error) {
            QVERIFY2(QString::fromUtf8(error.what()).contains(message), error.what());
        }
    }

    void malformedRecordNamesTheKey()
    {
        QTemporaryDir dir;
        const std::filesystem::path path = writeSet(dir, model::modelPreset("llama2-7b"), cluster("a100-80gb", 1, 8));
        std::string text = readTextFile(path / kSynthesisFileName);
        text.replace(text.find("\"num_layers\": 32"), 16, "\"num_layers\": -3");
        writeFileAtomically(path / kSynthesisFileName, text);
        try {
            readSynthesisRecord(path);
            QFAIL("no error");
        } catch (const InputError& error) {
            QCOMPARE(error.keyPath(), std::string("/model/num_layers"));
        }
    }
};

QTEST_GUILESS_MAIN(TestProfileSynth)
#include "tst_profile_synth.moc"
