// SPDX-License-Identifier: GPL-3.0-or-later
// DynaPipe's JSON cost model: profiled points reproduce exactly, linear interpolation inside
// the grid, linear extrapolation below it, infeasible (never a throw) above it and at OOM
// points, the documented example values, encoder-decoder grids, merging and every input error.
#include <cmath>

#include <QTest>

#include "core/common/error.h"
#include "core/planner/dynapipe_cost_model.h"

#include "planner_test_fixtures.h"

using namespace stratex;
using namespace stratex::planner;

namespace {

LayerCostEstimate at(const LayerCostModel& model, int mbs, int seqlen, RecomputeType rc = RecomputeType::None,
    int decoderSeqlen = 0, int tp = 1)
{
    LayerCostQuery query;
    query.micro_batch_size = mbs;
    query.seqlen = seqlen;
    query.decoder_seqlen = decoderSeqlen;
    query.tp = tp;
    query.recompute = rc;
    return model.estimate(query);
}

// The raw profiled value of the GPT fixture, straight from the JSON.
double profiled(const char* sub, const char* table, const char* key, int seqlen, int mbs)
{
    static const JsonDocument document = JsonDocument::load(test::dynapipeFixture("gpt_6.7b_cost_model.json"));
    const JsonView rows = document.root()["cost_models"][sub][table][key][std::to_string(seqlen)];
    for (const JsonView& row : rows.elements()) {
        if (row.at(0).positiveInt() == mbs)
            return row.at(1).number();
    }
    return std::nan("");
}

const char* kMinimalModel = R"({"cost_models": {"tp1_none": {
  "timing_ms": {"encoder|forward": {"16": [[1, 1.0, 0]]}, "encoder|backward": {"16": [[1, 2.0, 0]]},
                "postprocess|forward": {"16": [[1, 0.5, 0]]}, "postprocess|backward": {"16": [[1, 0.5, 0]]}},
  "stored_activation_mb": {"encoder": {"16": [[1, 10]]}},
  "peak_activation_mb": {"encoder": {"16": [[1, 20]]}},
  "model_state_param_mb": {"embedding": 5, "encoder": 7}}}})";

} // namespace

class TestDynapipeCostModel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void loadsAllSubModels();
    void profiledPointsAreExact();
    void documentedExamples_data();
    void documentedExamples();
    void interpolatesLinearly_data();
    void interpolatesLinearly();
    void extrapolatesBelowTheGrid();
    void infeasibleAboveTheGridOrAtOom_data();
    void infeasibleAboveTheGridOrAtOom();
    void unsupportedSubModelThrows();
    void encoderDecoderGrids();
    void mergesFilesAndRejectsDuplicates();
    void repeatedPointsKeepTheLargestValue();
    void malformedInput_data();
    void malformedInput();
};

void TestDynapipeCostModel::loadsAllSubModels()
{
    const DynapipeCostModel& model = test::gptCostModel();
    QCOMPARE(model.architecture(), ModelArchitecture::DecoderOnly);
    QCOMPARE(model.tensorParallelSizes(), (std::vector<int> { 1, 2, 4, 8 }));
    for (int tp : { 1, 2, 4, 8 })
        QCOMPARE(model.recomputeTypes(tp).size(), std::size_t(3));
    QVERIFY(!model.supports(16, RecomputeType::None));
    const ModelParameterSizes params = model.parameterSizes(1, RecomputeType::None);
    QCOMPARE(params.embedding_param_mb, 417.6559722222221);
    QCOMPARE(params.encoder_layer_param_mb, 402.77055555555586);
    QCOMPARE(params.decoder_layer_param_mb, 0.0);
}

void TestDynapipeCostModel::profiledPointsAreExact()
{
    // Every profiled point of one table comes back unchanged (weights 0/1 at grid points).
    const JsonDocument document = JsonDocument::load(test::dynapipeFixture("gpt_6.7b_cost_model.json"));
    const char* tables[][2] = { { "timing_ms", "encoder|forward" }, { "timing_ms", "encoder|backward" },
        { "stored_activation_mb", "encoder" }, { "peak_activation_mb", "encoder" } };
    int checked = 0;
    for (const auto& [table, key] : tables) {
        for (const auto& [seqlen, rows] : document.root()["cost_models"]["tp2_selective"][table][key].members()) {
            for (const JsonView& row : rows.elements()) {
                const LayerCostEstimate e = at(
                    test::gptCostModel(), row.at(0).positiveInt(), std::stoi(seqlen), RecomputeType::Selective, 0, 2);
                const double value = std::string(key) == "encoder|forward" ? e.encoder.forward_ms
                    : std::string(key) == "encoder|backward"               ? e.encoder.backward_ms
                    : std::string(table) == "stored_activation_mb"         ? e.encoder.stored_activation_mb
                                                                           : e.encoder.peak_activation_mb;
                QCOMPARE(value, row.at(1).number());
                ++checked;
            }
        }
    }
    QVERIFY(checked > 300);
}

void TestDynapipeCostModel::documentedExamples_data()
{
    QTest::addColumn<int>("rc");
    QTest::addColumn<double>("forward");
    QTest::addColumn<double>("backward");
    QTest::addColumn<double>("stored");
    QTest::addColumn<double>("peak");
    // docs/dynapipe-planner.md §5 (tp1, seqlen 512, mbs 1); NaN = not documented.
    QTest::newRow("none") << int(RecomputeType::None) << 1.66 << 2.49 << 115.08 << 456.37;
    QTest::newRow("full") << int(RecomputeType::Full) << std::nan("") << 3.85 << 6.02 << std::nan("");
    QTest::newRow("selective") << int(RecomputeType::Selective) << std::nan("") << std::nan("") << 73.13
                               << std::nan("");
}

void TestDynapipeCostModel::documentedExamples()
{
    QFETCH(int, rc);
    QFETCH(double, forward);
    QFETCH(double, backward);
    QFETCH(double, stored);
    QFETCH(double, peak);
    const LayerCostEstimate e = at(test::gptCostModel(), 1, 512, RecomputeType(rc));
    QVERIFY(e.feasible());
    if (!std::isnan(forward))
        QCOMPARE(e.encoder.forward_ms, forward);
    if (!std::isnan(backward))
        QCOMPARE(e.encoder.backward_ms, backward);
    QCOMPARE(e.encoder.stored_activation_mb, stored);
    if (!std::isnan(peak))
        QCOMPARE(e.encoder.peak_activation_mb, peak);
}

void TestDynapipeCostModel::interpolatesLinearly_data()
{
    QTest::addColumn<int>("mbs");
    QTest::addColumn<int>("seqlen");
    QTest::addColumn<int>("mbsLow");
    QTest::addColumn<int>("mbsHigh");
    QTest::addColumn<int>("seqLow");
    QTest::addColumn<int>("seqHigh");
    QTest::newRow("mbs-3-of-2..4") << 3 << 512 << 2 << 4 << 512 << 512;
    QTest::newRow("seqlen-768-of-512..1024") << 1 << 768 << 1 << 1 << 512 << 1024;
    QTest::newRow("bilinear-6x300") << 6 << 300 << 4 << 8 << 256 << 512;
    QTest::newRow("bilinear-5x1432") << 5 << 1432 << 4 << 8 << 1024 << 2048;
}

void TestDynapipeCostModel::interpolatesLinearly()
{
    QFETCH(int, mbs);
    QFETCH(int, seqlen);
    QFETCH(int, mbsLow);
    QFETCH(int, mbsHigh);
    QFETCH(int, seqLow);
    QFETCH(int, seqHigh);
    // Independent bilinear formula over the raw profiled corners.
    const double wm = mbsHigh == mbsLow ? 0 : double(mbs - mbsLow) / (mbsHigh - mbsLow);
    const double ws = seqHigh == seqLow ? 0 : double(seqlen - seqLow) / (seqHigh - seqLow);
    auto bilinear = [&](const char* table, const char* key) {
        return (1 - wm) * (1 - ws) * profiled("tp1_none", table, key, seqLow, mbsLow)
            + (1 - wm) * ws * profiled("tp1_none", table, key, seqHigh, mbsLow)
            + wm * (1 - ws) * profiled("tp1_none", table, key, seqLow, mbsHigh)
            + wm * ws * profiled("tp1_none", table, key, seqHigh, mbsHigh);
    };
    const LayerCostEstimate e = at(test::gptCostModel(), mbs, seqlen);
    QVERIFY(e.feasible());
    QVERIFY(std::fabs(e.encoder.forward_ms - bilinear("timing_ms", "encoder|forward")) < 1e-9);
    QVERIFY(std::fabs(e.encoder.backward_ms - bilinear("timing_ms", "encoder|backward")) < 1e-9);
    QVERIFY(std::fabs(e.encoder.stored_activation_mb - bilinear("stored_activation_mb", "encoder")) < 1e-9);
    QVERIFY(std::fabs(e.encoder.peak_activation_mb - bilinear("peak_activation_mb", "encoder")) < 1e-9);
    QVERIFY(std::fabs(e.postprocess_forward_ms - bilinear("timing_ms", "postprocess|forward")) < 1e-9);
}

void TestDynapipeCostModel::extrapolatesBelowTheGrid()
{
    // seqlen 8 lies below the first profiled length 16: the [16, 32] interval is extended.
    const double v16 = profiled("tp1_none", "timing_ms", "encoder|forward", 16, 2);
    const double v32 = profiled("tp1_none", "timing_ms", "encoder|forward", 32, 2);
    const LayerCostEstimate e = at(test::gptCostModel(), 2, 8);
    QVERIFY(e.feasible());
    QVERIFY(std::fabs(e.encoder.forward_ms - (1.5 * v16 - 0.5 * v32)) < 1e-12);
    const double s16 = profiled("tp1_none", "stored_activation_mb", "encoder", 16, 2);
    const double s32 = profiled("tp1_none", "stored_activation_mb", "encoder", 32, 2);
    QVERIFY(std::fabs(e.encoder.stored_activation_mb - (1.5 * s16 - 0.5 * s32)) < 1e-9);
}

void TestDynapipeCostModel::infeasibleAboveTheGridOrAtOom_data()
{
    QTest::addColumn<int>("mbs");
    QTest::addColumn<int>("seqlen");
    QTest::addColumn<bool>("feasible");
    QTest::newRow("last-profiled-512") << 64 << 512 << true;
    QTest::newRow("oom-point-128x512") << 128 << 512 << false;
    QTest::newRow("between-64-and-oom") << 65 << 512 << false;
    QTest::newRow("longest-profiled") << 1 << 8192 << true;
    QTest::newRow("beyond-longest") << 1 << 9000 << false;
    QTest::newRow("far-beyond") << 1 << 100000 << false;
    QTest::newRow("mbs-beyond-all") << 5000 << 16 << false;
    QTest::newRow("oom-2x6144") << 2 << 6144 << false;
}

void TestDynapipeCostModel::infeasibleAboveTheGridOrAtOom()
{
    QFETCH(int, mbs);
    QFETCH(int, seqlen);
    QFETCH(bool, feasible);
    const LayerCostEstimate e = at(test::gptCostModel(), mbs, seqlen);
    QCOMPARE(e.feasible(), feasible);
    if (!feasible) {
        QVERIFY(std::isinf(e.encoder.forward_ms) && e.encoder.forward_ms > 0);
        QVERIFY(!e.encoder.memoryFeasible());
    }
}

void TestDynapipeCostModel::unsupportedSubModelThrows()
{
    QVERIFY_THROWS_EXCEPTION(Error, at(test::gptCostModel(), 1, 512, RecomputeType::None, 0, 16));
    QVERIFY_THROWS_EXCEPTION(Error, at(test::t5CostModel(), 1, 512, RecomputeType::Selective, 128));
}

void TestDynapipeCostModel::encoderDecoderGrids()
{
    const DynapipeCostModel& t5 = test::t5CostModel();
    QCOMPARE(t5.architecture(), ModelArchitecture::EncoderDecoder);
    QVERIFY(t5.supports(1, RecomputeType::None) && t5.supports(1, RecomputeType::Full));
    // Profiled decoder point "512,128" mbs 4 (from the file) and its 3-D interpolation.
    const LayerCostEstimate e = at(t5, 4, 512, RecomputeType::None, 128);
    QVERIFY(e.feasible());
    QCOMPARE(e.decoder.forward_ms, 3.67);
    const LayerCostEstimate mid = at(t5, 4, 512, RecomputeType::None, 192);
    const LayerCostEstimate hi = at(t5, 4, 512, RecomputeType::None, 256);
    QVERIFY(std::fabs(mid.decoder.forward_ms - (e.decoder.forward_ms + hi.decoder.forward_ms) / 2) < 1e-12);
    // The LM head is keyed by the decoder length.
    const LayerCostEstimate otherEncoder = at(t5, 4, 1024, RecomputeType::None, 128);
    QCOMPARE(otherEncoder.postprocess_forward_ms, e.postprocess_forward_ms);
    QVERIFY(t5.parameterSizes(1, RecomputeType::None).decoder_layer_param_mb > 500);
}

void TestDynapipeCostModel::mergesFilesAndRejectsDuplicates()
{
    const std::filesystem::path none = test::dynapipeFixture("t5_11b_cost_model_tp1_none.json");
    const std::filesystem::path gpt = test::dynapipeFixture("gpt_6.7b_cost_model.json");
    QVERIFY_THROWS_EXCEPTION(Error, DynapipeCostModel::load(std::vector<std::filesystem::path> { none, none }));
    QVERIFY_THROWS_EXCEPTION(Error, DynapipeCostModel::load(std::vector<std::filesystem::path> { none, gpt }));
    QCOMPARE(test::t5CostModel().subModelList(), std::string("tp1_none, tp1_full"));
}

void TestDynapipeCostModel::repeatedPointsKeepTheLargestValue()
{
    QString text = QString::fromUtf8(kMinimalModel);
    text.replace(QStringLiteral("[[1, 20]]"), QStringLiteral("[[1, 21], [1, 25], [1, 20]]"));
    const DynapipeCostModel model = DynapipeCostModel::fromJson(JsonDocument::parse(text.toStdString(), "m").root());
    QCOMPARE(at(model, 1, 16).encoder.peak_activation_mb, 25.0);
    // The T5 fixture repeats each encoder point once per decoder length: the largest is used.
    QCOMPARE(at(test::t5CostModel(), 1, 16, RecomputeType::None, 16).encoder.forward_ms, 2.11);
}

void TestDynapipeCostModel::malformedInput_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("keyPath");
    const QString good = QString::fromUtf8(kMinimalModel);
    auto variant = [&](const char* from, const char* to) {
        QString text = good;
        text.replace(QString::fromUtf8(from), QString::fromUtf8(to));
        return text;
    };
    QTest::newRow("not-an-object") << QStringLiteral("[1]") << QStringLiteral("/");
    QTest::newRow("no-cost-models") << QStringLiteral("{\"model\": \"x\"}") << QStringLiteral("/cost_models");
    QTest::newRow("bad-sub-model-key") << variant("tp1_none", "tpX_none") << QStringLiteral("/cost_models/tpX_none");
    QTest::newRow("bad-rc") << variant("tp1_none", "tp1_partial") << QStringLiteral("/cost_models/tp1_partial");
    QTest::newRow("missing-backward") << variant("encoder|backward", "encoder|bwd")
                                      << QStringLiteral("/cost_models/tp1_none/timing_ms/encoder|backward");
    QTest::newRow("bad-seqlen-key") << variant("\"encoder\": {\"16\": [[1, 10]]}", "\"encoder\": {\"x\": [[1, 10]]}")
                                    << QStringLiteral("/cost_models/tp1_none/stored_activation_mb/encoder/x");
    QTest::newRow("zero-mbs") << variant("[[1, 20]]", "[[0, 20]]")
                              << QStringLiteral("/cost_models/tp1_none/peak_activation_mb/encoder/16/0/0");
    QTest::newRow("text-value") << variant("[[1, 20]]", "[[1, \"a\"]]")
                                << QStringLiteral("/cost_models/tp1_none/peak_activation_mb/encoder/16/0/1");
    QTest::newRow("empty-table") << variant("\"encoder\": {\"16\": [[1, 20]]}", "\"encoder\": {}")
                                 << QStringLiteral("/cost_models/tp1_none/peak_activation_mb/encoder");
    QTest::newRow("negative-param") << variant("\"embedding\": 5", "\"embedding\": -5")
                                    << QStringLiteral("/cost_models/tp1_none/model_state_param_mb/embedding");
}

void TestDynapipeCostModel::malformedInput()
{
    QFETCH(QString, text);
    QFETCH(QString, keyPath);
    // The unmodified minimal model loads.
    QCOMPARE(DynapipeCostModel::fromJson(JsonDocument::parse(kMinimalModel, "good.json").root()).name(),
        std::string("good.json"));
    try {
        DynapipeCostModel::fromJson(JsonDocument::parse(text.toStdString(), "bad.json").root());
        QFAIL("no error");
    } catch (const InputError& error) {
        QCOMPARE(QString::fromStdString(error.file()), QStringLiteral("bad.json"));
        QCOMPARE(QString::fromStdString(error.keyPath()), keyPath);
    }
}

QTEST_GUILESS_MAIN(TestDynapipeCostModel)
#include "tst_dynapipe_cost_model.moc"
