// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the suites of a Stratex plan file's exports share (tst_plan_exports, tst_export_facts): a
// plan written as "key=value" items, Megatron's arguments as the rules read them, and as
// Megatron-LM's _print_args dumps them for runs::runArguments to read back.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <QRegularExpression>
#include <QString>

#include "core/export/megatron_flags.h"
#include "core/hardware/cluster_description.h"
#include "core/megatron/plan_file.h"
#include "core/model/model_presets.h"
#include "core/runs/run_arguments.h"

#include "export_test_util.h"
#include "megatron_rules.h"

namespace stratex::test {

using megatron::ParallelStrategy;
using megatron::Recompute;
using exporting::MegatronArgumentList;

// A plan: a preset (resized to `layers` when > 0) on nodes x 8 GPUs of `gpu`, and a strategy
// written as "key=value" items over ParallelStrategy's fields.
inline megatron::PlanFile planOf(const char* preset, int layers, int seq, const char* gpu, int nodes, const QString& items)
{
    megatron::PlanFile plan;
    plan.file = "plan.json";
    plan.model = model::modelPreset(preset);
    if (layers > 0)
        plan.model = resizedModel(preset, layers, seq);
    else if (seq > 0)
        plan.model.seq_length = seq;
    plan.cluster = { hardware::gpuPreset(gpu), nodes, 8 };
    ParallelStrategy& s = plan.strategy;
    for (const QString& item : items.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString key = item.section(QLatin1Char('='), 0, 0);
        const QString value = item.section(QLatin1Char('='), 1);
        const int n = value.toInt();
        if (key == "tp")
            s.tp = n;
        else if (key == "pp")
            s.pp = n;
        else if (key == "vpp")
            s.vpp = n;
        else if (key == "cp")
            s.cp = n;
        else if (key == "n") // the interleaved micro-batch group N
            s.microbatch_group_size = n;
        else if (key == "modules") {
            s.recompute_modules = megatron::RecomputeModules::of({});
            for (const QString& name : value.split(','))
                s.recompute_modules = s.recompute_modules.with(*megatron::parseRecomputeModule(name.toStdString()));
        } else if (key == "cpcomm")
            s.cp_comm_type = *megatron::parseCpCommType(value.toStdString());
        else if (key == "ep")
            s.ep = n;
        else if (key == "etp")
            s.etp = n;
        else if (key == "dp")
            s.dp = n;
        else if (key == "sp")
            s.sequence_parallel = n != 0;
        else if (key == "zero")
            s.zero = n;
        else if (key == "recompute")
            s.recompute = *megatron::parseRecompute(value.toStdString());
        else if (key == "groups")
            s.recompute_num_layers = n;
        else if (key == "mbs")
            s.micro_batch_size = n;
        else if (key == "gbs")
            s.global_batch_size = n;
        else if (key == "schedule")
            s.schedule = *megatron::parsePipelineSchedule(value.toStdString());
        else if (key == "first")
            s.first_stage_layers = n;
        else if (key == "last")
            s.last_stage_layers = n;
        else if (key == "precision")
            s.precision = *megatron::parsePrecision(value.toStdString());
        else if (key == "overlap")
            s.overlap_grad_reduce = n != 0;
        else if (key == "flash")
            s.flash_attention = n != 0;
        else if (key == "kernel")
            s.attention_kernel = *hardware::parseAttentionKernel(value.toStdString());
        else if (key == "compile")
            s.compile = *megatron::parseCompile(value.toStdString());
        else if (key == "compileloss") // compile_loss (docs/memory-model.md)
            s.compile_loss = n != 0;
        else if (key == "dispatcher") // moe_token_dispatcher
            s.moe_token_dispatcher = *megatron::parseMoeDispatcher(value.toStdString());
        else if (key == "graphs") // cuda_graphs (docs/kernels.md §7)
            s.cuda_graphs = *megatron::parseCudaGraphs(value.toStdString());
        else if (key == "recipe") // fp8_recipe
            s.fp8_recipe = *megatron::parseFp8Recipe(value.toStdString());
        else if (key == "tpoverlap")
            s.tp_comm_overlap = n != 0;
        else if (key == "fusion")
            s.gradient_accumulation_fusion = n != 0;
        else if (key == "tpasync") // tp_async_backward (docs/collectives.md, "TP backward overlap")
            s.tp_async_backward = n != 0;
        else if (key == "cefusion") // --cross-entropy-loss-fusion
            s.cross_entropy_loss_fusion = n != 0;
        else if (key == "grads")
            s.main_grads_dtype = *megatron::parseStateDtype(value.toStdString());
        else if (key == "optim")
            s.optimizer_state_dtype = *megatron::parseStateDtype(value.toStdString());
        else if (key == "framework")
            s.framework = *megatron::parseFramework(value.toStdString());
        else
            qFatal("unknown strategy key %s", qPrintable(key));
    }
    return plan;
}

inline megatron_rules::Args argsOf(const MegatronArgumentList& list)
{
    megatron_rules::Args args;
    for (const auto& [flag, value] : list) {
        if (args.contains(flag))
            qWarning("flag given twice: %s", flag.c_str());
        args[flag] = value;
    }
    return args;
}

// What Megatron-LM's _print_args dumps for the arguments an export wrote, on `world` GPUs with the
// tokenizer padding the vocabulary to `vocab` (megatron/training/arguments.py): argparse's dest
// names, switches True (--disable-bias-linear: add_bias_linear False), lists and enums as Python
// prints them, and what validate_args derives (world and data-parallel sizes, the virtual pipeline
// size from any of its three flags, no sequence parallelism without TP, add_qkv_bias with biases).
inline runs::ArgumentDump dumpOf(const MegatronArgumentList& list, int world, int vocab)
{
    const megatron_rules::Args args = argsOf(list);
    std::map<std::string, std::string> values { { "tensor_model_parallel_size", "1" },
        { "pipeline_model_parallel_size", "1" }, { "context_parallel_size", "1" }, { "add_bias_linear", "True" } };
    const auto pythonList = [](const std::string& words) {
        std::string out;
        for (const QString& word : QString::fromStdString(words).split(' ', Qt::SkipEmptyParts))
            out += (out.empty() ? "['" : ", '") + word.toStdString() + "'";
        return out + "]";
    };
    for (const auto& [flag, value] : list) {
        std::string dest = flag.substr(2);
        std::replace(dest.begin(), dest.end(), '-', '_');
        if (flag == "--microbatch-group-size-per-virtual-pipeline-stage") // dest: the config field's name
            values["microbatch_group_size_per_vp_stage"] = value;
        else if (flag == "--disable-bias-linear")
            values["add_bias_linear"] = "False";
        else if (flag == "--no-gradient-accumulation-fusion") // store_false, dest gradient_accumulation_fusion
            values["gradient_accumulation_fusion"] = "False";
        else if (flag == "--fp8-format")
            values["fp8"] = value;
        else if (flag == "--attention-backend")
            values[dest] = "AttnBackend." + value;
        else if (flag == "--recompute-modules" || flag == "--cp-comm-type")
            values[dest] = pythonList(value);
        else if (flag == "--moe-layer-freq") {
            // "([0]*k+[1]*n)", evaluated.
            const QStringList parts
                = QString::fromStdString(value).split(QRegularExpression("[^0-9]+"), Qt::SkipEmptyParts);
            std::string pattern;
            for (int i = 0; i + 1 < parts.size(); i += 2) {
                for (int j = 0; j < parts[i + 1].toInt(); ++j)
                    pattern += (pattern.empty() ? "[" : ", ") + parts[i].toStdString();
            }
            values[dest] = pattern + "]";
        } else
            values[dest] = value.empty() ? "True" : value;
    }
    const int tp = std::stoi(values["tensor_model_parallel_size"]);
    const int modelRanks
        = tp * std::stoi(values["pipeline_model_parallel_size"]) * std::stoi(values["context_parallel_size"]);
    values["world_size"] = std::to_string(world);
    values["data_parallel_size"] = std::to_string(world / modelRanks);
    values["padded_vocab_size"] = std::to_string(vocab);
    int vpp = 1;
    std::vector<std::string> unused;
    megatron_rules::megatronChunks(args, unused, &vpp);
    if (vpp > 1)
        values["virtual_pipeline_model_parallel_size"] = std::to_string(vpp);
    if (tp == 1)
        values["sequence_parallel"] = "False";
    // validate_args prints the resolved fields: accumulate_allreduce_grads_in_fp32 on under --bf16
    // unless --grad-reduce-in-bf16, and map_dtype's torch dtypes for the optimizer states.
    if (values.contains("bf16"))
        values["accumulate_allreduce_grads_in_fp32"] = values.contains("grad_reduce_in_bf16") ? "False" : "True";
    for (const char* key : { "exp_avg_dtype", "exp_avg_sq_dtype" }) {
        if (values.contains(key) && values[key] == "bf16")
            values[key] = "torch.bfloat16";
    }
    if (values["add_bias_linear"] == "True")
        values["add_qkv_bias"] = "True";
    runs::ArgumentDump dump;
    dump.file = "megatron.log";
    dump.first_line = 1;
    int line = 1;
    for (const auto& [name, value] : values)
        dump.values[name] = { value, ++line };
    return dump;
}

// Two strategies run the same way: every field, the division compared as Megatron builds it.
inline bool sameRun(ParallelStrategy a, ParallelStrategy b, int layers)
{
    if (megatron::chunkLayerCounts(a, layers) != megatron::chunkLayerCounts(b, layers))
        return false;
    a.first_stage_layers = b.first_stage_layers = 0;
    a.last_stage_layers = b.last_stage_layers = 0;
    if (a.recompute != Recompute::Full)
        a.recompute_num_layers = b.recompute_num_layers = 0;
    a.recompute_num_layers = std::max(1, a.recompute_num_layers) * (a.recompute == Recompute::Full);
    b.recompute_num_layers = std::max(1, b.recompute_num_layers) * (b.recompute == Recompute::Full);
    if (a.dp * a.cp == 1)
        a.overlap_grad_reduce = b.overlap_grad_reduce = false;
    if (a.ep == 1 && b.ep == 1)
        a.etp = b.etp; // no expert parallelism: the expert TP degree is moot
    a.microbatch_group_size = a.vpp > 1 ? a.microbatchGroupSize() : 0; // N = pp given or not: the same run
    b.microbatch_group_size = b.vpp > 1 ? b.microbatchGroupSize() : 0;
    // The FP8 recipe as it runs: a log names it (delayed, Megatron's default, when absent), a plan
    // may leave it to its framework (megatron::resolvedFp8Recipe).
    a.fp8_recipe = a.precision == megatron::Precision::Fp8 ? megatron::resolvedFp8Recipe(a) : megatron::Fp8Recipe::Default;
    b.fp8_recipe = b.precision == megatron::Precision::Fp8 ? megatron::resolvedFp8Recipe(b) : megatron::Fp8Recipe::Default;
    return a == b;
}

} // namespace stratex::test
