// SPDX-License-Identifier: GPL-3.0-or-later
#include "support/megatron_log_writer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>

#include "core/model/model_presets.h"
#include "core/runs/calibration.h"
#include "core/runs/calibration_runs.h"

namespace stratex::test {

namespace {

std::string pythonBool(bool value)
{
    return value ? "True" : "False";
}

std::string format(const char* pattern, double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, value);
    return buffer;
}

// megatron/training/arguments.py _print_args: sorted case-insensitively, dots up to 48 characters.
std::string argumentDump(const std::map<std::string, std::string>& args)
{
    std::vector<std::pair<std::string, std::string>> sorted(args.begin(), args.end());
    std::ranges::sort(sorted, [](const auto& a, const auto& b) {
        std::string x = a.first, y = b.first;
        std::ranges::transform(x, x.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        std::ranges::transform(y, y.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return x < y;
    });
    std::string out = "------------------------ arguments ------------------------\n";
    for (const auto& [name, value] : sorted)
        out += "  " + name + " " + std::string(name.size() < 48 ? 48 - name.size() : 0, '.') + " " + value + "\n";
    out += "-------------------- end of arguments ---------------------\n";
    return out;
}

std::map<std::string, std::string> arguments(const SyntheticMegatronRun& run)
{
    const model::ModelDescription& m = run.model;
    const megatron::ParallelStrategy& s = run.strategy;
    const int world = s.tp * s.pp * s.cp * s.dp;
    const bool gqa = m.num_kv_heads != m.num_heads;
    const char* recompute = s.recompute == megatron::Recompute::Full ? "full"
        : s.recompute == megatron::Recompute::Selective              ? "selective"
                                                                 : "None";
    return {
        { "accumulate_allreduce_grads_in_fp32", "True" },
        { "attention_backend", "AttnBackend.auto" },
        { "bf16", pythonBool(s.precision == megatron::Precision::Bf16) },
        { "context_parallel_size", std::to_string(s.cp) },
        { "data_parallel_size", std::to_string(s.dp) },
        { "expert_model_parallel_size", "1" },
        { "ffn_hidden_size", std::to_string(m.ffn_hidden_size) },
        { "fp16", pythonBool(s.precision == megatron::Precision::Fp16) },
        { "fp8", "None" },
        { "global_batch_size", std::to_string(s.global_batch_size) },
        { "group_query_attention", pythonBool(gqa) },
        { "hidden_size", std::to_string(m.hidden_size) },
        { "log_interval", "1" },
        { "micro_batch_size", std::to_string(s.micro_batch_size) },
        { "normalization", m.norm == model::NormKind::RmsNorm ? "RMSNorm" : "LayerNorm" },
        { "num_attention_heads", std::to_string(m.num_heads) },
        { "num_experts", "None" },
        { "num_layers", std::to_string(m.num_layers) },
        { "num_query_groups", gqa ? std::to_string(m.num_kv_heads) : "None" },
        { "overlap_grad_reduce", pythonBool(s.overlap_grad_reduce) },
        { "padded_vocab_size", std::to_string(m.vocab_size) },
        { "pipeline_model_parallel_size", std::to_string(s.pp) },
        { "position_embedding_type", m.position == model::PositionEmbedding::Rope ? "rope" : "learned_absolute" },
        { "rank", "0" },
        { "recompute_granularity", recompute },
        { "recompute_method", s.recompute == megatron::Recompute::Full ? "uniform" : "None" },
        { "recompute_num_layers",
            s.recompute == megatron::Recompute::Full ? std::to_string(std::max(1, s.recompute_num_layers)) : "None" },
        { "seq_length", std::to_string(m.seq_length) },
        { "sequence_parallel", pythonBool(s.sequence_parallel) },
        { "swiglu", pythonBool(m.mlp == model::MlpKind::Gated) },
        { "tensor_model_parallel_size", std::to_string(s.tp) },
        { "train_iters", "8" },
        { "transformer_impl", "transformer_engine" },
        { "untie_embeddings_and_output_weights", pythonBool(!m.tied_embeddings) },
        { "use_distributed_optimizer", pythonBool(s.zero >= 1) },
        { "virtual_pipeline_model_parallel_size", s.vpp > 1 ? std::to_string(s.vpp) : "None" },
        { "world_size", std::to_string(world) },
    };
}

// megatron/training/training.py training_log, one line per iteration (log_interval 1).
std::string iterationLine(int iteration, int samples, double ms, int globalBatch)
{
    char buffer[512];
    std::snprintf(buffer, sizeof buffer,
        " [2025-03-11 10:%02d:%02d.%06d] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration "
        "(ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | "
        "lm loss: %.6E | loss scale: 1.0 | grad norm: 1.234 | number of skipped iterations:   0 | number of nan "
        "iterations:   0 |\n",
        3 + iteration / 10, (iteration * 7) % 60, 100000 + iteration * 1371, iteration, 8, samples, ms, 150.0,
        1.5e-7 * iteration, globalBatch, 10.0 - iteration * 0.2);
    return buffer;
}

std::string memoryLine(int rank, int after, double maxReservedMib)
{
    return "[Rank " + std::to_string(rank) + "] (after " + std::to_string(after)
        + " iterations) memory (MB) | allocated: " + format("%.2f", maxReservedMib * 0.55)
        + " | max allocated: " + format("%.2f", maxReservedMib * 0.9) + " | reserved: " + format("%.2f", maxReservedMib)
        + " | max reserved: " + format("%.2f", maxReservedMib) + "\n";
}

} // namespace

std::string megatronLogText(const SyntheticMegatronRun& run)
{
    const megatron::ParallelStrategy& s = run.strategy;
    std::string out = "using world size: " + std::to_string(s.tp * s.pp * s.cp * s.dp)
        + ", data-parallel size: " + std::to_string(s.dp) + ", context-parallel size: " + std::to_string(s.cp)
        + ", tensor-model-parallel size: " + std::to_string(s.tp)
        + ", pipeline-model-parallel size: " + std::to_string(s.pp) + "\nusing torch.bfloat16 for parameters ...\n";
    out += argumentDump(arguments(run));
    out += "setting number of micro-batches to constant "
        + std::to_string(s.global_batch_size / (s.micro_batch_size * s.dp)) + "\n> initializing torch distributed ...\n"
        + "done with setup ...\ntraining ...\n";
    // Iterations 3-8 spread around the mean without moving it.
    static constexpr double kSpread[] = { 0.004, -0.004, 0.002, -0.002, 0.001, -0.001 };
    for (int iteration = 1; iteration <= 8; ++iteration) {
        const double ms = iteration == 1 ? run.iteration_ms * 4.0
            : iteration == 2             ? run.iteration_ms * 1.1
                                         : run.iteration_ms * (1 + kSpread[iteration - 3]);
        out += iterationLine(iteration, iteration * s.global_batch_size, ms, s.global_batch_size);
        if (run.max_reserved_mib && iteration <= 2)
            out += memoryLine(0, iteration, *run.max_reserved_mib);
    }
    out += "[after training is done] datetime: 2025-03-11 10:04:54 \n";
    return out;
}

bool writeMegatronLog(const std::string& path, const SyntheticMegatronRun& run)
{
    std::ofstream file(path, std::ios::binary);
    file << megatronLogText(run);
    return bool(file);
}

std::vector<SyntheticMegatronRun> variedLlamaRuns()
{
    const auto preset = [](const std::string& name) {
        for (const model::ModelDescription& m : model::modelPresets()) {
            if (m.name == name)
                return m;
        }
        return model::ModelDescription {};
    };
    const auto strategy = [](int tp, int pp, int cp, int dp, int gbs, megatron::Recompute recompute, bool overlap) {
        megatron::ParallelStrategy s;
        s.tp = tp;
        s.pp = pp;
        s.cp = cp;
        s.dp = dp;
        s.micro_batch_size = 1;
        s.global_batch_size = gbs;
        s.sequence_parallel = tp > 1;
        s.zero = 1;
        s.recompute = recompute;
        s.recompute_num_layers = recompute == megatron::Recompute::Full ? 1 : 0;
        s.overlap_grad_reduce = overlap;
        return s;
    };
    using megatron::Recompute;
    std::vector<SyntheticMegatronRun> runs;
    runs.push_back({ preset("llama2-7b"), strategy(1, 1, 1, 8, 64, Recompute::Selective, true) });
    runs.push_back({ preset("llama2-7b"), strategy(2, 2, 1, 4, 64, Recompute::Selective, true) });
    runs.push_back({ preset("llama2-7b"), strategy(1, 1, 1, 32, 256, Recompute::Selective, false) });
    runs.push_back({ preset("llama2-13b"), strategy(8, 1, 1, 4, 64, Recompute::Selective, true) });
    runs.push_back({ preset("llama2-13b"), strategy(4, 2, 2, 2, 32, Recompute::Full, true) });
    runs.push_back({ preset("llama2-70b"), strategy(8, 4, 1, 2, 64, Recompute::Selective, false) });
    // One micro-batch per replica across 4 nodes: little compute to hide the gradient reduction behind.
    runs.push_back({ preset("llama2-7b"), strategy(1, 1, 1, 32, 32, Recompute::Selective, true) });
    return runs;
}

std::vector<std::string> writeRunsMeasuredUnder(const std::string& dir, std::vector<SyntheticMegatronRun> runs,
    const std::string& gpu, void (*inject)(hardware::Efficiency&))
{
    std::vector<std::string> paths;
    std::vector<std::filesystem::path> files;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        paths.push_back(dir + "/run-" + std::to_string(i) + ".log");
        files.emplace_back(paths.back());
        if (!writeMegatronLog(paths.back(), runs[i]))
            return {};
    }
    runs::CalibrationRunOptions options;
    options.cluster.gpu = gpu;
    options.cluster.gpus_per_node = 8;
    const std::vector<runs::ReferenceRun> read = runs::readCalibrationRuns(files, options);
    hardware::Efficiency truth = hardware::efficiencyFor(read.front().cluster);
    inject(truth);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        runs[i].iteration_ms = runs::runError(read[i], truth).predicted_iteration_s * 1e3;
        if (!writeMegatronLog(paths[i], runs[i]))
            return {};
    }
    return paths;
}

} // namespace stratex::test
