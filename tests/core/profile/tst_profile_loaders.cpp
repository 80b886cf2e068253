// SPDX-License-Identifier: GPL-3.0-or-later
// Loading every Galvatron profile variant in tests/data/galvatron (v2.4 and 3.0 files, one
// and two layer types, 1- and 2-node hardware) plus the v2.0 flat and PaddleNLP spellings, and
// resolving them with Galvatron main's time and memory modes.
#include <QTest>

#include "core/profile/comm_model.h"
#include "core/profile/computation_profile.h"
#include "core/profile/hardware_profile.h"
#include "core/profile/memory_model.h"
#include "core/profile/memory_profile.h"
#include "core/profile/profile_discovery.h"
#include "core/profile/profile_set.h"
#include "core/profile/sp_time_profile.h"
#include "core/profile/time_model.h"

#include "profile_test_util.h"

using namespace stratex;
using namespace stratex::profile;
using stratex::test::galvatronFixture;
using stratex::test::jsonText;

class TestProfileLoaders : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void computationLlama();
    void computationStaticTakesFirstKeys();
    void computationBatchFit();
    void computationSequenceFit_data();
    void computationSequenceFit();
    void computationT5TwoLayerTypes();
    void computationV20Legacy();
    void computation30RawSpelling();
    void memoryLlamaStatic();
    void memoryT5MultiSequence();
    void memorySequenceMode();
    void memoryV20Flat();
    void memoryPaddleUnsuffixed();
    void allreduceCoefficients_data();
    void allreduceCoefficients();
    void allreducePaddleSpelling();
    void p2pAndOverlap();
    void spTimeTables();
    void profileSetAndModelName();
    void discoveryByName();
    void discoveryNeedsModelNameWhenAmbiguous();
};

void TestProfileLoaders::computationLlama()
{
    const ComputationProfile profile
        = ComputationProfile::load(galvatronFixture("computation_profiling_bf16_llama2-7b_all.json"));
    QCOMPARE(profile.layerTypes(), std::vector<int>({ 0 }));
    QCOMPARE(profile.processed.size(), std::size_t(24)); // 12 bsz x (layer, other)
    QCOMPARE(profile.raw.size(), std::size_t(24));
    QCOMPARE(profile.processed.front().key, std::string("layertype_0_bsz1_seq2048"));
    QCOMPARE(profile.processed[14].key, std::string("layertype_0_bsz8_seq2048"));
    QCOMPARE_EXACT(profile.processed[14].value_ms, 3.9369729995727534);
}

void TestProfileLoaders::computationStaticTakesFirstKeys()
{
    // Galvatron's static mode: the first key in file order, i.e. the bsz 1 entries (docs/galvatron-search.md §1.3).
    const ComputationProfile profile
        = ComputationProfile::load(galvatronFixture("computation_profiling_bf16_llama2-7b_all.json"));
    const TimeModels models = resolveTimeModels(profile, TimeProfileMode::Static, 2048);
    QCOMPARE(models.layer.kind, TimeModel::Kind::Constant);
    QCOMPARE_EXACT(models.layer.constant_ms, 4.396252679824831);
    QCOMPARE_EXACT(models.other.constant_ms, 6.286115455627439);
}

void TestProfileLoaders::computationBatchFit()
{
    const ComputationProfile profile
        = ComputationProfile::load(galvatronFixture("computation_profiling_bf16_llama2-7b_all.json"));
    const TimeModels models = resolveTimeModels(profile, TimeProfileMode::Batch, 2048);
    QCOMPARE(models.layer.kind, TimeModel::Kind::Linear);
    // docs/galvatron-search.md §7.2: the 12 points in file order, then the closed-form OLS column (bit for bit).
    QCOMPARE(models.layer.points.size(), std::size_t(12));
    QCOMPARE_EXACT(models.layer.points[0].second, 4.396252679824831);
    QCOMPARE_EXACT(models.layer.points[7].first, 8.0);
    QCOMPARE_EXACT(models.layer.points[11].second, 47.01810607910157);
    QCOMPARE_EXACT(models.layer.fit.slope, 3.859016899462344);
    QCOMPARE_EXACT(models.layer.fit.intercept, 0.8329851396156253);
    QCOMPARE_EXACT(models.other.fit.slope, 2.6803283231241726);
    QCOMPARE_EXACT(models.other.fit.intercept, 2.354899244597462);
    // Within 1e-8 relative of SciPy's curve_fit, Galvatron's fitter.
    QVERIFY(std::abs(models.layer.fit.slope / 3.85901689949117 - 1) < 1e-10);
    QVERIFY(std::abs(models.other.fit.intercept / 2.3548992612929927 - 1) < 1e-8);
}

void TestProfileLoaders::computationSequenceFit_data()
{
    QTest::addColumn<int>("seq");
    QTest::addColumn<double>("layerMs");
    QTest::addColumn<double>("otherMs");
    // numpy.polyfit on the same points (quadratic for layers, linear for other).
    QTest::newRow("8K") << 8192 << 19.730305208598953 << 22.9638111092062;
    QTest::newRow("32K") << 32768 << 115.89399043896631 << 83.47858717974486;
    QTest::newRow("128K extrapolated") << 131072 << 1073.0408731000962 << 325.53769146189956;
}

void TestProfileLoaders::computationSequenceFit()
{
    QFETCH(int, seq);
    QFETCH(double, layerMs);
    QFETCH(double, otherMs);
    // v2.4 file with a sequence sweep at bsz 1 and the "layertype_other_0_" spelling.
    const ComputationProfile profile
        = ComputationProfile::load(galvatronFixture("computation_profiling_bf16_hidden4096_head32.json"));
    const TimeModels models = resolveTimeModels(profile, TimeProfileMode::Sequence, seq);
    QCOMPARE(models.layer.kind, TimeModel::Kind::Constant);
    QCOMPARE(models.layer.points.size(), std::size_t(16));
    QCOMPARE(models.other.points.size(), std::size_t(16));
    QVERIFY2(std::abs(models.layer.constant_ms / layerMs - 1) < 1e-9,
        qPrintable(QString::number(models.layer.constant_ms, 'g', 17)));
    QVERIFY2(std::abs(models.other.constant_ms / otherMs - 1) < 1e-9,
        qPrintable(QString::number(models.other.constant_ms, 'g', 17)));
}

void TestProfileLoaders::computationT5TwoLayerTypes()
{
    const ComputationProfile profile
        = ComputationProfile::load(galvatronFixture("computation_profiling_bf16_t5-3B.json"));
    QCOMPARE(profile.layerTypes(), std::vector<int>({ 0, 1 }));
    const TimeModels encoder = resolveTimeModels(profile, TimeProfileMode::Static, 512, 0);
    const TimeModels decoder = resolveTimeModels(profile, TimeProfileMode::Static, 512, 1);
    QCOMPARE_EXACT(encoder.layer.constant_ms, 1.2861167907714837);
    QCOMPARE_EXACT(decoder.layer.constant_ms, 2.3317425727844237);
    QCOMPARE_EXACT(encoder.other.constant_ms, 4.3899805068969755);
    // Batch mode at seq 512: 8 batch sizes per type; "other" is keyed seq[512,512] and does not
    // contain "_seq512", exactly as in Galvatron.
    QVERIFY(stratex::test::throwsInputError([&] { resolveTimeModels(profile, TimeProfileMode::Batch, 512, 1); },
        "t5-3B", "/layertype_other_bsz*_seq512", "at least 8 batch sizes", "none"));
}

void TestProfileLoaders::computationV20Legacy()
{
    // v2.0: no seq part, a bare "layertype_0" and no "other" (derived from the raw runs).
    const JsonDocument doc
        = jsonText(R"({"layernum[6]_bsz2": 63.30, "layernum[12]_bsz2": 119.02, "layertype_0": 4.6434})",
            "computation_profiling_bf16_hidden1024_head16.json");
    const ComputationProfile profile = ComputationProfile::fromJson(doc.root());
    const TimeModels models = resolveTimeModels(profile, TimeProfileMode::Static, 512);
    QCOMPARE_EXACT(models.layer.constant_ms, 4.6434);
    QCOMPARE_EXACT(models.other.constant_ms, (63.30 - 6 * 4.6434 * 2) / 2);
}

void TestProfileLoaders::computation30RawSpelling()
{
    // 3.0's writer spells raw keys "layernum2_bsz8_seq2048"; processed keys are unchanged.
    std::string text = "{";
    for (int b = 1; b <= 8; ++b) {
        text += "\"layernum2_bsz" + std::to_string(b) + "_seq1024\": " + std::to_string(10.0 * b) + ", ";
        text += "\"layertype_0_bsz" + std::to_string(b) + "_seq1024\": " + std::to_string(2.0 + 1.0 / b) + ", ";
        text += "\"layertype_other_bsz" + std::to_string(b) + "_seq1024\": " + std::to_string(1.0 + 0.5 / b)
            + (b == 8 ? "}" : ", ");
    }
    const ComputationProfile profile = ComputationProfile::fromJson(jsonText(text).root());
    QCOMPARE(profile.raw.size(), std::size_t(8));
    const TimeModels models = resolveTimeModels(profile, TimeProfileMode::Batch, 1024);
    // y = (2 + 1/b) * b = 2b + 1, exactly a line.
    // (values are written with 6 decimals)
    QVERIFY(std::abs(models.layer.fit.slope - 2.0) < 1e-5);
    QVERIFY(std::abs(models.layer.fit.intercept - 1.0) < 1e-5);
    QVERIFY(std::abs(models.other.fit.slope - 1.0) < 1e-5);
    QVERIFY(std::abs(models.other.fit.intercept - 0.5) < 1e-5);
}

void TestProfileLoaders::memoryLlamaStatic()
{
    const MemoryProfile profile = MemoryProfile::load(galvatronFixture("memory_profiling_bf16_llama2-7b_all.json"));
    QCOMPARE(profile.layers.size(), std::size_t(1));
    QCOMPARE(profile.others.size(), std::size_t(3));
    QCOMPARE(profile.rawGroups.size(), std::size_t(16));
    const MemoryModels models = resolveMemoryModels(profile, MemoryProfileMode::Static, 2048, true);
    QCOMPARE_EXACT(models.layer.parameter_size_mb, 778.2236328125);
    QCOMPARE_EXACT(models.layer.activation(1), 514.5634765625);
    QCOMPARE_EXACT(models.layer.activation(8), 68.3204345703125);
    QCOMPARE_EXACT(models.layer.checkpointActivation(), 32.0);
    QCOMPARE(models.layer.path, std::string("/layertype_0_sp/2048"));
    QCOMPARE_EXACT(models.off.modelStates(1), 4130.34765625);
    QCOMPARE_EXACT(models.off.activation(2), 358.83984375);
    QCOMPARE_EXACT(models.first.modelStates(1), 2021.0048828125);
    QCOMPARE_EXACT(models.last.activation(1), 717.560302734375);
}

void TestProfileLoaders::memoryT5MultiSequence()
{
    const MemoryProfile profile = MemoryProfile::load(galvatronFixture("memory_profiling_bf16_t5-3B.json"));
    QCOMPARE(profile.layerTypes(), std::vector<int>({ 0, 1 }));
    const LayerMemoryGroup* decoder = profile.findLayer(1, true);
    QVERIFY(decoder);
    QCOMPARE(decoder->bySeq.front().first, std::string("512"));
    QCOMPARE_EXACT(decoder->bySeq.front().second.parameter_size_mb, 258.19140625);
    const OtherMemoryGroup* off = profile.findOther(OtherMemoryPart::PipelineOff, true);
    QVERIFY(off);
    QCOMPARE(off->bySeq.front().first, std::string("[512,512]"));
    QCOMPARE_EXACT(off->bySeq.front().second.model_states_mb.at(4), 459.1103515625);
    // Galvatron main keys "other" by the integer sequence length: the T5 file cannot serve it.
    QVERIFY(stratex::test::throwsInputError([&] { resolveMemoryModels(profile, MemoryProfileMode::Static, 512, true); },
        "memory_profiling_bf16_t5-3B.json", "/other_memory_pp_off_sp/512", "sequence length 512", "[512,512]"));
}

void TestProfileLoaders::memorySequenceMode()
{
    // Two sequence lengths: parameters from the shortest, activations from the longest scaled.
    const JsonDocument doc = jsonText(R"({
        "layertype_0_sp": {
            "1024": {"parameter_size": 100.0, "tp_activation_per_bsz_dict": {"1": 10.0, "2": 5.0, "checkpoint": 1.0}},
            "4096": {"parameter_size": 101.0, "tp_activation_per_bsz_dict": {"1": 40.0, "2": 20.0, "checkpoint": 4.0}}},
        "other_memory_pp_off_sp": {"4096": {"model_states": {"1": 50.0}, "activation": {"1": 8.0, "2": 4.0}}},
        "other_memory_pp_on_first_sp": {"4096": {"model_states": {"1": 25.0}, "activation": {"1": 2.0, "2": 1.0}}},
        "other_memory_pp_on_last_sp": {"4096": {"model_states": {"1": 25.0}, "activation": {"1": 6.0, "2": 3.0, "4": 7.0}}}
    })");
    const MemoryProfile profile = MemoryProfile::fromJson(doc.root());
    const MemoryModels models = resolveMemoryModels(profile, MemoryProfileMode::Sequence, 16384, true);
    QCOMPARE_EXACT(models.layer.parameter_size_mb, 100.0);
    QCOMPARE_EXACT(models.layer.activation(1), 160.0);
    QCOMPARE_EXACT(models.layer.activation(2), 80.0);
    QCOMPARE_EXACT(models.layer.checkpointActivation(), 16.0);
    QCOMPARE_EXACT(models.off.modelStates(1), 50.0); // not scaled
    QCOMPARE_EXACT(models.off.activation(1), 32.0);
    QCOMPARE_EXACT(models.first.activation(2), 4.0);
    QCOMPARE_EXACT(models.last.activation(1), 24.0);
    QCOMPARE_EXACT(models.last.activation(4), 7.0); // only the pp-off table's degrees are scaled (Galvatron)
    QVERIFY_THROWS_EXCEPTION(Error, resolveMemoryModels(profile, MemoryProfileMode::Sequence, 16384, false));
}

void TestProfileLoaders::memoryV20Flat()
{
    const JsonDocument doc = jsonText(R"({
        "layertype_0": {"parameter_size": 773.25, "tp_activation_per_bsz_dict": {"1": 600.0, "2": 320.0, "4": 170.0, "8": 90.0, "checkpoint": 16.0}},
        "other_memory_pp_off": {"model_states": 4258.0, "activation": 572.53},
        "other_memory_pp_on_first": {"model_states": 2129.0, "activation": 150.0},
        "other_memory_pp_on_last": {"model_states": 2129.0, "activation": 420.0}
    })");
    const MemoryProfile profile = MemoryProfile::fromJson(doc.root());
    QVERIFY(profile.layers.front().flat);
    const MemoryModels models = resolveMemoryModels(profile, MemoryProfileMode::Static, 2048, false);
    QCOMPARE_EXACT(models.layer.parameter_size_mb, 773.25);
    QCOMPARE_EXACT(models.off.modelStates(1), 4258.0);
    QCOMPARE_EXACT(models.off.activation(1), 572.53);
    // v2.0 has no vocab TP: a search with vtp 2 gets a precise error.
    QVERIFY(stratex::test::throwsInputError([&] { models.off.modelStates(2); }, "inline.json",
        "/other_memory_pp_off/model_states/2", "degree 2", "degrees 1"));
}

void TestProfileLoaders::memoryPaddleUnsuffixed()
{
    // The PaddleNLP port reads unsuffixed, sequence-nested keys.
    const JsonDocument doc = jsonText(R"({
        "layertype_0": {"512": {"parameter_size": 900.0, "tp_activation_per_bsz_dict": {"1": 100.0, "2": 50.0, "checkpoint": 4.0}},
                        "8192": {"parameter_size": 900.0, "tp_activation_per_bsz_dict": {"1": 1600.0, "2": 800.0, "checkpoint": 64.0}}},
        "other_memory_pp_off": {"8192": {"model_states": {"1": 3000.0, "2": 1500.0}, "activation": {"1": 700.0, "2": 350.0}}},
        "other_memory_pp_on_first": {"8192": {"model_states": {"1": 1500.0, "2": 750.0}, "activation": {"1": 100.0, "2": 50.0}}},
        "other_memory_pp_on_last": {"8192": {"model_states": {"1": 1500.0, "2": 750.0}, "activation": {"1": 600.0, "2": 300.0}}}
    })");
    const MemoryProfile profile = MemoryProfile::fromJson(doc.root());
    const MemoryModels models = resolveMemoryModels(profile, MemoryProfileMode::Static, 8192, false);
    QCOMPARE_EXACT(models.layer.activation(2), 800.0);
    QCOMPARE_EXACT(models.last.modelStates(2), 750.0);
    // Asking for the Megatron-SP variant names what the file has instead.
    QVERIFY(
        stratex::test::throwsInputError([&] { resolveMemoryModels(profile, MemoryProfileMode::Static, 8192, true); },
            "inline.json", "/layertype_0_sp", "sequence parallelism", "only \"layertype_0\""));
}

void TestProfileLoaders::allreduceCoefficients_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("world");
    QTest::addColumn<QString>("key");
    QTest::addColumn<double>("msPerMb");
    // docs/galvatron-search.md §7.3 for 1 node x 8.
    QTest::newRow("8") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "8" << 0.0064849581395952085;
    QTest::newRow("8_1") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "8_1" << 0.0064849581395952085;
    QTest::newRow("8_0") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "8_0" << 0.0064849581395952085;
    QTest::newRow("4_0") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "4_0" << 0.006417867342682027;
    QTest::newRow("4_1") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "4_1" << 0.006284604604101333;
    QTest::newRow("2_0") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "2_0" << 0.006607463791098425;
    QTest::newRow("2_1") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "2_1" << 0.0072381945047627315;
    QTest::newRow("1") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "1" << 0.0;
    QTest::newRow("1_0") << "allreduce_bandwidth_1nodes_8gpus_per_node.json" << 8 << "1_0" << 0.0;
    QTest::newRow("16 (2 nodes)") << "allreduce_bandwidth_2nodes_8gpus_per_node.json" << 16 << "16_0" << 1.0 / 44.682;
    QTest::newRow("8_0 (2 nodes)") << "allreduce_bandwidth_2nodes_8gpus_per_node.json" << 16 << "8_0" << 1.0 / 20.7724;
    QTest::newRow("2_0 (2 nodes)") << "allreduce_bandwidth_2nodes_8gpus_per_node.json" << 16 << "2_0" << 1.0 / 8.13007;
}

void TestProfileLoaders::allreduceCoefficients()
{
    QFETCH(QString, file);
    QFETCH(int, world);
    QFETCH(QString, key);
    QFETCH(double, msPerMb);
    const AllreduceProfile profile = AllreduceProfile::load(galvatronFixture(file.toUtf8().constData()));
    const AllreduceCoefficients c = AllreduceCoefficients::resolve(profile, world);
    QCOMPARE_EXACT(c.at(key.toStdString()), msPerMb);
    QVERIFY(!c.find(std::to_string(world / 2)).has_value()); // "g" without suffix: only world and 1
}

void TestProfileLoaders::allreducePaddleSpelling()
{
    const JsonDocument doc
        = jsonText(R"({"allreduce_size_8": 150.0, "allreduce_size_4": 160.0, "allreduce_size_2": 140.0})");
    const AllreduceCoefficients c = AllreduceCoefficients::resolve(AllreduceProfile::fromJson(doc.root()), 8);
    QCOMPARE_EXACT(c.at("4_0"), 1.0 / 160.0);
    QCOMPARE_EXACT(c.at("4_1"), 1.0 / 160.0);
    QCOMPARE_EXACT(c.at("8"), 1.0 / 150.0);
}

void TestProfileLoaders::p2pAndOverlap()
{
    const P2pCoefficients p2p
        = P2pCoefficients::resolve(P2pProfile::load(galvatronFixture("p2p_bandwidth_1nodes_8gpus_per_node.json")));
    QCOMPARE_EXACT(p2p.at(2), 0.006109817866329405);
    QCOMPARE_EXACT(p2p.at(4), 0.007215996420865776);
    QCOMPARE_EXACT(p2p.at(8), 0.009136592051164915);
    const P2pProfile twoNodes = P2pProfile::load(galvatronFixture("p2p_bandwidth_2nodes_8gpus_per_node.json"));
    QCOMPARE_EXACT(twoNodes.bandwidthByPipelineDegree.at(16), 8.13177);
    QCOMPARE_EXACT(OverlapProfile::load(galvatronFixture("overlap_coefficient.json")).overlap_coe, 1.125552573612729);
}

void TestProfileLoaders::spTimeTables()
{
    const SpTimeProfile profile = SpTimeProfile::load(galvatronFixture("sp_time_1nodes_8gpus_per_node.json"));
    QCOMPARE(profile.allreduce.size(), std::size_t(3));
    QCOMPARE(profile.all2all.at(4).size(), std::size_t(11));
    const CollectiveTables tables = CollectiveTables::resolve(profile);
    // docs/galvatron-search.md §7.3: table hits (all-gather = all-reduce x 0.5).
    QCOMPARE_EXACT(tables.allgatherFor(2).lookup(64.0), 0.19619999999999999);
    QCOMPARE_EXACT(tables.allgatherFor(4).lookup(128.0), 0.53625);
    QCOMPARE_EXACT(tables.allgatherFor(8).lookup(256.0), 1.1792);
    QCOMPARE_EXACT(tables.all2allFor(2).lookup(64.0), 0.2928);
    QCOMPARE_EXACT(tables.all2allFor(4).lookup(128.0), 0.6439);
    QCOMPARE_EXACT(tables.all2allFor(8).lookup(256.0), 1.2980999999999998);
    // Off-table sizes use the line; OLS lies within 1e-8 of Galvatron's curve_fit popt.
    const LinearFit ag8 = tables.allgatherFor(8).fit;
    QVERIFY(std::abs(ag8.slope / 0.004006535706157166 - 1) < 1e-8);
    QVERIFY(std::abs(ag8.intercept / 0.08736330954793414 - 1) < 1e-7);
    const LinearFit a2a2 = tables.all2allFor(2).fit;
    QVERIFY(std::abs(a2a2.slope / 0.0033302439842336495 - 1) < 1e-8);
    QCOMPARE_EXACT(tables.allgatherFor(8).lookup(100.0), ag8.slope * 100.0 + ag8.intercept);
}

void TestProfileLoaders::profileSetAndModelName()
{
    QCOMPARE(modelNameFromProfileFile("computation_profiling_bf16_llama2-7b_all.json"), std::string("llama2-7b"));
    QCOMPARE(modelNameFromProfileFile("/x/memory_profiling_fp16_t5-3B.json"), std::string("t5-3B"));
    QCOMPARE(modelNameFromProfileFile("computation_profiling_bf16_hidden4096_head32.json"),
        std::string("hidden4096_head32"));
    ProfilePaths paths;
    paths.computation = galvatronFixture("computation_profiling_bf16_llama2-7b_all.json");
    paths.memory = galvatronFixture("memory_profiling_bf16_llama2-7b_all.json");
    paths.allreduce = galvatronFixture("allreduce_bandwidth_1nodes_8gpus_per_node.json");
    paths.p2p = galvatronFixture("p2p_bandwidth_1nodes_8gpus_per_node.json");
    paths.overlap = galvatronFixture("overlap_coefficient.json");
    paths.spTime = galvatronFixture("sp_time_1nodes_8gpus_per_node.json");
    const ProfileSet set = ProfileSet::load(paths);
    QCOMPARE(set.modelName, std::string("llama2-7b"));
    QCOMPARE_EXACT(set.hardware.overlap.overlap_coe, 1.125552573612729);
}

void TestProfileLoaders::discoveryByName()
{
    ProfileDiscovery request;
    request.profilesDir = galvatronFixture("");
    request.timeMode = TimeProfileMode::Batch;
    request.seqLength = 2048;
    // Three bf16 computation files: only llama2-7b has 8 batch sizes at seq 2048; only its memory
    // file has a 2048 entry.
    const ProfilePaths paths = discoverProfiles(request);
    QCOMPARE(paths.computation.filename().string(), std::string("computation_profiling_bf16_llama2-7b_all.json"));
    QCOMPARE(paths.memory.filename().string(), std::string("memory_profiling_bf16_llama2-7b_all.json"));
    QCOMPARE(paths.allreduce.filename().string(), std::string("allreduce_bandwidth_1nodes_8gpus_per_node.json"));
    QCOMPARE(paths.p2p.filename().string(), std::string("p2p_bandwidth_1nodes_8gpus_per_node.json"));
    QCOMPARE(paths.spTime.filename().string(), std::string("sp_time_1nodes_8gpus_per_node.json"));
    QCOMPARE(paths.overlap.filename().string(), std::string("overlap_coefficient.json"));

    // Two nodes: the 2-node bandwidth files exist, the sp_time file does not.
    request.numNodes = 2;
    try {
        discoverProfiles(request);
        QFAIL("expected an error");
    } catch (const Error& error) {
        QVERIFY2(
            std::string(error.what()).find("sp_time_2nodes_8gpus_per_node.json") != std::string::npos, error.what());
        QVERIFY2(
            std::string(error.what()).find("sp_time_1nodes_8gpus_per_node.json") != std::string::npos, error.what());
    }
}

void TestProfileLoaders::discoveryNeedsModelNameWhenAmbiguous()
{
    ProfileDiscovery request;
    request.profilesDir = galvatronFixture("");
    request.timeMode = TimeProfileMode::Static; // every file can serve static mode
    request.seqLength = 2048;
    QVERIFY_THROWS_EXCEPTION(Error, discoverProfiles(request));
    request.modelName = "llama2-7b";
    QCOMPARE(discoverProfiles(request).computation.filename().string(),
        std::string("computation_profiling_bf16_llama2-7b_all.json"));
    request.modelName = "gpt-13b";
    QVERIFY_THROWS_EXCEPTION(Error, discoverProfiles(request));
    request.precision = "fp16";
    request.modelName.clear();
    QVERIFY_THROWS_EXCEPTION(Error, discoverProfiles(request));
}

QTEST_GUILESS_MAIN(TestProfileLoaders)
#include "tst_profile_loaders.moc"
