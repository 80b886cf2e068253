// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the torchtitan main export's suites share (tst_torchtitan_module, tst_torchtitan_plan_module):
// the Python config module read back as the assignments of its config function, and the checks
// against torchtitan main's config dataclasses (torchtitan_main_fields.h, copied from
// pytorch/torchtitan at b5bcd76c) and the rules its Trainer, ParallelDims and pipeline code enforce.
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <QString>

#include "core/export/torchtitan_module.h"

#include "export_test_util.h"
#include "torchtitan_main_fields.h"

namespace stratex::test::torchtitan_read {

namespace tt = stratex::test::torchtitan_main;
using exporting::kTorchtitanConfigFunction;

// What the config function assigns: "section.field" -> the Python text of the value (lists of
// lists as their items).
struct Module {
    std::map<std::string, std::string> values;
    std::vector<std::vector<std::string>> fqns; // module_fqns_per_model_part
    std::vector<std::string> errors;
    bool raises = false; // the function raises before building anything (a refusal)
};

inline std::vector<std::string> stringsOf(const std::string& text)
{
    static const std::regex literal(R"re("((?:[^"\\]|\\.)*)")re");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), literal); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1]);
    return out;
}

inline Module readModule(const std::string& text)
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
inline std::vector<std::string> fieldViolations(const Module& m)
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
        case tt::Type::Components: {
            const std::vector<std::string> names = stringsOf(value);
            ok = value.starts_with("[") && value.ends_with("]") && !names.empty()
                && std::all_of(names.begin(), names.end(),
                    [&](const std::string& n) { return field->second.literals.contains(n); });
            break;
        }
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
inline std::vector<std::string> flavourViolations(const std::string& text)
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

inline long long intValue(const Module& m, const std::string& key, long long fallback)
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
inline std::vector<std::string> startupViolations(const Module& m, long long world, int layers)
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

inline std::vector<int> partLayers(const Module& m)
{
    std::vector<int> out;
    for (const auto& part : m.fqns)
        out.push_back(int(std::count_if(part.begin(), part.end(), [](const std::string& n) { return n.starts_with("layers."); })));
    return out;
}

inline std::vector<std::string> items(const QString& text)
{
    std::vector<std::string> out;
    for (const QString& item : text.split(';', Qt::SkipEmptyParts))
        out.push_back(item.toStdString());
    return out;
}

} // namespace stratex::test::torchtitan_read
