// SPDX-License-Identifier: GPL-3.0-or-later
// Multi-token prediction (ModelDescription::mtp_num_layers; docs/moe.md, "Multi-token
// prediction"): each module is a decoder layer of the last layer's kind, a 2h -> h projection with
// its norms, an embedding lookup and one more pass through the shared LM head, all on the last
// pipeline chunk (Megatron-LM multi_token_prediction.py @ d98e8a64); the Megatron exports write
// --mtp-num-layers and put "m" before the loss of a layout string.
#include <QtTest>

#include "core/common/json_reader.h"
#include "core/export/megatron_flags.h"
#include "core/megatron/pipeline_costs.h"
#include "core/megatron/strategy_search_space.h"
#include "core/model/model_json.h"
#include "core/model/model_presets.h"

#include "support/cost_model_fixtures.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

ParallelStrategy strategy(int pp, int vpp)
{
    ParallelStrategy s;
    s.tp = 2;
    s.pp = pp;
    s.vpp = vpp;
    s.dp = 64 / (2 * pp);
    s.ep = 8;
    s.sequence_parallel = true;
    s.zero = 1;
    s.schedule = vpp > 1 ? PipelineSchedule::Interleaved : PipelineSchedule::OneFOneB;
    s.global_batch_size = 256;
    return s;
}

model::ModelDescription withMtp(model::ModelDescription m, int mtp)
{
    m.mtp_num_layers = mtp;
    return m;
}

} // namespace

class TestMtp : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The last chunk gains, per module, one last-kind layer, the projection, the embedding lookup and
    // a head pass (time), that layer's and the projection's weights (plus the embedding's copy when
    // untied and pipelined), and one more set of logits; no other chunk moves.
    void lastChunkCarriesTheModules_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("mtp");
        QTest::newRow("deepseek-v3-style, pp 8 vpp 4, 1 module") << "deepseek-v3-style" << 8 << 4 << 1;
        QTest::newRow("deepseek-v3-style, pp 4, 2 modules") << "deepseek-v3-style" << 4 << 1 << 2;
        QTest::newRow("deepseek-v3-style, pp 1, 1 module") << "deepseek-v3-style" << 1 << 1 << 1;
        QTest::newRow("llama3-8b (dense), pp 2, 1 module") << "llama3-8b" << 2 << 1 << 1;
    }
    void lastChunkCarriesTheModules()
    {
        QFETCH(QString, preset);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, mtp);
        const model::ModelDescription base = withMtp(model::modelPreset(preset.toStdString()), 0);
        ParallelStrategy s = strategy(pp, vpp);
        if (!base.moe)
            s.ep = 1;
        const hardware::HardwareModel hw = test::gpus("h100-80gb", 8);
        const std::vector<int> stages = stageLayerCounts(s, base.num_layers);
        const PipelineCosts without = pipelineCosts(base, s, hw, stages);
        const model::ModelDescription model = withMtp(base, mtp);
        const PipelineCosts with = pipelineCosts(model, s, hw, stages);
        QCOMPARE(with.chunks.size(), without.chunks.size());
        for (std::size_t c = 0; c + 1 < with.chunks.size(); ++c) {
            QCOMPARE(with.chunks[c].forward_s, without.chunks[c].forward_s);
            QCOMPARE(with.chunks[c].dense_params, without.chunks[c].dense_params);
        }
        const LayerCostMemo::Costs layers = layerCosts(model, s, hw);
        const LayerCost& last = model.isMoeLayer(model.num_layers - 1) ? layers.moe : layers.dense;
        const MtpProjectionCost projection = mtpProjectionCost(model, s, hw);
        const EndCosts& end = with.end;
        const double forward = mtp * (last.forwardS({}) + projection.forward_s + end.head_forward_s + end.embedding_forward_s);
        QVERIFY(projection.forward_s > 0 && projection.params > 0);
        QVERIFY(qAbs(with.chunks.back().forward_s - without.chunks.back().forward_s - forward) <= 1e-9 * forward);
        QVERIFY(with.chunks.back().backward_s > without.chunks.back().backward_s);
        QVERIFY(with.chunks.back().activation_bytes > without.chunks.back().activation_bytes);
        const double embedding = pp > 1 && !model.tied_embeddings ? double(model.vocab_size) * model.hidden_size / s.tp : 0;
        const double params = with.chunks.back().dense_params - without.chunks.back().dense_params;
        QVERIFY(params > embedding + mtp * projection.params); // and the layer's own weights
        if (model.moe)
            QVERIFY(with.chunks.back().expert_params > without.chunks.back().expert_params);
        QCOMPARE(end.logits_bytes, (1 + mtp) * without.end.logits_bytes);
    }

    // The layout string: "m" (or "m*n") before the loss of the last chunk, none without MTP.
    void layoutNamesTheModules_data()
    {
        QTest::addColumn<QList<int>>("chunks");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("mtp");
        QTest::addColumn<QString>("layout");
        QTest::newRow("Bridge's DeepSeek-V3 H100 shape, shortened")
            << QList<int> { 1, 2, 2, 2, 2, 2, 2, 0 } << 4 << 1 << "Et|t*2|t*2|t*2|t*2|t*2|t*2|mL";
        QTest::newRow("two modules") << QList<int> { 3, 5, 4, 2 } << 4 << 2 << "Et*3|t*5|t*4|t*2m*2L";
        QTest::newRow("no MTP") << QList<int> { 3, 5, 4, 2 } << 4 << 0 << "Et*3|t*5|t*4|t*2L";
    }
    void layoutNamesTheModules()
    {
        QFETCH(QList<int>, chunks);
        QFETCH(int, pp);
        QFETCH(int, mtp);
        QFETCH(QString, layout);
        const std::vector<int> layers(chunks.begin(), chunks.end());
        QCOMPARE(QString::fromStdString(exporting::megatronPipelineLayout(layers, pp, mtp).layout), layout);
    }

    // The search's pipeline divisions: with MTP also a lighter last stage, as Megatron-Bridge's
    // DeepSeek-V3 layouts have it (first, last; 0 is an even share).
    void searchTriesLighterLastStages_data()
    {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("mtp");
        QTest::addColumn<QString>("layouts");
        QTest::newRow("pp 8, no MTP (0/7 is the even split)") << 8 << 0 << "0/0 7/7";
        QTest::newRow("pp 8, 1 module (Bridge: 7/6 with VPP, 5 last without)") << 8 << 1 << "0/0 7/7 0/5 7/6";
        QTest::newRow("pp 4, 1 module (Bridge: 13 last)") << 4 << 1 << "0/0 15/15 0/13 15/14";
        QTest::newRow("pp 16, 2 modules (4 - 1 - 4 < 1: only 3/1)") << 16 << 2 << "0/0 3/3 3/1";
    }
    void searchTriesLighterLastStages()
    {
        QFETCH(int, pp);
        QFETCH(int, mtp);
        QFETCH(QString, layouts);
        QStringList got;
        for (const auto& [first, last] : searchLayouts(pp, 61, true, mtp))
            got << QString::number(first) + "/" + QString::number(last);
        QCOMPARE(got.join(' '), layouts);
    }

    // --mtp-num-layers with the model's count; nothing without.
    void megatronFlag_data()
    {
        QTest::addColumn<int>("mtp");
        QTest::newRow("none") << 0;
        QTest::newRow("one") << 1;
        QTest::newRow("three") << 3;
    }
    void megatronFlag()
    {
        QFETCH(int, mtp);
        exporting::MegatronArgumentList args;
        exporting::addMegatronModelArguments(args, withMtp(model::modelPreset("deepseek-v3-style"), mtp));
        std::optional<std::string> value;
        for (const auto& [flag, v] : args)
            if (flag == "--mtp-num-layers")
                value = v;
        QCOMPARE(value.has_value(), mtp > 0);
        if (value)
            QCOMPARE(*value, std::to_string(mtp));
    }

    // The model JSON: written only when set, read back, and out of range named with its key.
    void modelJson_data()
    {
        QTest::addColumn<int>("mtp");
        QTest::addColumn<QString>("error"); // part of the message; "" when it reads
        QTest::newRow("1") << 1 << "";
        QTest::newRow("0 (unwritten)") << 0 << "";
        QTest::newRow("-1") << -1 << "mtp_num_layers";
        QTest::newRow("more than the layers") << 62 << "mtp_num_layers";
    }
    void modelJson()
    {
        QFETCH(int, mtp);
        QFETCH(QString, error);
        model::ModelDescription m = model::modelPreset("deepseek-v3-style");
        nlohmann::ordered_json json = model::toJson(m);
        json["mtp_num_layers"] = mtp;
        try {
            const JsonDocument document = JsonDocument::parse(json.dump(), "model.json");
            const model::ModelDescription read = model::readModel(document.root());
            QVERIFY2(error.isEmpty(), "read a bad count");
            QCOMPARE(read.mtp_num_layers, mtp);
            QCOMPARE(model::toJson(read).contains("mtp_num_layers"), mtp != 0);
        } catch (const std::exception& e) {
            QVERIFY2(!error.isEmpty() && QString::fromUtf8(e.what()).contains(error), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestMtp)
#include "tst_mtp.moc"
