// SPDX-License-Identifier: GPL-3.0-or-later
// Writing a searched plan for PaddleNLP: the fine_grained_config.json with seed 004's mapping and
// the launch script, run with bash against PaddleNLP's argument rules (Galvatron's JSON:
// tst_strategy_exports).
#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "core/export/paddle_config.h"
#include "core/model/model_presets.h"

#include "export_test_util.h"
#include "support/text_contains.h"

using namespace stratex;
using namespace stratex::galvatron;
using namespace stratex::exporting;
using namespace stratex::test;

namespace {

// A hand-made plan on 128 GPUs with two-digit degrees.
Plan wideDataParallelPlan()
{
    Plan plan;
    plan.gbsz = 512;
    plan.chunks = 4;
    plan.pp = 2;
    plan.world = 128;
    plan.pp_division = { 2, 2 };
    for (int i = 0; i < 4; ++i) {
        galvatron::LayerStrategy s;
        s.pp = 2;
        s.tp = i < 2 ? 4 : 2;
        s.dp = 64 / s.tp;
        s.dp_type = i == 0 ? galvatron::DpType::Zero3 : galvatron::DpType::Zero2;
        s.checkpoint = i == 1;
        plan.layers.push_back(s);
    }
    plan.embedding = { 2, 4, 1, 1, 16, galvatron::DpType::Zero2 };
    return plan;
}

// ---- PaddleNLP's rules for the launch script, written down from its sources (PaddlePaddle/PaddleNLP
// develop, read for this test; no code copied) ----
// - paddlenlp/trainer/training_args.py, TrainingArguments: the fields below and __post_init__
//   (fp16 and bf16 exclusive; `sharding` is space-separated ShardingOption values stage1/2/3 and
//   offload; world_size % (tensor_parallel_degree x pipeline_parallel_degree) == 0; to_static only
//   with world_size 1 or enable_auto_parallel; amp_master_grad is dropped without fp16/bf16);
// - paddlenlp/trainer/auto_training_args.py, AutoTrainingArguments.__post_init__: assert
//   enable_auto_parallel (and PreTrainingArguments in llm/auto_parallel/llama/run_pretrain_auto.py);
// - run_pretrain_auto.py: PreTrainingArguments.pipeline_schedule_mode (FThenB, 1F1B, VPP,
//   Eager-1F1B), ModelArguments (model_type, vocab_size, hidden_size, intermediate_size,
//   num_hidden_layers, num_attention_heads, recompute_granularity full/core_attn/full_attn,
//   use_flash_attention (as the port's train_qwen_fine_grained.sh passes it),
//   virtual_pp_degree), DataArguments (input_dir, split "a,b,c", max_seq_length), and
//   create_pretrained_dataset, which sizes the data by max_steps (positive);
// - paddlenlp/trainer/argparser.py: PdArgumentParser's strtobool (yes/no, true/false, t/f, y/n,
//   1/0) and its error on an argument no dataclass takes;
// - the Galvatron port's launch scripts (train_qwen_fine_grained.sh and its multi-node variant):
//   --seq_length and --num_key_value_heads in MODEL_ARGS, GranularityRuntimeArguments
//   (granularity_type coarse_grained/fine_grained, usp_flag, fine_grained_config_path,
//   sharding_stage_level), nnodes/rank read from PADDLE_TRAINERS_NUM / PADDLE_TRAINER_ID before
//   the launcher's PADDLE_* variables are unset.
enum class PaddleKind { Bool, Int, Text };
struct PaddleFlag {
    PaddleKind kind;
    std::vector<std::string> choices;
};

const std::map<std::string, PaddleFlag>& paddleFlags()
{
    static const std::map<std::string, PaddleFlag> flags {
        { "--output_dir", { PaddleKind::Text, {} } },
        { "--do_train", { PaddleKind::Bool, {} } },
        { "--max_steps", { PaddleKind::Int, {} } },
        { "--enable_auto_parallel", { PaddleKind::Bool, {} } },
        { "--to_static", { PaddleKind::Bool, {} } },
        { "--per_device_train_batch_size", { PaddleKind::Int, {} } },
        { "--gradient_accumulation_steps", { PaddleKind::Int, {} } },
        { "--recompute", { PaddleKind::Bool, {} } },
        { "--recompute_granularity", { PaddleKind::Text, { "full", "core_attn", "full_attn" } } },
        // ModelArguments.use_flash_attention (default False: the naive attention of s x s scores).
        { "--use_flash_attention", { PaddleKind::Bool, {} } },
        { "--bf16", { PaddleKind::Bool, {} } },
        { "--fp16", { PaddleKind::Bool, {} } },
        { "--fp16_opt_level", { PaddleKind::Text, { "O0", "O1", "O2" } } },
        { "--amp_master_grad", { PaddleKind::Bool, {} } },
        { "--sharding_parallel_degree", { PaddleKind::Int, {} } },
        // "" is TrainingArguments' default: no sharding.
        { "--sharding", { PaddleKind::Text, { "", "stage1", "stage2", "stage3", "stage2 offload", "stage3 offload" } } },
        { "--tensor_parallel_degree", { PaddleKind::Int, {} } },
        { "--sequence_parallel", { PaddleKind::Bool, {} } },
        { "--pipeline_parallel_degree", { PaddleKind::Int, {} } },
        { "--pipeline_schedule_mode", { PaddleKind::Text, { "FThenB", "1F1B", "VPP", "Eager-1F1B" } } },
        { "--virtual_pp_degree", { PaddleKind::Int, {} } },
        { "--model_type", { PaddleKind::Text, {} } },
        { "--num_hidden_layers", { PaddleKind::Int, {} } },
        { "--intermediate_size", { PaddleKind::Int, {} } },
        { "--vocab_size", { PaddleKind::Int, {} } },
        { "--hidden_size", { PaddleKind::Int, {} } },
        { "--seq_length", { PaddleKind::Int, {} } },
        { "--num_attention_heads", { PaddleKind::Int, {} } },
        { "--num_key_value_heads", { PaddleKind::Int, {} } },
        { "--input_dir", { PaddleKind::Text, {} } },
        { "--split", { PaddleKind::Text, {} } },
        { "--max_seq_length", { PaddleKind::Int, {} } },
        { "--granularity_type", { PaddleKind::Text, { "coarse_grained", "fine_grained" } } },
        { "--usp_flag", { PaddleKind::Int, {} } },
        { "--sharding_stage_level", { PaddleKind::Int, {} } },
        { "--fine_grained_config_path", { PaddleKind::Text, {} } },
    };
    return flags;
}

std::optional<bool> strtobool(const std::string& text)
{
    std::string v = text;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (v == "yes" || v == "true" || v == "t" || v == "y" || v == "1")
        return true;
    if (v == "no" || v == "false" || v == "f" || v == "n" || v == "0")
        return false;
    return std::nullopt;
}

// The trainer's arguments (after the script name) as PdArgumentParser sees them; violations of the
// rules above, empty when PaddleNLP accepts them.
std::vector<std::string> paddleViolations(const QStringList& argv, int world)
{
    std::vector<std::string> v;
    std::map<std::string, std::string> args;
    for (qsizetype i = 0; i < argv.size(); ++i) {
        const std::string flag = argv[i].toStdString();
        if (flag.rfind("--", 0) != 0) {
            v.push_back("stray value " + flag);
            continue;
        }
        const auto rule = paddleFlags().find(flag);
        if (rule == paddleFlags().end()) {
            v.push_back("no dataclass takes " + flag);
            continue;
        }
        const std::string value = i + 1 < argv.size() ? argv[++i].toStdString() : std::string();
        if (args.contains(flag))
            v.push_back(flag + " twice");
        args[flag] = value;
        const PaddleFlag& f = rule->second;
        if (f.kind == PaddleKind::Bool && !strtobool(value))
            v.push_back(flag + ": not a truth value: " + value);
        if (f.kind == PaddleKind::Int && (value.empty() || value.find_first_not_of("-0123456789") != std::string::npos))
            v.push_back(flag + ": not an integer: " + value);
        if (!f.choices.empty() && std::find(f.choices.begin(), f.choices.end(), value) == f.choices.end())
            v.push_back(flag + ": not a choice: " + value);
    }
    const auto flag = [&](const char* name) { return args.contains(name) && strtobool(args[name]).value_or(false); };
    const auto number
        = [&](const char* name, int fallback) { return args.contains(name) ? std::stoi(args[name]) : fallback; };
    if (!flag("--enable_auto_parallel"))
        v.push_back("AutoTrainingArguments asserts enable_auto_parallel");
    if (flag("--to_static") && world > 1 && !flag("--enable_auto_parallel"))
        v.push_back("to_static needs enable_auto_parallel");
    if (flag("--bf16") && flag("--fp16"))
        v.push_back("At most one of fp16 and bf16");
    if (flag("--amp_master_grad") && !flag("--bf16") && !flag("--fp16"))
        v.push_back("amp_master_grad without amp");
    const int tp = std::max(1, number("--tensor_parallel_degree", 1));
    const int pp = std::max(1, number("--pipeline_parallel_degree", 1));
    if (world % (tp * pp) != 0)
        v.push_back("world_size not divisible by tensor x pipeline degree");
    if (!flag("--do_train"))
        v.push_back("do_train is not set: nothing trains");
    if (number("--max_steps", -1) <= 0)
        v.push_back("max_steps must be positive (the dataset is sized by it)");
    if (!args.contains("--input_dir") || args["--input_dir"].empty())
        v.push_back("no input_dir");
    static const std::regex split(R"(\d+,\d+,\d+)");
    if (!std::regex_match(args["--split"], split))
        v.push_back("split is not a,b,c");
    for (const char* required : { "--intermediate_size", "--num_key_value_heads", "--num_attention_heads",
             "--hidden_size", "--num_hidden_layers", "--vocab_size", "--output_dir" }) {
        if (!args.contains(required))
            v.push_back(std::string("missing ") + required);
    }
    return v;
}

struct ScriptRun {
    int exitCode = -1;
    QString out;
    QString err;
};

// Runs a launch script with bash, PYTHON=echo standing in for the interpreter.
ScriptRun runScript(const std::string& text, const QStringList& environment)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("launch.sh"));
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            return {};
        file.write(QByteArray::fromStdString(text));
    }
    QProcess bash;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PYTHON"), QStringLiteral("echo"));
    for (const QString& item : environment)
        env.insert(item.section('=', 0, 0), item.section('=', 1));
    bash.setProcessEnvironment(env);
    bash.setWorkingDirectory(dir.path());
    bash.start(QStringLiteral("bash"), { path });
    bash.waitForFinished(30000);
    return { bash.exitCode(), QString::fromUtf8(bash.readAllStandardOutput()).trimmed(),
        QString::fromUtf8(bash.readAllStandardError()) };
}

} // namespace

class TestPaddleExports : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void paddleConfig();
    void paddleMappingUsesFirstValue();
    void paddleScript();
    void paddleScriptRunsPaddleNLP_data();
    void paddleScriptRunsPaddleNLP();
};

void TestPaddleExports::paddleConfig()
{
    // The 24 GB pp-4 plan: stage 0 4-1-2-c x8 (ZeRO-2), stages 1-3 Megatron TP 2, dp 1.
    const Plan plan = searched(24, 32);
    const std::string text = paddleFineGrainedConfigText(plan);
    const nlohmann::ordered_json json = paddleFineGrainedConfig(plan);
    std::vector<std::string> keys;
    for (auto it = json.begin(); it != json.end(); ++it)
        keys.push_back(it.key());
    QCOMPARE(keys,
        std::vector<std::string>({ "pp_size", "vtp", "vsp_flag", "embed_sdp", "global_batch_size",
            "gradient_accumulation_steps", "dp_size_list", "sharding_stage_list", "tp_size_list", "usp_flag_list",
            "recompute_list", "pp_stage_idx_list" }));
    QCOMPARE(json["pp_size"].get<int>(), 4);
    QCOMPARE(json["gradient_accumulation_steps"].get<int>(), 16);
    QCOMPARE(json["embed_sdp"].get<int>(), 1);
    QCOMPARE(json["dp_size_list"].get<std::string>(),
        std::string("2,2,2,2,2,2,2,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"));
    QCOMPARE(json["sharding_stage_list"].get<std::string>(),
        std::string("2,2,2,2,2,2,2,2,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0"));
    QCOMPARE(json["tp_size_list"].get<std::string>(),
        std::string("1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2"));
    QCOMPARE(json["recompute_list"].get<std::string>(),
        std::string("1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,0,1,1,1,0,0,0,0,0,1,0,0,0,0,0,0,0"));
    QCOMPARE(json["pp_stage_idx_list"].get<std::string>(),
        std::string("0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1,2,2,2,2,2,2,2,2,3,3,3,3,3,3,3,3"));
    QVERIFY(text.rfind("{\n    \"pp_size\": 4,", 0) == 0);
}

void TestPaddleExports::paddleMappingUsesFirstValue()
{
    // Seed 004: sharding / tensor degree = the first comma-separated value ("16", not "1").
    const Plan plan = wideDataParallelPlan();
    QCOMPARE(paddleFineGrainedConfig(plan)["dp_size_list"].get<std::string>(), std::string("16,16,32,32"));
    const PaddleParallelArgs args = paddleParallelArgs(plan);
    QCOMPARE(args.sharding_parallel_degree, 16);
    QCOMPARE(args.tensor_parallel_degree, 4);
    QCOMPARE(args.pipeline_parallel_degree, 2);
    QVERIFY(args.recompute);
    QCOMPARE(args.gradient_accumulation_steps, 4);
    QCOMPARE(args.per_device_train_batch_size, 8); // 512 / 4 / 16
    QVERIFY(args.per_device_batch_exact);
    QCOMPARE(args.sharding_stage, 3);
}

void TestPaddleExports::paddleScript()
{
    SearchSettings settings = llamaSettings(24, 512);
    settings.num_nodes = 16;
    const std::string script = paddleLaunchScript(wideDataParallelPlan(), settings, llama7b());
    QVERIFY(script.rfind("#!/usr/bin/env bash\n", 0) == 0);
    QVERIFY(contains(script, "    --sharding_parallel_degree 16\n"));
    QVERIFY(contains(script, "    --tensor_parallel_degree 4\n"));
    QVERIFY(contains(script, "    --pipeline_parallel_degree 2\n"));
    QVERIFY(contains(script, "    --per_device_train_batch_size 8\n"));
    QVERIFY(contains(script, "    --gradient_accumulation_steps 4\n"));
    QVERIFY(contains(script, "    --recompute true\n"));
    QVERIFY(contains(script, "    --sequence_parallel true\n"));
    QVERIFY(contains(script, "    --sharding 'stage3'\n"));
    QVERIFY(contains(script, "    --fine_grained_config_path './configs/fine_grained_config.json'\n"));
    QVERIFY(contains(script, "--granularity_type fine_grained"));
    QVERIFY(contains(script, "--gpus 0,1,2,3,4,5,6,7"));
    QVERIFY(contains(script, "END_RANK=${END_RANK:-16}"));
    // An uneven per-device batch is rounded up and said so.
    Plan uneven = wideDataParallelPlan();
    uneven.gbsz = 500;
    QVERIFY(contains(paddleLaunchScript(uneven, settings, llama7b()), "is not whole"));
}

void TestPaddleExports::paddleScriptRunsPaddleNLP_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("warning"); // expected in the export's warnings, or ""
    QTest::newRow("one node") << 1 << "llama2-7b"
                              << "";
    // Llama 3's RoPE base 500000 is not a flag of the port's MODEL_ARGS: said, not silent.
    QTest::newRow("16 nodes, GQA") << 16 << "llama3-8b"
                                   << "take no RoPE base";
    QTest::newRow("GPT-3 is not the port's Llama") << 16 << "gpt3-13b"
                                                   << "is a Llama (SwiGLU, RMSNorm, RoPE); gpt3-13b is not";
}

void TestPaddleExports::paddleScriptRunsPaddleNLP()
{
    // The script run by bash, with `echo` as the interpreter: what paddle.distributed.launch and
    // then the trainer would receive, checked against PaddleNLP's rules.
    QFETCH(int, nodes);
    QFETCH(QString, preset);
    QFETCH(QString, warning);
    SearchSettings settings = llamaSettings(24, 512);
    settings.num_nodes = nodes;
    Plan plan = wideDataParallelPlan();
    plan.world = 8 * nodes;
    for (galvatron::LayerStrategy& s : plan.layers)
        s.dp = plan.world / (s.pp * s.tp);
    model::ModelDescription model = model::modelPreset(preset.toStdString());
    model.num_layers = 4;
    const PaddleScript script = exporting::paddleScript(plan, settings, model);
    const std::string warnings = joined(script.notes);
    QCOMPARE(warnings.empty(), warning.isEmpty());
    QVERIFY2(warnings.find(warning.toStdString()) != std::string::npos, warnings.c_str());

    // Without the data (and, with several nodes, the master) it stops and says so.
    const ScriptRun bare = runScript(script.text, {});
    QVERIFY(bare.exitCode != 0);
    QVERIFY2(bare.err.contains(nodes > 1 ? "MASTER_ADDR: set MASTER_ADDR" : "INPUT_DIR: set INPUT_DIR"),
        qPrintable(bare.err));
    QVERIFY(!QString::fromStdString(script.text).contains(QStringLiteral("127.0.0.1")));
    // The launcher's variables are read, then unset before paddle.distributed.launch starts.
    const std::string& text = script.text;
    const std::size_t read = text.find("nnodes=${PADDLE_TRAINERS_NUM:-");
    const std::size_t unset = text.find("unset PADDLE_ELASTIC_JOB_ID");
    QVERIFY(read != std::string::npos && unset != std::string::npos && read < unset);
    for (const char* name : { "PADDLE_TRAINER_ENDPOINTS", "DISTRIBUTED_TRAINER_ENDPOINTS", "FLAGS_START_PORT",
             "PADDLE_ELASTIC_TIMEOUT", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ID", "PADDLE_WORKERS_IP_PORT_LIST",
             "PADDLE_TRAINERS", "PADDLE_NUM_GRADIENT_SERVERS" })
        QVERIFY2(text.find(name, unset) != std::string::npos, name);

    const ScriptRun run = runScript(script.text,
        { "MASTER_ADDR=10.0.0.1", "INPUT_DIR=/data/llama", "PADDLE_TRAINERS_NUM=" + QString::number(nodes),
            "PADDLE_TRAINER_ID=0", "PADDLE_TRAINER_ENDPOINTS=stale:1" });
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));
    QStringList argv = run.out.split(' ', Qt::SkipEmptyParts);
    // The launcher's own arguments, then the trainer and its arguments.
    QCOMPARE(argv.mid(0, 3), QStringList({ "-u", "-m", "paddle.distributed.launch" }));
    QCOMPARE(argv.contains(QStringLiteral("--master")), nodes > 1);
    if (nodes > 1)
        QCOMPARE(argv[argv.indexOf(QStringLiteral("--master")) + 1], QStringLiteral("10.0.0.1:36677"));
    QCOMPARE(argv[argv.indexOf(QStringLiteral("--nnodes")) + 1], QString::number(nodes));
    const qsizetype trainer = argv.indexOf(QStringLiteral("./train_qwen_fine_grained.py"));
    QVERIFY(trainer > 0);
    // "--sharding stage3" is one argument to bash (quoted); echo joins it with a space again.
    QStringList trainerArgs = argv.mid(trainer + 1);
    const qsizetype sharding = trainerArgs.indexOf(QStringLiteral("--sharding"));
    QVERIFY(sharding >= 0);
    const std::string violations = [&] {
        std::string found;
        for (const std::string& item : paddleViolations(trainerArgs, plan.world))
            found += item + "\n";
        return found;
    }();
    QVERIFY2(violations.empty(), (violations + run.out.toStdString()).c_str());
    const auto value
        = [&](const char* flag) { return trainerArgs[trainerArgs.indexOf(QString::fromLatin1(flag)) + 1]; };
    QCOMPARE(value("--intermediate_size").toInt(), model.ffn_hidden_size);
    QCOMPARE(value("--num_key_value_heads").toInt(), model.num_kv_heads);
    QCOMPARE(value("--input_dir"), QStringLiteral("/data/llama"));
    QCOMPARE(value("--max_steps"), QStringLiteral("10000"));
    // Without flash attention the port's model stores the sequence x sequence scores (issue 25).
    QCOMPARE(value("--use_flash_attention"), QStringLiteral("true"));
}

QTEST_GUILESS_MAIN(TestPaddleExports)
#include "tst_paddle_exports.moc"
