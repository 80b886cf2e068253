// SPDX-License-Identifier: GPL-3.0-or-later
// The torchtitan main export (torchtitan_module.h): the Python config module, read back against
// torchtitan main's config dataclasses (torchtitan_main_fields.h, copied from pytorch/torchtitan at
// b5bcd76c) and the rules its Trainer, ParallelDims and pipeline code enforce, for the scenarios of
// issue 25 (VPP, CP ring and Ulysses, EP with and without expert TP, uneven stages, ZeRO 0-3,
// recompute modules, FP8 MoE, ZB-H1, GPipe, models torchtitan does not ship, Galvatron plans); and
// compiled by python3 where there is one.
#include <filesystem>
#include <regex>
#include <set>

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "core/export/plan_export.h"
#include "core/export/plan_file_export.h"
#include "core/export/python_literal.h"
#include "core/export/pytorch_plan_exports.h"
#include "core/export/shell_quote.h"
#include "core/export/torchtitan_module.h"
#include "core/model/hf_config.h"

#include "plan_file_test_util.h"
#include "torchtitan_main_fields.h"

using namespace stratex;
using namespace stratex::exporting;
using namespace stratex::test;
namespace tt = stratex::test::torchtitan_main;

namespace {

// What the config function assigns: "section.field" -> the Python text of the value (lists of
// lists as their items).
struct Module {
    std::map<std::string, std::string> values;
    std::vector<std::vector<std::string>> fqns; // module_fqns_per_model_part
    std::vector<std::string> errors;
    bool raises = false; // the function raises before building anything (a refusal)
};

std::vector<std::string> stringsOf(const std::string& text)
{
    static const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

Module readModule(const std::string& text)
{
    Module m;
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = text.find('\n', start);
        lines.push_back(text.substr(start, end - start));
        start = end == std::string::npos ? text.size() : end + 1;
    }
    const std::string def = "def " + std::string(kTorchtitanConfigFunction) + "() -> Trainer.Config:";
    auto line = std::find(lines.begin(), lines.end(), def);
    if (line == lines.end()) {
        m.errors.push_back("no " + def);
        return m;
    }
    for (++line; line != lines.end() && (line->empty() || line->starts_with("    ")); ++line) {
        if (line->starts_with("    raise ValueError("))
            m.raises = true;
        if (!line->starts_with("    config."))
            continue;
        const std::size_t eq = line->find(" = ");
        const std::string key = line->substr(11, eq - 11);
        std::string value = line->substr(eq + 3);
        if (value == "[") {
            for (++line; line != lines.end() && *line != "    ]"; ++line)
                m.fqns.push_back(stringsOf(*line));
            value = "[...]";
        }
        if (m.values.contains(key))
            m.errors.push_back(key + " assigned twice");
        m.values[key] = value;
    }
    return m;
}

// The assignments against torchtitan main's fields and types.
std::vector<std::string> fieldViolations(const Module& m)
{
    std::vector<std::string> out = m.errors;
    static const std::regex integer(R"(-?[0-9]+)");
    static const std::regex string(R"re("(?:[^"\\]|\\.)*")re");
    for (const auto& [key, value] : m.values) {
        if (tt::removedFields().contains(key)) {
            out.push_back(key + ": torchtitan v0.2's field, not main's");
            continue;
        }
        const auto field = tt::fields().find(key);
        if (field == tt::fields().end()) {
            out.push_back(key + ": no such field in torchtitan main");
            continue;
        }
        bool ok = false;
        switch (field->second.type) {
        case tt::Type::Int: ok = std::regex_match(value, integer); break;
        case tt::Type::Bool: ok = value == "True" || value == "False"; break;
        case tt::Type::Str: ok = std::regex_match(value, string); break;
        case tt::Type::OptionalStr: ok = value == "None" || std::regex_match(value, string); break;
        case tt::Type::Literal:
            ok = std::regex_match(value, string) && field->second.literals.contains(stringsOf(value).at(0));
            break;
        case tt::Type::StrListList: ok = value == "[...]" && !m.fqns.empty(); break;
        case tt::Type::AcConfig:
            ok = value == "None" || value == "FullAC.Config()" || value == "SelectiveAC.Config()";
            break;
        case tt::Type::ImportList: ok = value.starts_with("[") && value.ends_with("]"); break;
        }
        if (!ok)
            out.push_back(key + " = " + value + ": not of the field's type");
    }
    return out;
}

// The registered flavour's calls against the keyword arguments of torchtitan main's builders and
// config dataclasses (torchtitan_main_fields.h): each argument one the callee has, each required
// one given; a built layer's moe assigned only MoE.Config's fields.
std::vector<std::string> flavourViolations(const std::string& text)
{
    std::vector<std::string> out;
    static const std::regex argument(R"((?:^\s+|,\s*)(\w+)=)");
    static const std::regex nested(R"(\([^()]*\))");
    static const std::regex call(R"(([\w.]+)\($)");
    static const std::regex moeField(R"(^\s+layer\.moe\.(\w+) = )");
    struct Call {
        std::string name;
        std::set<std::string> arguments;
    };
    std::vector<Call> open;
    const auto close = [&](const Call& c) {
        const auto known = tt::builderArguments().find(c.name);
        if (known == tt::builderArguments().end())
            return;
        for (const std::string& a : c.arguments)
            if (!known->second.contains(a))
                out.push_back(c.name + ": no argument " + a + " in torchtitan main");
        for (const auto& [name, required] : known->second)
            if (required && !c.arguments.contains(name))
                out.push_back(c.name + ": required argument " + name + " missing");
    };
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        if (line.starts_with("#") || line.starts_with("def "))
            continue;
        std::smatch match;
        if (std::regex_search(line, match, moeField) && !tt::moeConfigFields().contains(match[1]))
            out.push_back("layer.moe." + std::string(match[1]) + ": no such MoE.Config field");
        const std::size_t indent = line.find_first_not_of(' ');
        if (indent != std::string::npos && line[indent] == ')' && !open.empty()) {
            close(open.back());
            open.pop_back();
            continue;
        }
        // The arguments at this call's level: a nested call's own (on one line) taken out first.
        std::string level = line;
        for (std::string shorter; (shorter = std::regex_replace(level, nested, "")) != level;)
            level = shorter;
        for (auto it = std::sregex_iterator(level.begin(), level.end(), argument);
             !open.empty() && it != std::sregex_iterator(); ++it)
            open.back().arguments.insert((*it)[1]);
        if (std::regex_search(line, match, call))
            open.push_back({ match[1], {} });
    }
    return out;
}

long long intValue(const Module& m, const std::string& key, long long fallback)
{
    const auto it = m.values.find(key);
    return it == m.values.end() ? fallback : std::stoll(it->second);
}

// The rules torchtitan main applies when it starts (b5bcd76c): ParallelDims._validate (the degrees'
// product is the world; EP divides dp_shard x cp x tp), Trainer.__init__ (tokens per micro-batch
// divide by TP x 2 CP; tokens per step divide by one accumulation step), Trainer.Config.
// _validate_cuda_graphs (no CUDA graphs with PP or EP), pipeline_parallel.py (model parts: one per
// stage of a single-stage schedule, at least two per rank of a looped one; every layer once, in
// order, tok_embeddings first, norm and lm_head last).
std::vector<std::string> startupViolations(const Module& m, long long world, int layers)
{
    std::vector<std::string> out;
    const long long replicate = intValue(m, "parallelism.data_parallel_replicate_degree", 1);
    const long long shard = intValue(m, "parallelism.data_parallel_shard_degree", -1);
    const long long tp = intValue(m, "parallelism.tensor_parallel_degree", 1);
    const long long cp = intValue(m, "parallelism.context_parallel_degree", 1);
    const long long pp = intValue(m, "parallelism.pipeline_parallel_degree", 1);
    const long long ep = intValue(m, "parallelism.expert_parallel_degree", 1);
    if (replicate * shard * tp * cp * pp != world)
        out.push_back("degrees multiply to " + std::to_string(replicate * shard * tp * cp * pp) + ", world "
            + std::to_string(world));
    if ((shard * cp * tp) % ep != 0)
        out.push_back("ep does not divide dp_shard * cp * tp");
    const long long tokens = intValue(m, "training.num_tokens_per_microbatch_per_dp_rank", 16384);
    const bool sp = !m.values.contains("parallelism.enable_sequence_parallel")
        || m.values.at("parallelism.enable_sequence_parallel") == "True";
    if (tokens % ((sp ? tp : 1) * (cp > 1 ? 2 * cp : 1)) != 0)
        out.push_back("tokens per micro-batch do not divide by TP x 2 CP");
    const long long microbatches = pp > 1 ? intValue(m, "parallelism.num_pp_microbatches", 1) : 1;
    const long long step = intValue(m, "training.num_tokens_per_train_step", -1);
    if (step > 0 && step % (tokens * microbatches * replicate * shard) != 0)
        out.push_back("num_tokens_per_train_step does not divide into accumulation steps");
    const bool graphsOff = m.values.contains("training.disable_cuda_graphs")
        && m.values.at("training.disable_cuda_graphs") == "True";
    if ((pp > 1 || ep > 1) && !graphsOff)
        out.push_back("CUDA graphs on with PP or EP");
    if (pp > 1) {
        const std::string schedule = stringsOf(m.values.at("parallelism.pipeline_parallel_schedule")).at(0);
        const bool single = schedule == "1F1B" || schedule == "GPipe" || schedule == "PipelineScheduleSingle";
        const long long parts = static_cast<long long>(m.fqns.size());
        if (single ? parts != pp : parts < 2 * pp || parts % pp != 0)
            out.push_back(std::to_string(parts) + " model parts for schedule " + schedule);
        std::vector<std::string> order;
        for (const auto& part : m.fqns)
            order.insert(order.end(), part.begin(), part.end());
        std::vector<std::string> expected { "tok_embeddings" };
        for (int i = 0; i < layers; ++i)
            expected.push_back("layers." + std::to_string(i));
        expected.push_back("norm");
        expected.push_back("lm_head");
        if (order != expected)
            out.push_back("model parts do not hold every module once, in order");
    }
    return out;
}

std::vector<int> partLayers(const Module& m)
{
    std::vector<int> out;
    for (const auto& part : m.fqns)
        out.push_back(int(std::count_if(part.begin(), part.end(), [](const std::string& n) { return n.starts_with("layers."); })));
    return out;
}

std::vector<std::string> items(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& item : text.split(';', Qt::SkipEmptyParts))
        out.push_back(item.toStdString());
    return out;
}

galvatron::Plan galvatronPlan(const std::vector<int>& division, int tp, int sp, galvatron::DpType dpType, int chunks,
    const std::vector<int>& checkpointed)
{
    galvatron::Plan plan;
    plan.pp = int(division.size());
    plan.world = 8;
    plan.pp_division = division;
    plan.gbsz = 64;
    plan.chunks = chunks;
    plan.pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    int layer = 0;
    for (int n : division) {
        for (int i = 0; i < n; ++i, ++layer) {
            galvatron::LayerStrategy s;
            s.pp = plan.pp;
            s.tp = tp;
            s.sp = sp;
            s.dp = 8 / (plan.pp * tp * sp);
            s.dp_type = s.dp > 1 ? dpType : galvatron::DpType::Ddp;
            s.checkpoint = std::find(checkpointed.begin(), checkpointed.end(), layer) != checkpointed.end();
            plan.layers.push_back(s);
        }
    }
    plan.embedding = { plan.pp, tp, sp, 1, 8 / (plan.pp * tp * sp), galvatron::DpType::Zero2 };
    return plan;
}

megatron::PlanFile gpipePlan()
{
    megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 zero=0 gbs=16");
    plan.gpipe = true;
    return plan;
}

// DeepSeek-V2-Lite as its config.json describes it (q_lora_rank null, softmax routing without
// expert bias, 2 shared experts): EP 8 with TP 2 on 16 GPUs.
megatron::PlanFile v2LitePlan(const QString& items = "tp=2 pp=1 ep=8 dp=8 sp=1 zero=1 gbs=64")
{
    megatron::PlanFile plan = planOf("deepseek-v3-style", 0, 0, "h100-80gb", 2, items);
    plan.model = model::readHfConfigFile(
        std::filesystem::path(STRATEX_TEST_DATA_DIR) / "hf-configs" / "deepseek-v2-lite.json").model;
    plan.model.name = "deepseek-v2-lite";
    return plan;
}

// An MLA model with a field deepseek_v3's blocks lack.
megatron::PlanFile mlaWithQkNorm()
{
    megatron::PlanFile plan = v2LitePlan();
    plan.model.qk_norm = true;
    return plan;
}

struct Scenario {
    std::string text;
    std::vector<ExportNote> notes;
    long long world = 0;
    int layers = 0;
};

} // namespace

Q_DECLARE_METATYPE(Scenario)

class TestTorchtitanModule : public QObject {
    Q_OBJECT

private:
    // Every scenario: its export, its world and layers.
    static void scenarios();

private Q_SLOTS:
    void pythonStringEscapes_data();
    void pythonStringEscapes();
    void injectedModelNameStaysAString();

    void loadsAsTorchtitanMain_data() { scenarios(); }
    void loadsAsTorchtitanMain();
    void compilesInPython_data() { scenarios(); }
    void compilesInPython();

    void checkerRejects_data();
    void checkerRejects();
    void flavourCheckerRejects_data();
    void flavourCheckerRejects();
    void planFile_data();
    void planFile();
    void galvatronRecomputeIsPerLayer();
    void theRoutedExportsAreMain();
    void versionNames();
};

void TestTorchtitanModule::pythonStringEscapes_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("literal");
    QTest::newRow("plain") << QByteArray("llama3") << R"("llama3")";
    QTest::newRow("quote and backslash") << QByteArray("a\"b\\c") << R"("a\"b\\c")";
    QTest::newRow("newline ends no line") << QByteArray("x\")\nimport os\n#") << R"("x\")\nimport os\n#")";
    QTest::newRow("tab, return, NUL, DEL, ESC")
        << QByteArray("\t\r\0\x7f\x1b", 5) << R"("\t\r\x00\x7f\x1b")";
    QTest::newRow("UTF-8 as escapes") << QByteArray("\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80")
                                      << R"("\u00e9\u2028\U0001f600")";
    QTest::newRow("invalid UTF-8") << QByteArray("a\xff\xc0\x80z") << R"("a\ufffd\ufffd\ufffdz")";
    QTest::newRow("a lone surrogate's bytes") << QByteArray("\xed\xa0\x80") << R"("\ufffd\ufffd\ufffd")";
}

void TestTorchtitanModule::pythonStringEscapes()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, literal);
    QCOMPARE(QString::fromStdString(pythonString(std::string(text.constData(), std::size_t(text.size())))), literal);
}

void TestTorchtitanModule::injectedModelNameStaysAString()
{
    // A model name crafted to close the string and the call: it stays one literal and one comment.
    megatron::PlanFile plan = planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    plan.model.name = "x\"]\nimport os\nos.system(\"id\")\n#\r";
    const TorchtitanConfig config = torchtitanModule(plan);
    QVERIFY2(config.text.find("\nimport os") == std::string::npos, config.text.c_str());
    QVERIFY2(config.text.find("\nos.system") == std::string::npos, config.text.c_str());
    QVERIFY(config.text.find(pythonString("stratex-" + plan.model.name)) != std::string::npos);
    for (const char c : config.text)
        QVERIFY2(c == '\n' || (c >= 0x20 && c < 0x7f), "a control or non-ASCII byte in the module");
}

void TestTorchtitanModule::scenarios()
{
    QTest::addColumn<Scenario>("scenario");
    const auto plan = [](const char* name, const megatron::PlanFile& p) {
        const TorchtitanConfig config = torchtitanModule(p);
        QTest::newRow(name) << Scenario { config.text, config.notes, p.cluster.worldSize(), p.model.num_layers };
    };
    plan("VPP", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 vpp=2 dp=2 sp=1 gbs=16 schedule=interleaved"));
    plan("CP ring", planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 zero=1 gbs=8"));
    plan("CP Ulysses", planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 cpcomm=a2a gbs=8"));
    plan("EP", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024"));
    plan("DeepSeek with CP", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 cp=2 pp=8 ep=16 dp=16 zero=1 gbs=1024"));
    plan("DeepSeek-V2-Lite: EP with TP", v2LitePlan());
    plan("DeepSeek-V2-Lite: CP", v2LitePlan("tp=1 cp=2 pp=2 ep=4 dp=4 zero=3 gbs=64"));
    plan("DeepSeek-V3 style: TP 8, EP 8", planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32,
                                                 "tp=8 pp=8 ep=8 dp=4 sp=1 zero=1 gbs=1024"));
    plan("MLA with QK norm (refused)", mlaWithQkNorm());
    plan("EP + ETP (refused)",
        planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=2 pp=8 ep=8 etp=2 dp=16 sp=1 zero=1 gbs=1024"));
    plan("uneven stages", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 first=6 last=10 zero=1 gbs=16"));
    for (int zero = 0; zero <= 3; ++zero) {
        const std::string name = "ZeRO-" + std::to_string(zero);
        plan(name.c_str(),
            planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, QString("tp=2 dp=4 sp=1 gbs=16 zero=%1").arg(zero)));
    }
    plan("recompute modules",
        planOf("llama3.1-8b", 0, 0, "h100-80gb", 1,
            "tp=2 pp=2 dp=2 sp=1 zero=1 recompute=selective modules=core_attn,mlp,layernorm gbs=16"));
    plan("full recompute", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 sp=1 recompute=full gbs=16"));
    plan("FP8 MoE",
        planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 precision=fp8 gbs=1024"));
    plan("ZB-H1", planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 zero=1 gbs=16 schedule=zb-h1"));
    plan("GPipe", gpipePlan());
    plan("Llama 2: a registered flavour", planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"));
    plan("Llama 3 without scaling", planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16"));
    plan("Mixtral (refused)",
        planOf("mixtral-8x7b", 0, 4096, "h100-80gb", 2, "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64 precision=fp8"));
    const auto galvatron = [](const char* name, const galvatron::Plan& p, int layers) {
        const model::ModelDescription m = resizedModel("llama2-7b", layers, 2048);
        const TorchtitanConfig config = torchtitanModule(p, galvatron::SearchSettings {}, m);
        QTest::newRow(name) << Scenario { config.text, config.notes, p.world, layers };
    };
    galvatron("Galvatron: ZeRO-3, 5 layers recomputed on stage 0",
        galvatronPlan({ 6, 2 }, 2, 1, galvatron::DpType::Zero3, 4, { 0, 1, 2, 3, 4 }), 8);
    galvatron("Galvatron: Ulysses, DDP", galvatronPlan({ 4, 4 }, 1, 2, galvatron::DpType::Ddp, 4, {}), 8);
    {
        // The plan a Galvatron search finds on the llama2-7b fixtures.
        const galvatron::SearchSettings settings = llamaSettings(36, 16);
        const galvatron::Plan p = searched(36, 16);
        const TorchtitanConfig config = torchtitanModule(p, settings, llama7b());
        QTest::newRow("Galvatron: searched on the fixtures")
            << Scenario { config.text, config.notes, p.world > 0 ? p.world : settings.world(), int(p.layers.size()) };
    }
}

void TestTorchtitanModule::loadsAsTorchtitanMain()
{
    QFETCH(Scenario, scenario);
    const Module m = readModule(scenario.text);
    const std::string fields = joined(fieldViolations(m));
    QVERIFY2(fields.empty(), (fields + scenario.text).c_str());
    const std::string startup = joined(startupViolations(m, scenario.world, scenario.layers));
    QVERIFY2(startup.empty(), (startup + scenario.text).c_str());
    const std::string flavour = joined(flavourViolations(scenario.text));
    QVERIFY2(flavour.empty(), (flavour + scenario.text).c_str());
    // A refusal raises before torchtitan builds anything; otherwise nothing is refused.
    QCOMPARE(m.raises, !refusals(scenario.notes).empty());
    // Every note is a comment of the file.
    for (const ExportNote& note : scenario.notes)
        QVERIFY2(scenario.text.find(commentLine(note.text)) != std::string::npos, note.text.c_str());
}

void TestTorchtitanModule::compilesInPython()
{
    QFETCH(Scenario, scenario);
    const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (python.isEmpty())
        QSKIP("no python3 on PATH");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("stratex_torchtitan.py"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(scenario.text.data(), qint64(scenario.text.size()));
    file.close();
    QProcess process;
    process.start(python, { QStringLiteral("-m"), QStringLiteral("py_compile"), path });
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, (process.readAllStandardError().toStdString() + scenario.text).c_str());
}

void TestTorchtitanModule::checkerRejects_data()
{
    // The field check fails on what main does not have, or a wrong type: it can fail.
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("violation");
    QTest::newRow("v0.2's local batch") << "config.training.local_batch_size = 8" << "torchtitan v0.2's field";
    QTest::newRow("v0.2's expert TP") << "config.parallelism.expert_tensor_parallel_degree = 2"
                                      << "torchtitan v0.2's field";
    QTest::newRow("no such field") << "config.parallelism.virtual_stages = 2" << "no such field";
    QTest::newRow("a string for an int") << "config.parallelism.tensor_parallel_degree = \"8\"" << "type";
    QTest::newRow("a reshard policy main lacks") << "config.parallelism.fsdp_reshard_after_forward = \"sometimes\""
                                                 << "type";
    QTest::newRow("an unknown schedule") << "config.parallelism.pipeline_parallel_schedule = \"ZBH1\"" << "type";
    QTest::newRow("v0.2's AC mode") << "config.activation_checkpoint = \"selective\"" << "type";
}

void TestTorchtitanModule::checkerRejects()
{
    QFETCH(QString, line);
    QFETCH(QString, violation);
    const std::string text = "def stratex_plan() -> Trainer.Config:\n    " + line.toStdString() + "\n    return config\n";
    const std::string found = joined(fieldViolations(readModule(text)));
    QVERIFY2(found.find(violation.toStdString()) != std::string::npos, found.c_str());
}

void TestTorchtitanModule::flavourCheckerRejects_data()
{
    // The flavour check fails on an argument main's builders lack, or a missing required one.
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("violation");
    QTest::newRow("a misspelt builder argument") << "        n_dense_layers=" << "        n_dense_layer="
                                                 << "no argument n_dense_layer";
    QTest::newRow("a RoPE field main lacks") << "            theta=" << "            base=" << "no argument base";
    QTest::newRow("the value head dropped") << "        v_head_dim=128,\n" << ""
                                           << "required argument v_head_dim missing";
    QTest::newRow("an MoE field main lacks") << "layer.moe.load_balance_coeff" << "layer.moe.aux_loss_coeff"
                                             << "no such MoE.Config field";
}

void TestTorchtitanModule::flavourCheckerRejects()
{
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, violation);
    std::string text = torchtitanModule(v2LitePlan()).text;
    const std::size_t at = text.find(from.toStdString());
    QVERIFY2(at != std::string::npos, text.c_str());
    QVERIFY(flavourViolations(text).empty());
    text.replace(at, std::size_t(from.size()), to.toStdString());
    const std::string found = joined(flavourViolations(text));
    QVERIFY2(found.find(violation.toStdString()) != std::string::npos, (found + text).c_str());
}

void TestTorchtitanModule::planFile_data()
{
    QTest::addColumn<megatron::PlanFile>("plan");
    QTest::addColumn<QString>("expect"); // "key=value" assignments of the config function, ';'-separated
    QTest::addColumn<QString>("written"); // other text the module holds, ';'-separated
    QTest::addColumn<QString>("notes"); // parts of the notes, ';'-separated
    QTest::addColumn<QString>("parts"); // layers per model part, ',' separated ("" without PP)
    QTest::newRow("VPP: Interleaved1F1B over 4 parts, token batch")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 vpp=2 dp=2 sp=1 mbs=2 gbs=32 schedule=interleaved")
        << "parallelism.pipeline_parallel_schedule=\"Interleaved1F1B\";parallelism.num_pp_microbatches=8;"
           "training.num_tokens_per_microbatch_per_dp_rank=16384;training.num_tokens_per_train_step=262144;"
           "training.max_context_length=8192;parallelism.data_parallel_replicate_degree=2;"
           "parallelism.enable_sequence_parallel=True;activation_checkpoint=None"
        << "model_registry(\"8B\")" << "" << "8,8,8,8";
    QTest::newRow("TP communication overlap: AsyncTP with compile")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=4 dp=2 sp=1 zero=3 gbs=16 tpoverlap=1")
        << "compile.enable=True;compile.enable_async_tensor_parallel=True;parallelism.tensor_parallel_degree=4"
        << "" << "" << "";
    QTest::newRow("CP ring: FSDP over CP, the flex load balancer")
        << planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 zero=0 gbs=8")
        << "parallelism.context_parallel_degree=2;parallelism.context_parallel_load_balancer=\"ptrr\";"
           "parallelism.data_parallel_replicate_degree=2"
        << "" << "shards the weights over the CP ranks" << "";
    QTest::newRow("CP Ulysses: ring, said")
        << planOf("llama3.1-8b", 0, 32768, "h100-80gb", 1, "tp=2 cp=2 dp=2 sp=1 cpcomm=a2a zero=3 gbs=8")
        << "parallelism.context_parallel_degree=2" << "" << "only has ring attention" << "";
    QTest::newRow("EP 16, ETP 1: exact")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 gbs=1024")
        << "parallelism.expert_parallel_degree=16;training.disable_cuda_graphs=True"
        << "from torchtitan.models.deepseek_v3 import model_registry;"
           "_dsv3.deepseekv3_configs[\"stratex-deepseek-v3-style\"] = _stratex_flavor;"
           "model_registry(\"stratex-deepseek-v3-style\");n_layers=61,;n_dense_layers=3,;n_heads=128,;"
           "q_lora_rank=1536,;kv_lora_rank=512,;qk_nope_head_dim=128,;qk_rope_head_dim=64,;v_head_dim=128,;"
           "dense_hidden_dim=18432,;moe_hidden_dim=2048,;num_experts=256,;num_shared_experts=1,;router_top_k=8,;"
           "router_score_func=\"sigmoid\",;router_num_expert_groups=8,;router_num_limited_groups=4,;"
           "router_route_scale=2.5,;router_route_norm=True,;dim=64,;max_context_length=4096,;theta=10000.0,;"
           "scaling=\"none\",;hf_assets_path=\"./assets/hf/DeepSeek-V3.1-Base\""
        << "ZeRO-1: torchtitan's FSDP2" << "8,8,8,8,8,7,7,7";
    QTest::newRow("DeepSeek-V2-Lite: q_lora_rank 0, softmax without expert bias, 2 shared experts")
        << v2LitePlan() << "parallelism.expert_parallel_degree=8;parallelism.tensor_parallel_degree=2"
        << "model_registry(\"stratex-deepseek-v2-lite\");q_lora_rank=0,;n_dense_layers=1,;num_experts=64,;"
           "num_shared_experts=2,;moe_hidden_dim=1408,;router_top_k=6,;router_score_func=\"softmax\",;"
           "router_num_expert_groups=None,;router_route_scale=1.0,;router_route_norm=False,;"
           "layer.moe.load_balance_coeff = None;hf_assets_path=\"./assets/hf/deepseek-moe-16b-base\""
        << "ZeRO-1: torchtitan's FSDP2" << "";
    QTest::newRow("MLA with QK norm: refused, naming the field")
        << mlaWithQkNorm() << "" << "raise ValueError(" << "QK norm, which deepseek_v3's attention does not have"
        << "";
    QTest::newRow("DeepSeek with CP: FlexAttention's load balancer (v0.2 refused it at startup)")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 cp=2 pp=8 ep=16 dp=16 zero=1 gbs=1024")
        << "parallelism.context_parallel_degree=2;parallelism.context_parallel_load_balancer=\"ptrr\";"
           "parallelism.expert_parallel_degree=16;parallelism.data_parallel_shard_degree=16"
        << "" << "ZeRO-1: torchtitan's FSDP2" << "8,8,8,8,8,7,7,7";
    QTest::newRow("EP + ETP 2: refused, main has no expert TP")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=2 pp=8 ep=8 etp=2 dp=16 sp=1 zero=1 gbs=1024")
        << "parallelism.expert_parallel_degree=8" << "raise ValueError(" << "no expert tensor parallelism"
        << "8,8,8,8,8,7,7,7";
    QTest::newRow("uneven stages")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 first=6 last=10 zero=2 gbs=16")
        << "parallelism.pipeline_parallel_schedule=\"1F1B\"" << "" << "" << "6,8,8,10";
    QTest::newRow("ZeRO-0: DDP through the replicate mesh")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=0 gbs=16")
        << "parallelism.data_parallel_replicate_degree=4;parallelism.data_parallel_shard_degree=1" << "" << "" << "";
    QTest::newRow("ZeRO-1: FSDP never resharding, said")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=1 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"never\""
        << "" << "ZeRO-1: torchtitan's FSDP2" << "";
    QTest::newRow("ZeRO-2: FSDP never resharding")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=2 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"never\"" << "" << ""
        << "";
    QTest::newRow("ZeRO-3: FSDP resharding")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 dp=4 sp=1 zero=3 gbs=16")
        << "parallelism.data_parallel_shard_degree=4;parallelism.fsdp_reshard_after_forward=\"always\"" << "" << ""
        << "";
    QTest::newRow("recompute modules: the plan's submodules")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1,
               "tp=2 pp=2 dp=2 sp=1 zero=2 recompute=selective modules=core_attn,mlp gbs=16")
        << "activation_checkpoint=FullAC.Config();override.imports=[__name__ + \".stratex_recompute\"]"
        << "modules=[\"attention.inner_attention\", \"feed_forward\"]" << "" << "16,16";
    QTest::newRow("FP8 MoE: the grouped-GEMM converter")
        << planOf("deepseek-v3-style", 0, 0, "h100-80gb", 32, "tp=1 pp=8 ep=16 dp=32 zero=1 precision=fp8 gbs=1024")
        << "parallelism.expert_parallel_degree=16"
        << "Float8GroupedExpertsConverter.Config(),;Float8LinearConverter.Config(filter_fqns=[\"lm_head\", "
           "\"router.gate\"])"
        << "rowwise" << "8,8,8,8,8,7,7,7";
    QTest::newRow("ZB-H1: the schedule CSV")
        << planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "pp=4 dp=2 zero=1 gbs=16 schedule=zb-h1")
        << "parallelism.pipeline_parallel_schedule=\"PipelineScheduleSingle\";"
           "parallelism.pipeline_parallel_schedule_csv=\"pipeline_schedule.csv\""
        << "" << "ZB-H1 runs the schedule CSV" << "8,8,8,8";
    QTest::newRow("GPipe") << gpipePlan() << "parallelism.pipeline_parallel_schedule=\"GPipe\"" << "" << ""
                           << "16,16";
    QTest::newRow("Llama 2: its own flavour, no note")
        << planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << ""
        << "_llama3.llama3_configs[\"stratex-llama2-7b\"] = _stratex_flavor;n_kv_heads=32,;hidden_dim=11008,;"
           "theta=10000.0,;scaling=\"none\",;model_registry(\"stratex-llama2-7b\")"
        << "" << "16,16";
    QTest::newRow("Llama 3 without RoPE scaling: its own flavour")
        << planOf("llama3-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16") << ""
        << "theta=500000.0,;scaling=\"none\",;n_kv_heads=8," << "" << "16,16";
    // llama3's Attention takes head_dim = dim // n_heads: 32 heads of 256 next to dim 4096 is refused.
    megatron::PlanFile wideHeads = planOf("llama2-7b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    wideHeads.model.head_dim = 256;
    QTest::newRow("head_dim apart from dim / n_heads: refused, naming the field")
        << wideHeads << "" << "raise ValueError(" << "head_dim 256 (attention 8192 wide, hidden 4096)" << "16,16";
    QTest::newRow("Mixtral: refused, naming the field")
        << planOf("mixtral-8x7b", 0, 4096, "h100-80gb", 2, "tp=2 pp=1 ep=4 etp=1 dp=8 sp=1 zero=1 gbs=64")
        << "parallelism.expert_parallel_degree=4" << "raise ValueError(" << "mixture of experts (8 experts, top-2)"
        << "";
}

void TestTorchtitanModule::planFile()
{
    QFETCH(megatron::PlanFile, plan);
    QFETCH(QString, expect);
    QFETCH(QString, written);
    QFETCH(QString, notes);
    QFETCH(QString, parts);
    const TorchtitanConfig config = torchtitanModule(plan);
    const Module m = readModule(config.text);
    for (const std::string& item : items(expect)) {
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        QVERIFY2(m.values.contains(key), (item + "\n" + config.text).c_str());
        QCOMPARE(QString::fromStdString(m.values.at(key)), QString::fromStdString(item.substr(eq + 1)));
    }
    for (const std::string& part : items(written))
        QVERIFY2(config.text.find(part) != std::string::npos, (part + "\n" + config.text).c_str());
    const std::string lines = joined(config.notes);
    for (const std::string& part : items(notes))
        QVERIFY2(lines.find(part) != std::string::npos, (part + "\n" + lines).c_str());
    if (notes.isEmpty() && !written.contains("raise"))
        QVERIFY2(config.notes.empty(), lines.c_str());
    QStringList shown;
    for (int n : partLayers(m))
        shown << QString::number(n);
    QCOMPARE(shown.join(','), parts);
}

void TestTorchtitanModule::galvatronRecomputeIsPerLayer()
{
    // Issue 25: a Galvatron plan recomputing 5 layers on stage 0 became 1 per stage in v0.2's TOML.
    const galvatron::Plan plan = galvatronPlan({ 6, 2 }, 2, 1, galvatron::DpType::Zero3, 4, { 0, 1, 2, 3, 4 });
    const TorchtitanConfig config = torchtitanModule(plan, galvatron::SearchSettings {}, resizedModel("llama2-7b", 8, 2048));
    QVERIFY2(config.text.find("        layers=[0, 1, 2, 3, 4],\n") != std::string::npos, config.text.c_str());
    QVERIFY2(config.text.find("parallelism.fsdp_reshard_after_forward = \"always\"") != std::string::npos,
        config.text.c_str());
    const Module m = readModule(config.text);
    QCOMPARE(partLayers(m), (std::vector<int> { 6, 2 }));
    QVERIFY2(refusals(config.notes).empty(), joined(config.notes).c_str());
}

void TestTorchtitanModule::theRoutedExportsAreMain()
{
    // exportPlanFile and exportPlan (the CLI's default and the GUI) write the main module;
    // --torchtitan-version 0.2 (torchtitanExport) keeps v0.2's TOML.
    const megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 gbs=16");
    QCOMPARE(exportPlanFile(ExportFormat::Torchtitan, plan).text, torchtitanModule(plan).text);
    QCOMPARE(torchtitanExport(TorchtitanVersion::V0_2, plan).text, torchtitanPlanConfig(plan).text);
    QVERIFY(torchtitanExport(TorchtitanVersion::V0_2, plan).text.find("[parallelism]") != std::string::npos);
    const galvatron::Plan g = galvatronPlan({ 4, 4 }, 2, 1, galvatron::DpType::Zero3, 4, {});
    const model::ModelDescription m = resizedModel("llama2-7b", 8, 2048);
    ExportContext context;
    context.model = m;
    QCOMPARE(exportPlan(ExportFormat::Torchtitan, g, galvatron::SearchSettings {}, context).text,
        torchtitanModule(g, galvatron::SearchSettings {}, m).text);
    QCOMPARE(defaultExportFileName(ExportFormat::Torchtitan, {}), std::string("stratex_torchtitan.py"));
}

void TestTorchtitanModule::versionNames()
{
    QCOMPARE(parseTorchtitanVersion("main"), std::optional(TorchtitanVersion::Main));
    QCOMPARE(parseTorchtitanVersion("0.2"), std::optional(TorchtitanVersion::V0_2));
    QVERIFY(!parseTorchtitanVersion("0.3"));
    QCOMPARE(torchtitanVersionName(TorchtitanVersion::V0_2), std::string_view("0.2"));
}

QTEST_GUILESS_MAIN(TestTorchtitanModule)
#include "tst_torchtitan_module.moc"
