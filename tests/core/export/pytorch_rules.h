// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How PyTorch and torchtitan read the exports, with their rules written down here from their sources (read for this
// test; no code copied):
// - pytorch/pytorch torch/distributed/pipelining/schedules.py: _Action's string form
//   "{stage}{F|I|B|W|...}{micro-batch}" (_action_regex, __repr__), PipelineScheduleMulti._load_csv
//   (csv.reader, one row per rank, "" for an idle step), _validate_schedule (every stage runs a
//   forward and a backward of every micro-batch, a backward after its forward, a stage on one
//   rank), _simulate_comms_compute's readiness (a forward after the previous stage's, a backward
//   after the next stage's) and Schedule1F1B (warm-up min(m, stages - stage) forwards, then one
//   backward and one forward, micro-batches >= stages), ScheduleGPipe, get_schedule_class's names;
// - pytorch/torchtitan v0.2.2 torchtitan/config/job_config.py (the TOML's sections, fields, types
//   and Literal choices), config/manager.py _dict_to_dataclass (an unknown field is an error),
//   distributed/parallel_dims.py _validate (dp_replicate x dp_shard x cp x tp x pp = world),
//   train.py (global batch = local batch x dp degree x gradient accumulation), distributed/
//   pipeline_parallel.py build_pipeline_schedule (local batch divisible by the micro-batch size)
//   and pipeline_module_split (one model part per stage), distributed/activation_checkpoint.py
//   (selective_ac_option "op" or a layer frequency).
// - pytorch/torchtitan v0.2.2 models/*/__init__.py (the flavours), job_config.py Model.converters
//   and [quantize.linear.float8], distributed/pipeline_parallel.py (single-stage schedules take one
//   model part per rank, multi-stage ones at least two; a schedule CSV with PipelineScheduleSingle /
//   Multi), parallel_dims.py (ETP = TP or 1 with EP).
// Shared by tst_pytorch_exports and tst_plan_exports.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace stratex::test::pytorch {

// ---- torch.distributed.pipelining ----

struct Action {
    int stage = 0;
    std::string type;
    int microbatch = -1;
    bool operator<(const Action& o) const
    {
        return std::tie(stage, type, microbatch) < std::tie(o.stage, o.type, o.microbatch);
    }
};

// PipelineScheduleMulti._load_csv: rows of _Action.from_str cells.
inline std::vector<std::vector<Action>> loadCsv(const std::string& csv, std::vector<std::string>& errors)
{
    static const std::regex action(R"((\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|RECV_F|SEND_B|RECV_B)(\d*))");
    std::vector<std::vector<Action>> ranks;
    std::stringstream lines(csv);
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        ranks.emplace_back();
        std::stringstream cells(line);
        std::string cell;
        while (std::getline(cells, cell, ',')) {
            if (cell.empty())
                continue; // an idle step
            std::smatch m;
            if (!std::regex_match(cell, m, action)) {
                errors.push_back("invalid action string " + cell);
                continue;
            }
            ranks.back().push_back({ std::stoi(m[1]), m[2], m[3].length() ? std::stoi(m[3]) : -1 });
        }
    }
    return ranks;
}

// _validate_schedule and a dry run in the manner of _add_send_recv's readiness: the violations.
// `stages` counts model chunks (pp x vpp for looped schedules); a compute-only schedule holds F, B,
// I (backward input) and W (backward weight).
inline std::vector<std::string> scheduleViolations(
    const std::vector<std::vector<Action>>& ranks, int stages, int microbatches, int pp = -1)
{
    if (pp < 0)
        pp = stages;
    std::vector<std::string> v;
    if (int(ranks.size()) != pp)
        v.push_back("rows for " + std::to_string(ranks.size()) + " ranks, expected " + std::to_string(pp));
    std::map<int, int> stageRank;
    std::map<std::string, std::map<int, std::set<int>>> seen; // type -> stage -> micro-batches
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
        for (const Action& a : ranks[rank]) {
            if (a.type != "F" && a.type != "B" && a.type != "I" && a.type != "W")
                v.push_back("a compute-only schedule holds F, B, I and W only, found " + a.type);
            if (a.stage < 0 || a.stage >= stages)
                v.push_back("stage " + std::to_string(a.stage) + " out of range");
            if (stageRank.contains(a.stage) && stageRank[a.stage] != int(rank))
                v.push_back("stage " + std::to_string(a.stage) + " on two ranks");
            stageRank[a.stage] = int(rank);
            if ((a.type == "B" || a.type == "I") && !seen["F"][a.stage].contains(a.microbatch))
                v.push_back("backward before forward: stage " + std::to_string(a.stage) + " micro-batch "
                    + std::to_string(a.microbatch));
            if (a.type == "W" && !seen["I"][a.stage].contains(a.microbatch))
                v.push_back("backward weight before backward input: stage " + std::to_string(a.stage));
            seen[a.type][a.stage].insert(a.microbatch);
        }
    }
    for (int s = 0; s < stages; ++s) {
        const std::size_t f = seen["F"][s].size();
        const std::size_t b = seen["B"][s].size();
        const std::size_t i = seen["I"][s].size();
        const std::size_t w = seen["W"][s].size();
        if (int(f) != microbatches || i != w || int(b + (i + w) / 2) != microbatches)
            v.push_back("stage " + std::to_string(s) + " does not run every micro-batch forward and backward");
    }
    // Dry run: each rank runs its next action once its input has been computed (a forward after
    // the previous stage's, a backward after the next stage's B or I, a W after its own I).
    std::vector<std::size_t> next(ranks.size(), 0);
    std::set<Action> done;
    bool progress = true;
    while (progress) {
        progress = false;
        for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
            if (next[rank] >= ranks[rank].size())
                continue;
            const Action& a = ranks[rank][next[rank]];
            bool ready = true;
            if (a.type == "F")
                ready = a.stage == 0 || done.contains({ a.stage - 1, "F", a.microbatch });
            else if (a.type == "B" || a.type == "I")
                ready = done.contains({ a.stage, "F", a.microbatch })
                    && (a.stage == stages - 1 || done.contains({ a.stage + 1, "B", a.microbatch })
                        || done.contains({ a.stage + 1, "I", a.microbatch }));
            else if (a.type == "W")
                ready = done.contains({ a.stage, "I", a.microbatch });
            if (ready) {
                done.insert(a);
                ++next[rank];
                progress = true;
            }
        }
    }
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
        if (next[rank] < ranks[rank].size())
            v.push_back("rank " + std::to_string(rank) + " waits forever (the schedule does not progress)");
    }
    return v;
}

// ---- torchtitan ----

using TomlArray = std::vector<std::vector<std::string>>;
using TomlValue = std::variant<long long, double, bool, std::string, TomlArray>;
using Toml = std::map<std::string, std::map<std::string, TomlValue>>;

// The TOML this export writes: sections, key = int | float | bool | "string" | [[ "..." ], ...].
inline Toml parseToml(const std::string& text, std::vector<std::string>& errors)
{
    Toml toml;
    std::string section;
    std::stringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const std::size_t hash = line.find('#');
        if (hash != std::string::npos && line.find('"') > hash)
            line.erase(hash);
        line.erase(0, line.find_first_not_of(" \t"));
        if (line.empty())
            continue;
        if (line.front() == '[' && line.find('=') == std::string::npos) {
            section = line.substr(1, line.find(']') - 1);
            toml[section];
            continue;
        }
        const std::size_t eq = line.find('=');
        if (eq == std::string::npos) {
            errors.push_back("not a key = value line: " + line);
            continue;
        }
        std::string key = line.substr(0, eq);
        key.erase(key.find_last_not_of(' ') + 1);
        std::string value = line.substr(eq + 1);
        value.erase(0, value.find_first_not_of(' '));
        if (!value.empty() && value.front() == '[') {
            while (std::count(value.begin(), value.end(), '[') != std::count(value.begin(), value.end(), ']')
                && std::getline(lines, line))
                value += line;
            TomlArray array;
            if (value.find('[', 1) == std::string::npos) {
                // A flat list of strings: one inner list.
                std::vector<std::string> items;
                static const std::regex item("\"([^\"]*)\"");
                for (auto s = std::sregex_iterator(value.begin(), value.end(), item); s != std::sregex_iterator(); ++s)
                    items.push_back((*s)[1]);
                toml[section][key] = TomlArray { items };
                continue;
            }
            static const std::regex inner(R"(\[([^\[\]]*)\])");
            for (auto it = std::sregex_iterator(value.begin() + 1, value.end() - 1, inner);
                 it != std::sregex_iterator(); ++it) {
                std::vector<std::string> items;
                static const std::regex item("\"([^\"]*)\"");
                const std::string body = (*it)[1];
                for (auto s = std::sregex_iterator(body.begin(), body.end(), item); s != std::sregex_iterator(); ++s)
                    items.push_back((*s)[1]);
                array.push_back(items);
            }
            toml[section][key] = array;
        } else if (value.front() == '"') {
            toml[section][key] = value.substr(1, value.rfind('"') - 1);
        } else if (value == "true" || value == "false") {
            toml[section][key] = value == "true";
        } else if (value.find('.') != std::string::npos) {
            toml[section][key] = std::stod(value);
        } else {
            toml[section][key] = std::stoll(value);
        }
    }
    return toml;
}

enum class FieldType { Int, Float, Bool, Str, ListOfLists };
struct Field {
    FieldType type;
    std::vector<std::string> choices;
};

// torchtitan v0.2.2 job_config.py: the fields of the sections this export writes.
inline const std::map<std::string, std::map<std::string, Field>>& torchtitanFields()
{
    using enum FieldType;
    static const std::map<std::string, std::map<std::string, Field>> fields {
        { "job",
            { { "config_file", { Str, {} } }, { "dump_folder", { Str, {} } }, { "description", { Str, {} } },
                { "print_config", { Bool, {} } } } },
        { "model",
            { { "name", { Str, {} } }, { "flavor", { Str, {} } }, { "hf_assets_path", { Str, {} } },
                { "converters", { ListOfLists, {} } } } },
        { "quantize.linear.float8",
            { { "recipe_name", { Str, { "tensorwise", "rowwise", "rowwise_with_gw_hp" } } },
                { "enable_fsdp_float8_all_gather", { Bool, {} } } } },
        { "training",
            { { "dataset", { Str, {} } }, { "dataset_path", { Str, {} } }, { "local_batch_size", { Int, {} } },
                { "global_batch_size", { Int, {} } }, { "seq_len", { Int, {} } }, { "max_norm", { Float, {} } },
                { "steps", { Int, {} } }, { "dtype", { Str, { "bfloat16", "float32" } } },
                { "mixed_precision_param", { Str, { "bfloat16", "float32" } } },
                { "mixed_precision_reduce", { Str, { "float32" } } } } },
        { "parallelism",
            { { "data_parallel_replicate_degree", { Int, {} } }, { "data_parallel_shard_degree", { Int, {} } },
                { "fsdp_reshard_after_forward", { Str, { "default", "always", "never" } } },
                { "tensor_parallel_degree", { Int, {} } }, { "disable_loss_parallel", { Bool, {} } },
                { "pipeline_parallel_degree", { Int, {} } }, { "module_fqns_per_model_part", { ListOfLists, {} } },
                { "pipeline_parallel_layers_per_stage", { Int, {} } }, { "pipeline_parallel_schedule", { Str, {} } },
                { "pipeline_parallel_schedule_csv", { Str, {} } }, { "pipeline_parallel_microbatch_size", { Int, {} } },
                { "context_parallel_degree", { Int, {} } }, { "expert_parallel_degree", { Int, {} } },
                { "expert_tensor_parallel_degree", { Int, {} } }, { "enable_async_tensor_parallel", { Bool, {} } } } },
        { "compile", { { "enable", { Bool, {} } } } },
        { "activation_checkpoint",
            { { "mode", { Str, { "selective", "full", "memory_budget", "none" } } },
                { "selective_ac_option", { Str, {} } }, { "memory_budget", { Float, {} } } } },
    };
    return fields;
}

inline long long intOf(const Toml& toml, const std::string& section, const std::string& key, long long fallback)
{
    const auto s = toml.find(section);
    if (s == toml.end() || !s->second.contains(key))
        return fallback;
    const TomlValue& value = s->second.at(key);
    return std::holds_alternative<long long>(value) ? std::get<long long>(value) : fallback;
}

inline std::string textOf(
    const Toml& toml, const std::string& section, const std::string& key, const std::string& fallback)
{
    const auto s = toml.find(section);
    if (s == toml.end() || !s->second.contains(key) || !std::holds_alternative<std::string>(s->second.at(key)))
        return fallback;
    return std::get<std::string>(s->second.at(key));
}

inline std::vector<std::string> torchtitanViolations(const Toml& toml, int world, int layers)
{
    std::vector<std::string> v;
    for (const auto& [section, keys] : toml) {
        const auto known = torchtitanFields().find(section);
        if (known == torchtitanFields().end()) {
            v.push_back("Invalid field names: " + section);
            continue;
        }
        for (const auto& [key, value] : keys) {
            const auto field = known->second.find(key);
            if (field == known->second.end()) {
                v.push_back("Invalid field names in " + section + ": " + key);
                continue;
            }
            const FieldType type = field->second.type;
            const bool ok = (type == FieldType::Int && std::holds_alternative<long long>(value))
                || (type == FieldType::Float
                    && (std::holds_alternative<double>(value) || std::holds_alternative<long long>(value)))
                || (type == FieldType::Bool && std::holds_alternative<bool>(value))
                || (type == FieldType::Str && std::holds_alternative<std::string>(value))
                || (type == FieldType::ListOfLists && std::holds_alternative<TomlArray>(value));
            if (!ok)
                v.push_back(section + "." + key + " has the wrong type");
            const auto& choices = field->second.choices;
            if (!choices.empty() && std::holds_alternative<std::string>(value)
                && std::find(choices.begin(), choices.end(), std::get<std::string>(value)) == choices.end())
                v.push_back(section + "." + key + " is not one of its choices");
        }
    }
    const long long replicate = intOf(toml, "parallelism", "data_parallel_replicate_degree", 1);
    const long long shard = intOf(toml, "parallelism", "data_parallel_shard_degree", -1);
    const long long tp = intOf(toml, "parallelism", "tensor_parallel_degree", 1);
    const long long cp = intOf(toml, "parallelism", "context_parallel_degree", 1);
    const long long pp = intOf(toml, "parallelism", "pipeline_parallel_degree", 1);
    if (replicate < 1 || tp < 1 || cp < 1 || pp < 1 || shard < 1)
        v.push_back("degrees must be >= 1 (the export writes dp_shard explicitly)");
    if (replicate * shard * tp * cp * pp != world)
        v.push_back("dp_replicate x dp_shard x cp x tp x pp != world size");
    const long long local = intOf(toml, "training", "local_batch_size", 8);
    const long long global = intOf(toml, "training", "global_batch_size", -1);
    if (global > 0 && global % (local * replicate * shard) != 0)
        v.push_back("global batch size must be a multiple of local batch size x data-parallel degree");
    if (pp > 1) {
        const long long microbatch = intOf(toml, "parallelism", "pipeline_parallel_microbatch_size", 1);
        if (local % microbatch != 0)
            v.push_back("local batch size must be divisible by the micro-batch size");
        static const std::set<std::string> schedules { "1f1b", "interleaved1f1b", "gpipe", "loopedbfs",
            "interleavedzerobubble", "pipelineschedulesingle", "pipelineschedulemulti", "zbvzerobubble", "dualpipev" };
        std::string schedule = textOf(toml, "parallelism", "pipeline_parallel_schedule", "1F1B");
        std::transform(
            schedule.begin(), schedule.end(), schedule.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (!schedules.contains(schedule))
            v.push_back("unknown schedule name");
        if (schedule == "1f1b" && local / microbatch < pp)
            v.push_back("Schedule1F1B needs at least as many micro-batches as stages");
        // pipeline_parallel.py: a single-stage schedule has one model part per rank, a looped
        // (multi-stage) one at least two, a multiple of the ranks.
        static const std::set<std::string> looped { "interleaved1f1b", "loopedbfs", "interleavedzerobubble",
            "pipelineschedulemulti", "zbvzerobubble", "dualpipev" };
        const auto& parts = toml.at("parallelism").find("module_fqns_per_model_part");
        if (parts != toml.at("parallelism").end()) {
            const TomlArray& array = std::get<TomlArray>(parts->second);
            if (!looped.contains(schedule) && int(array.size()) != pp)
                v.push_back("one model part per stage for a single-stage schedule");
            if (looped.contains(schedule) && (int(array.size()) % pp != 0 || int(array.size()) < 2 * pp))
                v.push_back("a multi-stage schedule needs at least two model parts per rank, a multiple of the ranks");
            std::vector<std::string> flat;
            for (const auto& part : array)
                flat.insert(flat.end(), part.begin(), part.end());
            std::vector<std::string> expected { "tok_embeddings" };
            for (int i = 0; i < layers; ++i)
                expected.push_back("layers." + std::to_string(i));
            expected.push_back("norm");
            expected.push_back("output");
            if (flat != expected)
                v.push_back("the model parts do not name every module once, in order");
        }
    }
    // parallel_dims.py: with EP, the expert TP degree is 1 or the TP degree.
    const long long ep = intOf(toml, "parallelism", "expert_parallel_degree", 1);
    const long long etp = intOf(toml, "parallelism", "expert_tensor_parallel_degree", 1);
    if (ep > 1 && etp != 1 && etp != tp)
        v.push_back("Currently we only support ETP=TP or ETP=1");
    const std::string option = textOf(toml, "activation_checkpoint", "selective_ac_option", "2");
    if (option != "op" && option.find_first_not_of("0123456789") != std::string::npos)
        v.push_back("selective_ac_option must be 'op' or a layer frequency");
    return v;
}

} // namespace stratex::test::pytorch
