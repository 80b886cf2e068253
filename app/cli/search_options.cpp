// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/search_options.h"

#include <filesystem>

#include "core/common/error.h"
#include "core/profile/profile_discovery.h"
#include "core/search/setting_info.h"

namespace stratex::cli {

namespace {

QString q(const char* text)
{
    return QString::fromLatin1(text);
}

std::string str(const CliParser& parser, const char* name)
{
    return parser.value(q(name)).toStdString();
}

bool zeroOrOne(const CliParser& parser, const char* name, bool fallback)
{
    return parser.choice(q(name), { QStringLiteral("0"), QStringLiteral("1") }, fallback ? q("1") : q("0"))
        == QStringLiteral("1");
}

int settleValue(const CliParser& parser, const char* name)
{
    const int value = parser.intValue(q(name), -1, -1);
    if (value == 0)
        parser.usageError(QStringLiteral("--%1 must be -1 (search all) or positive").arg(q(name)));
    return value;
}

} // namespace

QString unevenBatchHelp()
{
    return QString::fromUtf8(
        search::unevenBatchExplanation().data(), qsizetype(search::unevenBatchExplanation().size()));
}

void addSearchSettingsOptions(CliParser& parser)
{
    const auto text = [](std::string_view view) { return QString::fromUtf8(view.data(), qsizetype(view.size())); };
    for (const search::SettingInfo& info : search::searchSettingInfo()) {
        if (info.value.empty())
            parser.flag(text(info.flag), text(info.help));
        else
            parser.option(text(info.flag), text(info.value), text(info.help));
    }
}

search::SearchSettings readSearchSettings(const CliParser& parser)
{
    search::SearchSettings s;
    s.num_nodes = parser.intValue(q("num-nodes"), s.num_nodes);
    s.num_gpus_per_node = parser.intValue(q("num-gpus-per-node"), s.num_gpus_per_node);
    s.memory_constraint_gb = parser.intValue(q("memory-constraint"), s.memory_constraint_gb);
    s.min_bsz = parser.intValue(q("min-bsz"), s.min_bsz);
    s.max_bsz = parser.intValue(q("max-bsz"), s.max_bsz);
    s.bsz_scale = parser.intValue(q("bsz-scale"), s.bsz_scale);
    s.settle_bsz = settleValue(parser, "settle-bsz");
    s.settle_chunk = settleValue(parser, "settle-chunk");
    s.max_tp_deg = parser.intValue(q("max-tp-deg"), s.max_tp_deg);
    s.max_pp_deg = parser.intValue(q("max-pp-deg"), s.max_pp_deg);
    s.max_sp_deg = parser.intValue(q("max-sp-deg"), s.max_sp_deg);
    s.disable_dp = parser.isSet(q("disable-dp"));
    s.disable_tp = parser.isSet(q("disable-tp"));
    s.disable_sp = parser.isSet(q("disable-sp"));
    s.disable_pp = parser.isSet(q("disable-pp"));
    s.disable_ckpt = parser.isSet(q("disable-ckpt"));
    s.disable_fsdp = parser.isSet(q("disable-fsdp"));
    s.disable_embedding_lmhead_tp = parser.isSet(q("disable-embedding-lmhead-tp"));
    s.disable_embedding_lmhead_sp = parser.isSet(q("disable-embedding-lmhead-sp"));
    s.default_dp_type
        = *cost::parseDpType(parser.choice(q("default-dp-type"), { q("ddp"), q("zero2") }, q("zero2")).toStdString());
    s.pipeline_type = *cost::parsePipelineType(
        parser.choice(q("pipeline-type"), { q("pipedream_flush"), q("gpipe") }, q("pipedream_flush")).toStdString());
    s.async_grad_reduce = zeroOrOne(parser, "async-grad-reduce", true);
    s.mixed_precision = *cost::parseMixedPrecision(
        parser.choice(q("mixed-precision"), { q("bf16"), q("fp16"), q("fp32") }, q("bf16")).toStdString());
    s.sequence_parallel = zeroOrOne(parser, "sequence-parallel", true);
    s.global_memory_buffer = zeroOrOne(parser, "global-memory-buffer", true);
    s.time_profile_mode = *profile::parseTimeProfileMode(
        parser.choice(q("time-profile-mode"), { q("static"), q("batch"), q("sequence") }, q("sequence")).toStdString());
    s.memory_profile_mode = *profile::parseMemoryProfileMode(
        parser.choice(q("memory-profile-mode"), { q("static"), q("sequence") }, q("static")).toStdString());
    s.model.seq_length = parser.intValue(q("seq-length"), s.model.seq_length);
    s.model.hidden_size = parser.intValue(q("hidden-size"), s.model.hidden_size);
    s.model.num_layers = parser.intValue(q("num-layers"), s.model.num_layers);
    s.model.num_heads = parser.intValue(q("num-heads"), s.model.num_heads);
    s.model.vocab_size = parser.intValue(q("vocab-size"), s.model.vocab_size);
    if (parser.isSet(q("model-name")))
        s.model.name = str(parser, "model-name");
    s.uneven_batch = *search::parseUnevenBatch(
        parser.choice(q("uneven-batch"), { q("honest"), q("skip"), q("galvatron") }, q("honest")).toStdString());
    s.costmodel_coe = parser.doubleValue(q("costmodel-coe"), s.costmodel_coe);
    if (!(s.costmodel_coe > 0))
        parser.usageError(q("--costmodel-coe must be positive"));
    s.validate();
    return s;
}

void addProfileOptions(CliParser& parser)
{
    parser.option(q("profiles"), q("DIR"),
        q("Directory with computation_profiling_*.json and memory_profiling_*.json (recognised by name); also "
          "searched for the hardware files when --hardware is not given. A set made by 'stratex-cli profile synth' "
          "also supplies the model shape, sequence length, cluster and precision unless given."));
    parser.option(q("hardware"), q("DIR"),
        q("Directory with allreduce_bandwidth_{N}nodes_{G}gpus_per_node.json, p2p_bandwidth_..., sp_time_... and "
          "overlap_coefficient.json."));
    parser.option(q("computation"), q("FILE"), q("Computation profile (instead of discovery)."));
    parser.option(q("memory"), q("FILE"), q("Memory profile."));
    parser.option(q("allreduce"), q("FILE"), q("All-reduce bandwidth file."));
    parser.option(q("p2p"), q("FILE"), q("P2P bandwidth file."));
    parser.option(q("overlap"), q("FILE"), q("Overlap coefficient file."));
    parser.option(q("sp-time"), q("FILE"), q("TP/SP collective latency file (sp_time_*.json)."));
}

search::SearchInputs loadSearchInputs(const CliParser& parser, search::SearchSettings& settings)
{
    profile::ProfileDiscovery request;
    if (parser.isSet(q("profiles")))
        request.profilesDir = str(parser, "profiles");
    if (parser.isSet(q("hardware")))
        request.hardwareDir = str(parser, "hardware");
    if (parser.isSet(q("model-name")))
        request.modelName = str(parser, "model-name");
    const auto given = [&](const char* name) {
        return parser.isSet(q(name)) ? std::filesystem::path(str(parser, name)) : std::filesystem::path();
    };
    request.given.computation = given("computation");
    request.given.memory = given("memory");
    request.given.allreduce = given("allreduce");
    request.given.p2p = given("p2p");
    request.given.overlap = given("overlap");
    request.given.spTime = given("sp-time");
    search::ExplicitSettings explicitSettings;
    explicitSettings.seqLength = parser.isSet(q("seq-length"));
    explicitSettings.modelName = parser.isSet(q("model-name"));
    explicitSettings.numLayers = parser.isSet(q("num-layers"));
    explicitSettings.hiddenSize = parser.isSet(q("hidden-size"));
    explicitSettings.numHeads = parser.isSet(q("num-heads"));
    explicitSettings.vocabSize = parser.isSet(q("vocab-size"));
    explicitSettings.numNodes = parser.isSet(q("num-nodes"));
    explicitSettings.gpusPerNode = parser.isSet(q("num-gpus-per-node"));
    explicitSettings.mixedPrecision = parser.isSet(q("mixed-precision"));
    return search::loadSearchInputs(request, settings, explicitSettings);
}

} // namespace stratex::cli
