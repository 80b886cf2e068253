// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli profile synth: a complete Galvatron-format profile set, estimated from a model's
// shape and a GPU's datasheet, for exploring strategies without GPUs at hand.
#include <cmath>

#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/search_options.h"
#include "app/cli/setting_options.h"
#include "core/common/number_format.h"
#include "core/hardware/cluster_json.h"
#include "core/profile/synth/profile_synthesizer.h"
#include "core/profile/synth/synthesis_settings.h"
#include "core/profile/synth/transformer_estimates.h"

namespace stratex::cli {

namespace {

using namespace profile::synth;
using namespace hardware;

QString q(const char* text)
{
    return QString::fromLatin1(text);
}

QString presetNames(const auto& presets)
{
    QStringList names;
    for (const auto& preset : presets)
        names << QString::fromStdString(preset.name);
    return names.join(QStringLiteral(", "));
}

void addOptions(CliParser& parser)
{
    addSettingOptions(parser, synthesisSettingTable());
    addHfConfigOption(parser);
    parser.option(q("cluster"), q("FILE"),
        q("Cluster file (what 'stratex-cli calibrate' writes, or a file with a \"cluster\" key): its GPU figures, "
          "shape and calibrated efficiencies; the GPU and cluster options given beside it override its values."));
    parser.option(q("seq-lengths"), q("S1,S2,..."),
        q("Sequence lengths the files hold (default: the model's and 1/4, 1/2, 3/4 of it)."));
    parser.option(q("out"), q("DIR"), q("Directory to write the profile set into (created if missing)."));
    parser.flag(q("list"), q("List the model and GPU presets and exit."));
    parser.flag(q("json"), q("Print JSON instead of text."));
}

std::vector<int> readSeqLengths(const CliParser& parser)
{
    std::vector<int> seqs;
    if (!parser.isSet(q("seq-lengths")))
        return seqs;
    for (const QString& part : parser.value(q("seq-lengths")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const int seq = part.trimmed().toInt(&ok);
        if (!ok || seq <= 0)
            parser.usageError(q("--seq-lengths expects positive integers separated by commas, got \"%1\"").arg(part));
        seqs.push_back(seq);
    }
    return seqs;
}

nlohmann::ordered_json presetsJson()
{
    nlohmann::ordered_json models = nlohmann::ordered_json::array();
    for (const model::ModelDescription& m : model::modelPresets())
        models.push_back({ { "name", m.name }, { "num_layers", m.num_layers }, { "hidden_size", m.hidden_size },
            { "ffn_hidden_size", m.ffn_hidden_size }, { "num_heads", m.num_heads }, { "num_kv_heads", m.num_kv_heads },
            { "vocab_size", m.vocab_size }, { "seq_length", m.seq_length } });
    nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
    for (const GpuDescription& g : gpuPresets())
        gpus.push_back({ { "name", g.name }, { "peak_tflops", g.peak_tflops }, { "memory_gb", g.memory_gb },
            { "nvlink_gbps", g.intra_node_bus_gb_per_s }, { "network_gbps", g.network_gb_per_s_per_gpu } });
    return { { "models", models }, { "gpus", gpus } };
}

int runSynth(const QStringList& args)
{
    CliParser parser(q("profile synth"),
        q("Writes a complete Galvatron-format profile set (computation, memory, all-reduce, p2p, overlap and "
          "sp_time files, named as Galvatron names them) estimated from a model's shape and a GPU's datasheet "
          "figures, plus stratex_synthesis.json, which records the inputs and marks the set as estimated. "
          "'stratex-cli search --profiles DIR' reads it like profiler output. Estimates are for exploring; "
          "profile the real cluster before planning a run."));
    addOptions(parser);
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(q("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    const bool json = parser.isSet(q("json"));
    if (parser.isSet(q("list"))) {
        if (json) {
            printJson(presetsJson());
        } else {
            printOut("Models: " + presetNames(model::modelPresets()).toStdString() + "\n");
            printOut("GPUs: " + presetNames(gpuPresets()).toStdString() + "\n");
        }
        return kExitOk;
    }
    if (!parser.isSet(q("out")))
        parser.usageError(q("--out DIR is required"));

    SynthesisSettings settings;
    if (parser.isSet(q("cluster"))) {
        settings.cluster = readClusterFile(parser.value(q("cluster")).toStdString());
        settings.gpu_preset = settings.cluster.gpu.name;
    }
    if (const std::optional<model::ModelDescription> fromConfig = readHfConfigOption(parser)) {
        settings.model_preset = fromConfig->name;
        settings.model = *fromConfig;
    }
    readSettingOptions(parser, synthesisSettingTable(), settings);
    SynthesisOptions options;
    options.precision = settings.precision;
    options.seq_lengths = readSeqLengths(parser);
    const model::ModelDescription& model = settings.model;
    const ClusterDescription& cluster = settings.cluster;
    const std::vector<ProfileFile> files = synthesizeProfiles(model, cluster, options);
    const std::filesystem::path dir = parser.value(q("out")).toStdString();
    writeProfileFiles(dir, files);

    const double parameters = modelParameters(model);
    if (json) {
        nlohmann::ordered_json names = nlohmann::ordered_json::array();
        for (const ProfileFile& file : files)
            names.push_back(file.name);
        printJson({ { "out", dir.string() }, { "estimated", true }, { "files", names }, { "model", model.name },
            { "parameters", parameters }, { "world", cluster.worldSize() }, { "gpu", cluster.gpu.name } });
    } else {
        printOut("Estimated profile set for " + model.name + " (" + fixed(parameters / 1e9, 2) + "B parameters) on "
            + std::to_string(cluster.num_nodes) + " x " + std::to_string(cluster.gpus_per_node) + " " + cluster.gpu.name
            + ", written to " + dir.string() + ":\n");
        for (const ProfileFile& file : files)
            printOut("  " + file.name + "\n");
    }
    return kExitOk;
}

int runProfile(const QStringList& args)
{
    if (args.isEmpty())
        throw UsageError("missing subcommand (synth)");
    if (args.first() == q("--help") || args.first() == q("-h")) {
        printOut("Usage: stratex-cli profile synth [options]\n"
                 "  synth   estimate a Galvatron profile set from a model and a GPU (see 'profile synth --help')\n");
        return kExitOk;
    }
    if (args.first() != q("synth"))
        throw UsageError("unknown subcommand \"" + args.first().toStdString() + "\" (expected synth)");
    return runSynth(args.mid(1));
}

const RegisterCommand registration(
    { q("profile"), q("synth: estimate a Galvatron profile set from a model and a GPU"), 25, runProfile });

} // namespace

} // namespace stratex::cli
