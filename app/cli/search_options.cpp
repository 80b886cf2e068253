// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/search_options.h"

#include <filesystem>

#include "app/cli/cli_output.h"
#include "app/cli/setting_options.h"
#include "core/model/hf_config.h"
#include "core/profile/profile_discovery.h"
#include "core/galvatron/search_setting_table.h"
#include "core/galvatron/synthesized_inputs.h"

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

} // namespace

void addSearchSettingsOptions(CliParser& parser)
{
    addSettingOptions(parser, galvatron::searchSettingTable());
}

galvatron::SearchSettings readGivenSearchSettings(const CliParser& parser, settings::SettingNames& given)
{
    galvatron::SearchSettings settings;
    given = readSettingOptions(parser, galvatron::searchSettingTable(), settings);
    return settings;
}

void addModelOptions(CliParser& parser)
{
    addSettingOptions(parser, galvatron::modelSettingTable());
    addHfConfigOption(parser);
}

void addHfConfigOption(CliParser& parser)
{
    parser.option(q("hf-config"), q("FILE"),
        q("A Hugging Face config.json (Llama 2/3/4, Mistral, Mixtral, Qwen 2/2.5/3 and their MoE, DeepSeek-V2/V3, "
          "Gemma, Nemotron, GPT-NeoX, GPT-2) as the model, instead of --model PRESET; the other model flags "
          "override its fields. Its sequence length is the pre-training one (--seq-length overrides it)."));
}

std::optional<model::ModelDescription> readHfConfigOption(const CliParser& parser)
{
    if (!parser.isSet(q("hf-config")))
        return std::nullopt;
    if (parser.isSet(q("model")))
        parser.usageError(q("give the model by --model PRESET or by --hf-config FILE, not both"));
    const model::HfModel hf = model::readHfConfigFile(str(parser, "hf-config"));
    for (const std::string& note : hf.notes)
        printErr("warning: " + str(parser, "hf-config") + ": " + note + "\n");
    return hf.model;
}

galvatron::ModelSettings readModelOptions(const CliParser& parser, settings::SettingNames& given)
{
    galvatron::ModelSettings model;
    if (std::optional<model::ModelDescription> fromConfig = readHfConfigOption(parser)) {
        model.preset = fromConfig->name;
        model.model = *fromConfig;
        model.from_config = std::move(fromConfig);
    }
    given = readSettingOptions(parser, galvatron::modelSettingTable(), model);
    if (model.from_config)
        given.insert("model");
    return model;
}

galvatron::StrategyRun readStrategyRun(const CliParser& parser, const galvatron::StrategyFile& strategy)
{
    settings::SettingNames given;
    const galvatron::SearchSettings flags = readGivenSearchSettings(parser, given);
    settings::SettingNames givenModel;
    const galvatron::ModelSettings model = readModelOptions(parser, givenModel);
    galvatron::StrategyRun run = galvatron::resolveStrategyRun(strategy, flags, given, model, givenModel);
    for (const std::string& warning : run.warnings)
        printErr("warning: " + warning + "\n");
    run.settings.validate();
    return run;
}

bool hasProfileOptions(const CliParser& parser)
{
    for (const char* name :
        { "profiles", "hardware", "computation", "memory", "allreduce", "p2p", "overlap", "sp-time" }) {
        if (parser.isSet(q(name)))
            return true;
    }
    return false;
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

galvatron::SearchInputs loadSearchInputs(const CliParser& parser, galvatron::SearchSettings& settings)
{
    return loadSearchInputs(parser, settings, givenSettingOptions(parser, galvatron::searchSettingTable()));
}

galvatron::SearchInputs loadSearchInputs(
    const CliParser& parser, galvatron::SearchSettings& settings, const settings::SettingNames& given)
{
    profile::ProfileDiscovery request;
    if (parser.isSet(q("profiles")))
        request.profilesDir = str(parser, "profiles");
    if (parser.isSet(q("hardware")))
        request.hardwareDir = str(parser, "hardware");
    if (parser.isSet(q("model-name")))
        request.modelName = str(parser, "model-name");
    const auto file = [&](const char* name) {
        return parser.isSet(q(name)) ? std::filesystem::path(str(parser, name)) : std::filesystem::path();
    };
    request.given.computation = file("computation");
    request.given.memory = file("memory");
    request.given.allreduce = file("allreduce");
    request.given.p2p = file("p2p");
    request.given.overlap = file("overlap");
    request.given.spTime = file("sp-time");
    return galvatron::loadSearchInputs(request, settings, given);
}

std::shared_ptr<const galvatron::CostModel> strategyCostModel(
    const CliParser& parser, galvatron::StrategyRun& run, std::string& why)
{
    if (hasProfileOptions(parser)) {
        const galvatron::SearchInputs inputs = loadSearchInputs(parser, run.settings, run.settled);
        return std::make_shared<const galvatron::CostModel>(galvatron::buildCostModel(inputs, run.settings));
    }
    if (run.model.model && run.cluster) {
        const galvatron::SearchInputs inputs
            = galvatron::synthesizedInputs(*run.model.model, *run.cluster, run.settings.mixed_precision);
        return std::make_shared<const galvatron::CostModel>(galvatron::buildCostModel(inputs, run.settings));
    }
    why = "no --profiles, and the strategy file carries no model and cluster to estimate them from";
    return nullptr;
}

} // namespace stratex::cli
