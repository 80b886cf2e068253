// SPDX-License-Identifier: GPL-3.0-or-later
// Every class of bad profile input gives an InputError naming the file, the JSON key path, what
// was expected and what was found: malformed JSON, missing keys, wrong types, negative or
// non-finite numbers, degrees the search needs but the file lacks, too few points for a fit.
#include <functional>
#include <vector>

#include <QTest>

#include "core/profile/comm_model.h"
#include "core/profile/computation_profile.h"
#include "core/profile/hardware_profile.h"
#include "core/profile/memory_model.h"
#include "core/profile/memory_profile.h"
#include "core/profile/sp_time_profile.h"
#include "core/profile/time_model.h"

#include "profile_test_util.h"

using namespace stratex;
using namespace stratex::profile;
using stratex::test::galvatronFixture;
using stratex::test::jsonText;

namespace {

struct ErrorCase {
    const char* name;
    std::function<void()> action;
    std::string file;
    std::string keyPath;
    std::string expected;
    std::string found;
};

const std::string kMemoryOk = R"({"layertype_0_sp": {"2048": {"parameter_size": 778.0,
    "tp_activation_per_bsz_dict": {"1": 514.0, "2": 273.0, "checkpoint": 32.0}}},
    "other_memory_pp_off_sp": {"2048": {"model_states": {"1": 4130.0}, "activation": {"1": 841.0}}},
    "other_memory_pp_on_first_sp": {"2048": {"model_states": {"1": 2021.0}, "activation": {"1": 198.0}}},
    "other_memory_pp_on_last_sp": {"2048": {"model_states": {"1": 2021.0}, "activation": {"1": 717.0}}}})";

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    text.replace(text.find(from), from.size(), to);
    return text;
}

MemoryModels memoryModels(const std::string& text, int seq = 2048)
{
    return resolveMemoryModels(
        MemoryProfile::fromJson(jsonText(text, "memory.json").root()), MemoryProfileMode::Static, seq, true);
}

std::string spTimeWithSizes(int sizes)
{
    std::string text = "{";
    for (int i = 0; i < sizes; ++i) {
        text += (i ? ", " : "") + std::string("\"allreduce_size_2_") + std::to_string(1 << i) + "MB_time\": 0.1";
        text += ", \"all2all_size_2_" + std::to_string(1 << i) + "MB_time\": 0.2";
    }
    return text + "}";
}

const std::vector<ErrorCase>& cases()
{
    static const std::vector<ErrorCase> all = {
        { "malformed JSON", [] { ComputationProfile::fromJson(jsonText("{\"a\": 1,", "c.json").root()); }, "c.json", "",
            "valid JSON", "" },
        { "number overflow",
            [] { ComputationProfile::fromJson(jsonText(R"({"layertype_0": 1e999})", "c.json").root()); }, "c.json", "",
            "finite numbers", "overflow" },
        { "not an object", [] { ComputationProfile::fromJson(jsonText("[1, 2]", "c.json").root()); }, "c.json", "/",
            "an object", "array of 2" },
        { "negative time",
            [] { ComputationProfile::fromJson(jsonText(R"({"layertype_0_bsz1_seq2048": -4.3})", "c.json").root()); },
            "c.json", "/layertype_0_bsz1_seq2048", "a time in ms above 0 and at most 1e6", "number -4.3" },
        { "zero time", // a free layer gave a plausible plan
            [] { ComputationProfile::fromJson(jsonText(R"({"layertype_0_bsz1_seq2048": 0})", "c.json").root()); },
            "c.json", "/layertype_0_bsz1_seq2048", "a time in ms above 0 and at most 1e6", "number 0" },
        { "time beyond 1e6 ms",
            [] { ComputationProfile::fromJson(jsonText(R"({"layertype_0_bsz1_seq2048": 1e308})", "c.json").root()); },
            "c.json", "/layertype_0_bsz1_seq2048", "a time in ms above 0 and at most 1e6", "number 1e+308" },
        { "time is a string",
            [] { ComputationProfile::fromJson(jsonText(R"({"layertype_0_bsz1_seq2048": "4.3"})", "c.json").root()); },
            "c.json", "/layertype_0_bsz1_seq2048", "a number", "string \"4.3\"" },
        { "raw keys only",
            [] { ComputationProfile::fromJson(jsonText(R"({"layernum[2]_bsz8_seq2048": 86.6})", "c.json").root()); },
            "c.json", "/", "processed time keys", "1 raw" },
        { "too few batch sizes",
            [] {
                resolveTimeModels(ComputationProfile::fromJson(
                                      jsonText(R"({"layertype_0_bsz1_seq2048": 4.0, "layertype_0_bsz2_seq2048": 3.9,
                                                   "layertype_other_bsz1_seq2048": 6.0})",
                                          "c.json")
                                          .root()),
                    TimeProfileMode::Batch, 2048);
            },
            "c.json", "/layertype_0_bsz*_seq2048", "at least 8 batch sizes", "2 (bsz 1, 2)" },
        { "batch mode at an unprofiled sequence length",
            [] {
                resolveTimeModels(
                    ComputationProfile::load(galvatronFixture("computation_profiling_bf16_llama2-7b_all.json")),
                    TimeProfileMode::Batch, 4096);
            },
            "llama2-7b_all.json", "/layertype_0_bsz*_seq4096", "sequence length 4096", "none" },
        { "sequence mode on a one-sequence profile",
            [] {
                resolveTimeModels(
                    ComputationProfile::load(galvatronFixture("computation_profiling_bf16_llama2-7b_all.json")),
                    TimeProfileMode::Sequence, 32768);
            },
            "llama2-7b_all.json", "/layertype_0_bsz1_seq*", "at least 3 sequence lengths", "sequence lengths 2048" },
        { "missing parameter_size", [] { memoryModels(replaced(kMemoryOk, "\"parameter_size\": 778.0,", "")); },
            "memory.json", "/layertype_0_sp/2048/parameter_size", "key \"parameter_size\"", "nothing (key missing)" },
        { "parameter_size is a string",
            [] { memoryModels(replaced(kMemoryOk, "\"parameter_size\": 778.0", "\"parameter_size\": \"778\"")); },
            "memory.json", "/layertype_0_sp/2048/parameter_size", "a number", "string \"778\"" },
        { "zero parameter_size", [] { memoryModels(replaced(kMemoryOk, "778.0", "0")); }, "memory.json",
            "/layertype_0_sp/2048/parameter_size", "a positive number", "number 0" },
        { "negative activation", [] { memoryModels(replaced(kMemoryOk, "\"2\": 273.0", "\"2\": -273.0")); },
            "memory.json", "/layertype_0_sp/2048/tp_activation_per_bsz_dict/2", "a non-negative number",
            "number -273" },
        { "bad degree key", [] { memoryModels(replaced(kMemoryOk, "\"2\": 273.0", "\"two\": 273.0")); }, "memory.json",
            "/layertype_0_sp/2048/tp_activation_per_bsz_dict/two", "a TP degree", "key \"two\"" },
        { "TP degree the search needs", [] { memoryModels(kMemoryOk).layer.activation(8); }, "memory.json",
            "/layertype_0_sp/2048/tp_activation_per_bsz_dict/8", "degree 8", "degrees 1, 2" },
        { "vocab TP degree the search needs", [] { memoryModels(kMemoryOk).first.modelStates(4); }, "memory.json",
            "/other_memory_pp_on_first_sp/2048/model_states/4", "degree 4", "degrees 1" },
        { "checkpoint activation missing",
            [] { memoryModels(replaced(kMemoryOk, ", \"checkpoint\": 32.0", "")).layer.checkpointActivation(); },
            "memory.json", "/layertype_0_sp/2048/tp_activation_per_bsz_dict/checkpoint", "checkpointed layer",
            "nothing (key missing)" },
        { "sequence length not profiled", [] { memoryModels(kMemoryOk, 4096); }, "memory.json", "/layertype_0_sp/4096",
            "sequence length 4096", "\"2048\"" },
        { "other memory missing", [] { memoryModels(replaced(kMemoryOk, "other_memory_pp_on_last_sp", "other_last")); },
            "memory.json", "/other_memory_pp_on_last_sp", "key \"other_memory_pp_on_last_sp\"",
            "nothing (key missing)" },
        { "allreduce consec_0 missing",
            [] {
                AllreduceCoefficients::resolve(
                    AllreduceProfile::fromJson(jsonText(R"({"allreduce_size_8_consec_1": 150.0,
                        "allreduce_size_4_consec_1": 160.0, "allreduce_size_2_consec_1": 140.0,
                        "allreduce_size_2_consec_0": 140.0})",
                        "allreduce.json")
                                                   .root()),
                    8);
            },
            "allreduce.json", "/allreduce_size_4_consec_0", "strided groups of 4", "nothing (key missing)" },
        { "allreduce zero bandwidth",
            [] {
                AllreduceProfile::fromJson(jsonText(R"({"allreduce_size_8_consec_1": 0})", "allreduce.json").root());
            },
            "allreduce.json", "/allreduce_size_8_consec_1", "a positive number", "number 0" },
        { "allreduce malformed key",
            [] {
                AllreduceProfile::fromJson(jsonText(R"({"allreduce_size_8_consec": 1.0})", "allreduce.json").root());
            },
            "allreduce.json", "/allreduce_size_8_consec", "allreduce_size_{group}", "key \"allreduce_size_8_consec\"" },
        { "p2p degree the search needs",
            [] {
                P2pCoefficients::resolve(P2pProfile::load(galvatronFixture("p2p_bandwidth_1nodes_8gpus_per_node.json")))
                    .at(16);
            },
            "p2p_bandwidth_1nodes_8gpus_per_node.json", "/pp_size_16", "pipeline degree 16",
            "pipeline degrees 2, 4, 8" },
        { "overlap key missing",
            [] { OverlapProfile::fromJson(jsonText(R"({"overlap": 1.1})", "overlap.json").root()); }, "overlap.json",
            "/overlap_coe", "key \"overlap_coe\"", "nothing (key missing)" },
        { "sp_time too few sizes",
            [] { CollectiveTables::resolve(SpTimeProfile::fromJson(jsonText(spTimeWithSizes(5), "sp.json").root())); },
            "sp.json", "/allreduce_size_2_*MB_time", "at least 8 different message sizes", "5 sizes" },
        { "sp_time malformed key",
            [] { SpTimeProfile::fromJson(jsonText(R"({"allreduce_size_8_xMB_time": 0.1})", "sp.json").root()); },
            "sp.json", "/allreduce_size_8_xMB_time", "_size_{group}_{X}MB_time", "key \"allreduce_size_8_xMB_time\"" },
        { "Ulysses degree the search needs",
            [] {
                CollectiveTables::resolve(SpTimeProfile::load(galvatronFixture("sp_time_1nodes_8gpus_per_node.json")))
                    .all2allFor(16);
            },
            "sp_time_1nodes_8gpus_per_node.json", "/all2all_size_16_*MB_time", "Ulysses SP degree 16",
            "groups 2, 4, 8" },
    };
    return all;
}

} // namespace

class TestProfileErrors : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void inputErrors_data();
    void inputErrors();
    void missingFile();
};

void TestProfileErrors::inputErrors_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < cases().size(); ++i)
        QTest::newRow(cases()[i].name) << int(i);
}

void TestProfileErrors::inputErrors()
{
    QFETCH(int, index);
    const ErrorCase& c = cases()[std::size_t(index)];
    std::string message;
    QVERIFY(stratex::test::throwsInputError(c.action, c.file, c.keyPath, c.expected, c.found, &message));
    // One line that names the file.
    QVERIFY(message.find('\n') == std::string::npos);
    QVERIFY(message.find(c.file) != std::string::npos);
}

void TestProfileErrors::missingFile()
{
    try {
        ComputationProfile::load("/nonexistent/computation_profiling_bf16_x_all.json");
        QFAIL("expected an error");
    } catch (const InputError&) {
        QFAIL("a missing file is not an input error");
    } catch (const Error& error) {
        QVERIFY(
            std::string(error.what()).find("/nonexistent/computation_profiling_bf16_x_all.json") != std::string::npos);
    }
}

QTEST_GUILESS_MAIN(TestProfileErrors)
#include "tst_profile_errors.moc"
