// SPDX-License-Identifier: GPL-3.0-or-later
// The PyTorch exports read back as PyTorch and torchtitan read them, with their rules written down
// here from their sources (read for this test; no code copied):
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
#include <map>
#include <regex>
#include <set>
#include <variant>

#include <QTest>

#include "core/common/error.h"
#include "core/common/progress.h"
#include "core/export/plan_export.h"
#include "core/export/pytorch_exports.h"
#include "core/model/model_presets.h"
#include "core/search/model_settings.h"
#include "core/search/search_engine.h"
#include "core/search/synthesized_inputs.h"

#include "export_test_util.h"

using namespace stratex;
using namespace stratex::search;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

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
std::vector<std::vector<Action>> loadCsv(const std::string& csv, std::vector<std::string>& errors)
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

// _validate_schedule and a dry run in the manner of _simulate_comms_compute: the violations.
std::vector<std::string> scheduleViolations(const std::vector<std::vector<Action>>& ranks, int stages, int microbatches)
{
    std::vector<std::string> v;
    if (int(ranks.size()) != stages)
        v.push_back("rows for " + std::to_string(ranks.size()) + " ranks, expected " + std::to_string(stages));
    std::map<int, int> stageRank;
    std::map<int, std::set<int>> forwards;
    std::map<int, std::set<int>> backwards;
    for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
        for (const Action& a : ranks[rank]) {
            if (a.type != "F" && a.type != "B")
                v.push_back("a compute-only schedule holds F and B only, found " + a.type);
            if (stageRank.contains(a.stage) && stageRank[a.stage] != int(rank))
                v.push_back("stage " + std::to_string(a.stage) + " on two ranks");
            stageRank[a.stage] = int(rank);
            if (a.type == "F")
                forwards[a.stage].insert(a.microbatch);
            if (a.type == "B") {
                if (!forwards[a.stage].contains(a.microbatch))
                    v.push_back("backward before forward: stage " + std::to_string(a.stage) + " micro-batch "
                        + std::to_string(a.microbatch));
                backwards[a.stage].insert(a.microbatch);
            }
        }
    }
    for (int s = 0; s < stages; ++s) {
        if (int(forwards[s].size()) != microbatches || int(backwards[s].size()) != microbatches)
            v.push_back("stage " + std::to_string(s) + " does not run every micro-batch forward and backward");
    }
    // Dry run: each rank runs its next action once its input has been computed.
    std::vector<std::size_t> next(ranks.size(), 0);
    std::set<Action> done;
    bool progress = true;
    while (progress) {
        progress = false;
        for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
            if (next[rank] >= ranks[rank].size())
                continue;
            const Action& a = ranks[rank][next[rank]];
            const bool ready = a.type == "F" ? a.stage == 0 || done.contains({ a.stage - 1, "F", a.microbatch })
                                             : done.contains({ a.stage, "F", a.microbatch })
                    && (a.stage == stages - 1 || done.contains({ a.stage + 1, "B", a.microbatch }));
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
Toml parseToml(const std::string& text, std::vector<std::string>& errors)
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
const std::map<std::string, std::map<std::string, Field>>& torchtitanFields()
{
    using enum FieldType;
    static const std::map<std::string, std::map<std::string, Field>> fields {
        { "job",
            { { "config_file", { Str, {} } }, { "dump_folder", { Str, {} } }, { "description", { Str, {} } },
                { "print_config", { Bool, {} } } } },
        { "model", { { "name", { Str, {} } }, { "flavor", { Str, {} } }, { "hf_assets_path", { Str, {} } } } },
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
                { "context_parallel_degree", { Int, {} } }, { "expert_parallel_degree", { Int, {} } } } },
        { "activation_checkpoint",
            { { "mode", { Str, { "selective", "full", "memory_budget", "none" } } },
                { "selective_ac_option", { Str, {} } }, { "memory_budget", { Float, {} } } } },
    };
    return fields;
}

long long intOf(const Toml& toml, const std::string& section, const std::string& key, long long fallback)
{
    const auto s = toml.find(section);
    if (s == toml.end() || !s->second.contains(key))
        return fallback;
    const TomlValue& value = s->second.at(key);
    return std::holds_alternative<long long>(value) ? std::get<long long>(value) : fallback;
}

std::string textOf(const Toml& toml, const std::string& section, const std::string& key, const std::string& fallback)
{
    const auto s = toml.find(section);
    if (s == toml.end() || !s->second.contains(key) || !std::holds_alternative<std::string>(s->second.at(key)))
        return fallback;
    return std::get<std::string>(s->second.at(key));
}

std::vector<std::string> torchtitanViolations(const Toml& toml, int world, int layers)
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
        const auto& parts = toml.at("parallelism").find("module_fqns_per_model_part");
        if (parts != toml.at("parallelism").end()) {
            const TomlArray& array = std::get<TomlArray>(parts->second);
            if (int(array.size()) != pp)
                v.push_back("one model part per stage for a single-stage schedule");
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
    const std::string option = textOf(toml, "activation_checkpoint", "selective_ac_option", "2");
    if (option != "op" && option.find_first_not_of("0123456789") != std::string::npos)
        v.push_back("selective_ac_option must be 'op' or a layer frequency");
    return v;
}

Plan handMade(
    const std::vector<int>& division, int tp, int sp, cost::DpType dpType, cost::PipelineType type, int chunks)
{
    Plan plan;
    plan.pp = int(division.size());
    plan.world = 8;
    plan.pp_division = division;
    plan.gbsz = 64;
    plan.chunks = chunks;
    plan.pipeline_type = type;
    for (int n : division) {
        for (int i = 0; i < n; ++i) {
            cost::LayerStrategy s;
            s.pp = plan.pp;
            s.tp = tp;
            s.sp = sp;
            s.dp = 8 / (plan.pp * tp * sp);
            s.dp_type = s.dp > 1 ? dpType : cost::DpType::Ddp;
            s.checkpoint = i % 2 == 0;
            plan.layers.push_back(s);
        }
    }
    plan.embedding = { plan.pp, tp, sp, 1, 8 / (plan.pp * tp * sp), cost::DpType::Zero2 };
    return plan;
}

} // namespace

Q_DECLARE_METATYPE(stratex::search::Plan)
Q_DECLARE_METATYPE(stratex::model::ModelDescription)

class TestPytorchExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rulesCatchViolations();
    void scheduleCsv_data();
    void scheduleCsv();
    void torchtitanConfig_data();
    void torchtitanConfig();
};

void TestPytorchExports::rulesCatchViolations()
{
    // A backward before its forward, a missing micro-batch, a deadlock.
    std::vector<std::string> errors;
    QVERIFY(joined(scheduleViolations(loadCsv("0B0,0F0\n1F0,1B0\n", errors), 2, 1)).find("backward before forward")
        != std::string::npos);
    QVERIFY(joined(scheduleViolations(loadCsv("0F0,0B0\n1F0,1B0\n", errors), 2, 2)).find("every micro-batch")
        != std::string::npos);
    QVERIFY(
        joined(scheduleViolations(loadCsv("0F0,0B0,0F1,0B1\n1F1,1F0,1B0,1B1\n", errors), 2, 2)).find("waits forever")
        != std::string::npos);
    QVERIFY(errors.empty());
    loadCsv("0X0\n", errors);
    QCOMPARE(errors.size(), std::size_t(1));
    // An unknown TOML field, a world size that does not add up, a batch that does not divide.
    const Toml bad = parseToml("[parallelism]\ntensor_parallel_degree = 2\ndata_parallel_shard_degree = 2\nzero = 3\n"
                               "[training]\nlocal_batch_size = 3\nglobal_batch_size = 16\n",
        errors);
    const std::string v = joined(torchtitanViolations(bad, 8, 4));
    QVERIFY2(v.find("Invalid field names in parallelism: zero") != std::string::npos, v.c_str());
    QVERIFY2(v.find("!= world size") != std::string::npos, v.c_str());
    QVERIFY2(v.find("multiple of local batch size") != std::string::npos, v.c_str());
}

void TestPytorchExports::scheduleCsv_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::newRow("7B, 24 GB: pp 4, 1F1B") << searched(24, 32);
    QTest::newRow("GPipe, 8 micro-batches")
        << handMade({ 8, 8, 8, 8 }, 1, 1, cost::DpType::Ddp, cost::PipelineType::GPipe, 8);
    QTest::newRow("1F1B, fewer micro-batches than stages")
        << handMade({ 8, 8, 8, 8 }, 1, 1, cost::DpType::Ddp, cost::PipelineType::PipeDreamFlush, 2);
    QTest::newRow("one stage") << searched(36, 16);
}

void TestPytorchExports::scheduleCsv()
{
    QFETCH(Plan, plan);
    const std::string csv = pipelineScheduleCsv(plan);
    std::vector<std::string> errors;
    const std::vector<std::vector<Action>> ranks = loadCsv(csv, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations = joined(scheduleViolations(ranks, plan.pp, plan.chunks));
    QVERIFY2(violations.empty(), (violations + csv).c_str());
    // As ScheduleGPipe / Schedule1F1B order them.
    for (int r = 0; r < plan.pp; ++r) {
        const std::vector<Action>& actions = ranks[std::size_t(r)];
        QCOMPARE(int(actions.size()), 2 * plan.chunks);
        int warmup = 0;
        while (warmup < int(actions.size()) && actions[std::size_t(warmup)].type == "F")
            ++warmup;
        const int expected
            = plan.pipeline_type == cost::PipelineType::GPipe ? plan.chunks : std::min(plan.chunks, plan.pp - r);
        QCOMPARE(warmup, expected);
        for (const Action& a : actions)
            QCOMPARE(a.stage, r);
    }
    // The export entry point writes the same bytes, needing no model.
    QCOMPARE(exportPlan(ExportFormat::PytorchSchedule, plan, test::llamaSettings(36, plan.gbsz)).text, csv);
}

void TestPytorchExports::torchtitanConfig_data()
{
    QTest::addColumn<Plan>("plan");
    QTest::addColumn<model::ModelDescription>("model");
    QTest::addColumn<QString>("expect"); // "section.key=value" items, ';'-separated
    QTest::addColumn<bool>("warned");
    QTest::newRow("7B, 36 GB: ZeRO-3, 20 of 32 layers recomputed")
        << searched(36, 16) << resizedModel("llama2-7b", 32, 2048)
        << "parallelism.data_parallel_shard_degree=8;parallelism.fsdp_reshard_after_forward=always;"
           "activation_checkpoint.mode=selective;activation_checkpoint.selective_ac_option=1;"
           "training.local_batch_size=2;training.global_batch_size=16"
        << false;
    QTest::newRow("7B, 24 GB: pp 4, 16 micro-batches")
        << searched(24, 32) << resizedModel("llama2-7b", 32, 2048)
        << "parallelism.pipeline_parallel_degree=4;parallelism.tensor_parallel_degree=2;"
           "parallelism.pipeline_parallel_microbatch_size=2;training.local_batch_size=32"
        << false;
    QTest::newRow("Llama 3 8B flavor, GPipe, ZeRO-2")
        << handMade({ 16, 16 }, 2, 1, cost::DpType::Zero2, cost::PipelineType::GPipe, 8)
        << resizedModel("llama3-8b", 32, 8192)
        << "model.name=llama3;model.flavor=8B;parallelism.pipeline_parallel_schedule=GPipe;"
           "parallelism.fsdp_reshard_after_forward=never;parallelism.data_parallel_shard_degree=2"
        << false;
    QTest::newRow("Ulysses as context parallelism, DDP")
        << handMade({ 32 }, 1, 4, cost::DpType::Ddp, cost::PipelineType::PipeDreamFlush, 4)
        << resizedModel("llama3-8b", 32, 8192)
        << "parallelism.context_parallel_degree=4;parallelism.data_parallel_replicate_degree=2;"
           "training.local_batch_size=8"
        << false;
    QTest::newRow("too few micro-batches for 1F1B")
        << handMade({ 8, 8, 8, 8 }, 1, 1, cost::DpType::Ddp, cost::PipelineType::PipeDreamFlush, 2)
        << resizedModel("llama2-13b", 32, 4096) << "parallelism.pipeline_parallel_degree=4" << true;
}

void TestPytorchExports::torchtitanConfig()
{
    QFETCH(Plan, plan);
    QFETCH(model::ModelDescription, model);
    QFETCH(QString, expect);
    QFETCH(bool, warned);
    const SearchSettings settings = test::llamaSettings(36, plan.gbsz);
    const ExportedFile file = exportPlan(ExportFormat::Torchtitan, plan, settings, { model, std::nullopt, nullptr });
    std::vector<std::string> errors;
    const Toml toml = parseToml(file.text, errors);
    QVERIFY2(errors.empty(), joined(errors).c_str());
    const std::string violations = joined(torchtitanViolations(toml, plan.world, int(plan.layers.size())));
    QCOMPARE(violations.find("Schedule1F1B") != std::string::npos, warned);
    QCOMPARE(!file.warnings.empty(), warned);
    if (!warned)
        QVERIFY2(violations.empty(), (violations + file.text).c_str());
    QCOMPARE(intOf(toml, "training", "seq_len", 0), static_cast<long long>(model.seq_length));
    QCOMPARE(intOf(toml, "training", "global_batch_size", 0), static_cast<long long>(plan.gbsz));
    for (const QString& item : expect.split(';')) {
        const std::string section = item.section('.', 0, 0).toStdString();
        const std::string key = item.section('.', 1).section('=', 0, 0).toStdString();
        const std::string value = item.section('=', 1).toStdString();
        QVERIFY2(toml.contains(section) && toml.at(section).contains(key), qPrintable(item));
        const TomlValue& found = toml.at(section).at(key);
        const std::string shown = std::holds_alternative<long long>(found) ? std::to_string(std::get<long long>(found))
                                                                           : std::get<std::string>(found);
        QCOMPARE(QString::fromStdString(shown), QString::fromStdString(value));
    }
    // Micro-batches per step as the plan's: torchtitan splits the local batch (pp > 1) or
    // accumulates gradients over it.
    const long long dp = intOf(toml, "parallelism", "data_parallel_replicate_degree", 1)
        * intOf(toml, "parallelism", "data_parallel_shard_degree", 1);
    const long long local = intOf(toml, "training", "local_batch_size", 0);
    const long long steps = plan.pp > 1 ? local / intOf(toml, "parallelism", "pipeline_parallel_microbatch_size", 1)
                                        : plan.gbsz / (local * dp);
    QCOMPARE(steps, static_cast<long long>(plan.chunks));
    // The model is required.
    QVERIFY_THROWS_EXCEPTION(Error, exportPlan(ExportFormat::Torchtitan, plan, settings));
}

QTEST_GUILESS_MAIN(TestPytorchExports)
#include "tst_pytorch_exports.moc"
