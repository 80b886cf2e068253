// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/strategy_file.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/profile/profile_key.h"
#include "core/hardware/cluster_json.h"
#include "core/galvatron/search_setting_table.h"

namespace stratex::galvatron {

namespace {

// An integer in [low, high], checked before it is narrowed to int (vsp = 2^32 once read as 0).
int intIn(const JsonView& view, std::int64_t low, std::int64_t high, const std::string& expected)
{
    const std::int64_t value = view.integer();
    if (value < low || value > high)
        view.fail(expected);
    return int(value);
}

int flag(const JsonView& view)
{
    return intIn(view, 0, 1, "0 or 1");
}

// "1,1,2" (or a bare number for a one-layer model) -> {1, 1, 2}.
std::vector<int> readIntList(const JsonView& view)
{
    if (view.isNumber())
        return { intIn(
            view, 0, limits::kMaxWorld, "a non-negative integer of at most " + std::to_string(limits::kMaxWorld)) };
    const std::string text = view.string();
    std::vector<int> values;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        std::string field = text.substr(start, end - start);
        while (!field.empty() && field.front() == ' ')
            field.erase(field.begin());
        while (!field.empty() && field.back() == ' ')
            field.pop_back();
        const auto value = profile::parseAllDigits(field);
        if (!value)
            view.fail("comma-separated non-negative integers (one per layer)");
        values.push_back(*value);
        if (values.size() > std::size_t(limits::kMaxLayers))
            view.fail("at most " + std::to_string(limits::kMaxLayers) + " values (one per layer)");
        start = end + 1;
    }
    return values;
}

[[noreturn]] void fail(
    const StrategyFile& s, const std::string& key, const std::string& expected, const std::string& found)
{
    throw InputError(s.file, "/" + key, expected, found);
}

void requireLayers(const StrategyFile& s, const std::vector<int>& values, const char* key)
{
    if (!values.empty() && int(values.size()) != s.layers())
        fail(s, key, std::to_string(s.layers()) + " values (one per layer, as tp_sizes_enc)",
            std::to_string(values.size()));
}

void requireFlags(const StrategyFile& s, const std::vector<int>& values, const char* key)
{
    for (int v : values) {
        if (v != 0 && v != 1)
            fail(s, key, "0 or 1 per layer", "value " + std::to_string(v));
    }
}

} // namespace

StrategyFile StrategyFile::fromJson(const JsonView& root)
{
    root.requireObject();
    StrategyFile s;
    s.file = root.file();
    const std::string degree = "a positive degree of at most " + std::to_string(limits::kMaxWorld);
    s.pp_deg = intIn(root["pp_deg"], 1, limits::kMaxWorld, degree);
    s.tp_sizes = readIntList(root["tp_sizes_enc"]);
    if (const auto v = root.find("tp_consecutive_flags"))
        s.tp_consecutive = readIntList(*v);
    s.dp_types = readIntList(root["dp_types_enc"]);
    if (const auto v = root.find("use_sp"))
        s.use_sp = readIntList(*v);
    s.checkpoint = readIntList(root["checkpoint"]);
    if (const auto v = root.find("world_size"))
        s.world_size = intIn(*v, 1, limits::kMaxWorld, degree);
    const std::string batch = "a positive integer of at most " + std::to_string(limits::kMaxBatch);
    s.global_bsz = intIn(root["global_bsz"], 1, limits::kMaxBatch, batch);
    // Micro-batches of at least one sample each (chunks 1e9 gave 0 samples/s).
    s.chunks = intIn(
        root["chunks"], 1, s.global_bsz, "micro-batches from 1 to global_bsz (" + std::to_string(s.global_bsz) + ")");
    if (const auto v = root.find("pp_division"))
        s.pp_division = readIntList(*v);
    if (const auto v = root.find("pipeline_type")) {
        s.pipeline_type = galvatron::parsePipelineType(v->string());
        if (!s.pipeline_type)
            v->fail("\"pipedream_flush\" or \"gpipe\"");
    }
    if (const auto v = root.find("default_dp_type")) {
        const std::string name = v->string();
        // Galvatron treats a default of "zero3" like "zero2" (ZeRO-3 is chosen per layer).
        s.default_dp_type = name == "zero3" ? std::optional(galvatron::DpType::Zero2) : galvatron::parseDpType(name);
        if (!s.default_dp_type)
            v->fail("\"ddp\", \"zero2\" or \"zero3\"");
    }
    if (const auto v = root.find("vtp"))
        s.vtp = intIn(*v, 1, limits::kMaxWorld, degree);
    if (const auto v = root.find("vsp"))
        s.vsp = flag(*v);
    if (const auto v = root.find("embed_sdp"))
        s.embed_sdp = flag(*v);
    else if (const auto alias = root.find("vocab_sdp"))
        s.embed_sdp = flag(*alias);

    if (const auto v = root.find("model"))
        s.model = model::readModel(*v);
    if (const auto v = root.find("cluster"))
        s.cluster = hardware::readCluster(*v);
    if (const auto v = root.find("search_settings")) {
        SearchSettings settings;
        s.search_settings_keys = searchSettingTable().applyJson(settings, *v);
        s.search_settings = settings;
    }

    if (s.tp_sizes.empty())
        fail(s, "tp_sizes_enc", "one TP degree per layer", "none");
    requireLayers(s, s.tp_consecutive, "tp_consecutive_flags");
    requireLayers(s, s.dp_types, "dp_types_enc");
    requireLayers(s, s.use_sp, "use_sp");
    requireLayers(s, s.checkpoint, "checkpoint");
    requireFlags(s, s.dp_types, "dp_types_enc");
    requireFlags(s, s.use_sp, "use_sp");
    requireFlags(s, s.checkpoint, "checkpoint");
    return s;
}

StrategyFile StrategyFile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

bool isStrategyFile(const std::filesystem::path& path)
{
    try {
        const JsonDocument document = JsonDocument::load(path);
        const JsonView root = document.root();
        return root.isObject() && root.has("pp_deg") && root.has("tp_sizes_enc");
    } catch (const Error&) {
        return false;
    }
}

Plan planFromStrategyFile(const StrategyFile& s, const SearchSettings& settings)
{
    const int world = settings.world();
    if (s.world_size && *s.world_size != world)
        fail(s, "world_size",
            std::to_string(world) + " (the cluster: " + std::to_string(settings.num_nodes) + " node(s) x "
                + std::to_string(settings.num_gpus_per_node) + " GPUs)",
            std::to_string(*s.world_size));
    if (s.layers() != settings.model.num_layers)
        fail(s, "tp_sizes_enc", std::to_string(settings.model.num_layers) + " layers (--num-layers)",
            std::to_string(s.layers()));
    if (world % s.pp_deg != 0)
        fail(s, "pp_deg", "a divisor of the world size " + std::to_string(world), std::to_string(s.pp_deg));

    Plan plan;
    plan.gbsz = s.global_bsz;
    plan.chunks = s.chunks;
    plan.pp = s.pp_deg;
    plan.world = world;
    plan.pipeline_type = s.pipeline_type.value_or(settings.pipeline_type);
    plan.default_dp_type = s.default_dp_type.value_or(settings.default_dp_type);
    if (s.pp_division.empty()) {
        plan.pp_division = evenDivision(s.layers(), s.pp_deg);
    } else {
        plan.pp_division = s.pp_division;
        const int sum = std::accumulate(s.pp_division.begin(), s.pp_division.end(), 0);
        if (int(s.pp_division.size()) != s.pp_deg || sum != s.layers()
            || std::find(s.pp_division.begin(), s.pp_division.end(), 0) != s.pp_division.end())
            fail(s, "pp_division",
                std::to_string(s.pp_deg) + " positive stage sizes summing to " + std::to_string(s.layers()),
                std::to_string(s.pp_division.size()) + " sizes summing to " + std::to_string(sum));
    }
    const int perStage = world / s.pp_deg;
    for (int i = 0; i < s.layers(); ++i) {
        const int degree = s.tp_sizes[std::size_t(i)];
        if (degree < 1 || perStage % degree != 0)
            fail(s, "tp_sizes_enc",
                "TP/SP degrees dividing " + std::to_string(perStage) + " (world / pp_deg) for every layer",
                "degree " + std::to_string(degree) + " at layer " + std::to_string(i));
        galvatron::LayerStrategy layer;
        layer.pp = s.pp_deg;
        const bool ulysses = !s.use_sp.empty() && s.use_sp[std::size_t(i)] == 1;
        layer.tp = ulysses ? 1 : degree;
        layer.sp = ulysses ? degree : 1;
        layer.dp = perStage / degree;
        // Galvatron's enumeration gives dp = 1 layers plain DDP whatever the flag says.
        if (layer.dp == 1)
            layer.dp_type = galvatron::DpType::Ddp;
        else
            layer.dp_type = s.dp_types[std::size_t(i)] == 1 ? galvatron::DpType::Zero3 : plan.default_dp_type;
        layer.checkpoint = s.checkpoint[std::size_t(i)] == 1;
        plan.layers.push_back(layer);
    }
    if (perStage % s.vtp != 0)
        fail(s, "vtp", "a degree dividing " + std::to_string(perStage) + " (world / pp_deg)", std::to_string(s.vtp));
    plan.embedding.pp = s.pp_deg;
    plan.embedding.tp = s.vsp == 1 ? 1 : s.vtp;
    plan.embedding.sp = s.vsp == 1 ? s.vtp : 1;
    plan.embedding.dp = perStage / s.vtp;
    plan.embedding.dp_type = s.embed_sdp == 1 && plan.embedding.dp > 1 ? galvatron::DpType::Zero3
        : plan.embedding.dp == 1                                       ? galvatron::DpType::Ddp
                                                                       : plan.default_dp_type;
    return plan;
}

namespace {

// The search table's flags of the model's shape.
constexpr std::array<std::string_view, 6> kShapeFlags { "seq-length", "hidden-size", "num-layers", "num-heads",
    "vocab-size", "model-name" };

std::string shownValue(const settings::SettingSpec& spec, const settings::SettingValue& value)
{
    return settings::formatSettingValue(spec, value);
}

} // namespace

StrategyRun resolveStrategyRun(const StrategyFile& file, const SearchSettings& flags,
    const settings::SettingNames& given, const ModelSettings& modelFlags, const settings::SettingNames& givenModel)
{
    StrategyRun run;
    run.settings = flags;
    SearchSettings& settings = run.settings;
    const std::string name = file.file;
    const auto contradiction
        = [&](std::string_view flag, const std::string& value, const std::string& where, const std::string& fileValue) {
              run.warnings.push_back("--" + std::string(flag) + " " + value + " contradicts " + name + "'s " + where
                  + " " + fileValue + "; using " + value);
          };

    // 1. The file's search settings where the command line gives none.
    settings::SettingNames fromFile;
    if (file.search_settings) {
        for (const auto& row : searchSettingTable().rows()) {
            if (!file.search_settings_keys.contains(row.spec.flag))
                continue;
            const settings::SettingValue value = row.get(*file.search_settings);
            // A file's model says the shape too: its contradictions are resolveModel's.
            const bool shape
                = file.model && std::find(kShapeFlags.begin(), kShapeFlags.end(), row.spec.flag) != kShapeFlags.end();
            if (given.contains(row.spec.flag)) {
                if (row.get(flags) != value && !shape)
                    contradiction(row.spec.flag, shownValue(row.spec, row.get(flags)),
                        "search_settings." + row.spec.jsonKey(), shownValue(row.spec, value));
                continue;
            }
            row.set(settings, value);
            fromFile.insert(std::string(row.spec.flag));
        }
    }
    const auto open = [&](std::string_view flag) { return !given.contains(flag) && !fromFile.contains(flag); };

    // 2. The file's cluster.
    if (file.cluster) {
        const hardware::ClusterDescription& cluster = *file.cluster;
        const auto take = [&](std::string_view flag, int& field, int value, const char* key) {
            if (open(flag)) {
                field = value;
                fromFile.insert(std::string(flag));
            } else if (given.contains(flag) && field != value) {
                contradiction(flag, std::to_string(field), std::string("cluster.") + key, std::to_string(value));
            }
        };
        take("num-nodes", settings.num_nodes, cluster.num_nodes, "num_nodes");
        take("num-gpus-per-node", settings.num_gpus_per_node, cluster.gpus_per_node, "gpus_per_node");
        if (open("memory-constraint")) {
            // Whole GB, as Galvatron's memory_constraint (adoptSynthesizedSettings' rule).
            settings.memory_constraint_gb = std::max(1, int(cluster.gpu.memory_gb));
            fromFile.insert("memory-constraint");
        }
        run.cluster = cluster;
        run.cluster->num_nodes = settings.num_nodes;
        run.cluster->gpus_per_node = settings.num_gpus_per_node;
    }

    // 3. Galvatron's world_size when nothing else names the cluster.
    if (file.world_size && open("num-nodes")) {
        const int world = *file.world_size;
        if (world % settings.num_gpus_per_node == 0) {
            settings.num_nodes = world / settings.num_gpus_per_node;
            fromFile.insert("num-nodes");
        } else if (world < settings.num_gpus_per_node && open("num-gpus-per-node")) {
            settings.num_gpus_per_node = world;
            settings.num_nodes = 1;
            fromFile.insert("num-nodes");
            fromFile.insert("num-gpus-per-node");
        }
    }

    // 4. The model.
    settings::SettingNames known { "num-layers" };
    if (!given.contains("num-layers") && !fromFile.contains("num-layers")) {
        settings.model.num_layers = file.layers();
        fromFile.insert("num-layers");
    }
    if (fromFile.contains("seq-length"))
        known.insert("seq-length");
    run.model = resolveModel(file.model, name + "'s model", settings, given, modelFlags, givenModel, known);
    for (const std::string& warning : run.model.warnings)
        run.warnings.push_back(warning);
    if (run.model.model) {
        const model::ModelDescription& model = *run.model.model;
        SearchSettings shaped = settings;
        setModelShape(shaped, model);
        for (std::string_view flag : kShapeFlags) {
            if (!given.contains(flag)) {
                searchSettingTable().at(flag).set(settings, searchSettingTable().at(flag).get(shaped));
                fromFile.insert(std::string(flag));
            }
        }
    }
    run.settled = given;
    run.settled.insert(fromFile.begin(), fromFile.end());
    return run;
}

} // namespace stratex::galvatron
