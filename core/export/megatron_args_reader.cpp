// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/megatron_args_reader.h"

#include <charconv>
#include <map>

#include "core/common/error.h"

namespace stratex::exporting {

namespace {

// Shell words of one line: blanks separate, '...' quotes literally (shellQuote's '\'' included).
std::vector<std::string> shellWords(std::string_view line)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '\'') {
            const std::size_t end = line.find('\'', i + 1);
            if (end == std::string_view::npos)
                throw Error("Megatron arguments: unterminated quote in: " + std::string(line));
            word += line.substr(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (c == '\\' && i + 1 < line.size()) {
            word += line[++i];
            inWord = true;
        } else if (c == ' ' || c == '\t') {
            if (inWord)
                words.push_back(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (inWord)
        words.push_back(word);
    return words;
}

using Flags = std::map<std::string, std::string>;

int intFlag(const Flags& flags, const std::string& flag, int fallback)
{
    const auto it = flags.find(flag);
    if (it == flags.end())
        return fallback;
    int value = 0;
    const std::string& text = it->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 1)
        throw Error("Megatron arguments: " + flag + " expects a positive integer, found '" + text + "'");
    return value;
}

// The decoder layers of every chunk of a layout string as the exports write it ("Et*5|t|t*0L":
// E, t, t*n, L per chunk, '|' between chunks; commas cosmetic).
std::vector<int> layoutChunks(const std::string& layout)
{
    std::vector<int> chunks(1, 0);
    for (std::size_t i = 0; i < layout.size(); ++i) {
        const char c = layout[i];
        if (c == '|') {
            chunks.push_back(0);
        } else if (c == 't') {
            int count = 1;
            if (i + 1 < layout.size() && layout[i + 1] == '*') {
                std::size_t end = i + 2;
                while (end < layout.size() && layout[end] >= '0' && layout[end] <= '9')
                    ++end;
                if (end == i + 2)
                    throw Error("Megatron arguments: --pipeline-model-parallel-layout: 't*' without a count");
                count = std::stoi(layout.substr(i + 2, end - i - 2));
                i = end - 1;
            }
            chunks.back() += count;
        } else if (c != 'E' && c != 'L' && c != ',' && c != ' ') {
            throw Error(std::string("Megatron arguments: --pipeline-model-parallel-layout: '") + c
                + "' is not read here (E, t, t*n, L and | are)");
        }
    }
    return chunks;
}

} // namespace

MegatronArgumentList parseMegatronArguments(std::string_view text)
{
    std::vector<std::string> words;
    const std::size_t array = text.find("MEGATRON_ARGS=(");
    if (array != std::string_view::npos) {
        std::size_t pos = text.find('\n', array);
        bool closed = false;
        while (pos != std::string_view::npos && pos + 1 < text.size()) {
            const std::size_t end = text.find('\n', pos + 1);
            std::string_view line
                = text.substr(pos + 1, end == std::string_view::npos ? std::string_view::npos : end - pos - 1);
            const std::size_t first = line.find_first_not_of(" \t");
            if (first != std::string_view::npos && line[first] == ')') {
                closed = true;
                break;
            }
            for (std::string& word : shellWords(line))
                words.push_back(std::move(word));
            pos = end;
        }
        if (!closed)
            throw Error("Megatron arguments: MEGATRON_ARGS=( has no closing )");
    } else {
        words = shellWords(text);
    }
    MegatronArgumentList args;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (words[i].rfind("--", 0) != 0)
            throw Error("Megatron arguments: expected a flag, found '" + words[i] + "'");
        // Every word up to the next flag is the flag's value (nargs='+' flags take several).
        std::string value;
        std::size_t next = i + 1;
        for (; next < words.size() && words[next].rfind("--", 0) != 0; ++next)
            value += (value.empty() ? "" : " ") + words[next];
        args.emplace_back(words[i], value);
        i = next - 1;
    }
    return args;
}

perf::ParallelStrategy strategyFromMegatronArguments(const MegatronArgumentList& list, long long worldSize)
{
    const Flags flags(list.begin(), list.end());
    const auto has = [&](const char* flag) { return flags.contains(flag); };
    const auto text = [&](const char* flag) { return has(flag) ? flags.at(flag) : std::string(); };
    const auto fail = [](const std::string& flag, const std::string& what) {
        throw Error("Megatron arguments: " + flag + ": " + what);
    };
    perf::ParallelStrategy s;
    const int layers = intFlag(flags, "--num-layers", 0);
    if (layers <= 0)
        fail("--num-layers", "missing");
    s.tp = intFlag(flags, "--tensor-model-parallel-size", 1);
    s.pp = intFlag(flags, "--pipeline-model-parallel-size", 1);
    s.cp = intFlag(flags, "--context-parallel-size", 1);
    const long long modelParallel = static_cast<long long>(s.tp) * s.pp * s.cp;
    if (worldSize % modelParallel != 0)
        fail("--tensor-model-parallel-size",
            "tp x pp x cp = " + std::to_string(modelParallel) + " does not divide the world size "
                + std::to_string(worldSize));
    s.dp = int(worldSize / modelParallel);
    if (has("--cp-comm-type")) {
        const std::optional<perf::CpCommType> kind = perf::parseCpCommType(text("--cp-comm-type"));
        if (!kind)
            fail("--cp-comm-type", "p2p or a2a expected (the kinds Stratex costs), found " + text("--cp-comm-type"));
        s.cp_comm_type = *kind;
    }
    s.ep = intFlag(flags, "--expert-model-parallel-size", 1);
    s.etp = has("--num-experts") ? intFlag(flags, "--expert-tensor-parallel-size", s.tp) : 1;
    s.sequence_parallel = has("--sequence-parallel") && s.tp > 1;

    // Pipeline division and virtual stages.
    s.vpp = 1;
    if (has("--pipeline-model-parallel-layout")) {
        const std::vector<int> chunks = layoutChunks(text("--pipeline-model-parallel-layout"));
        if (chunks.size() % std::size_t(s.pp) != 0)
            fail("--pipeline-model-parallel-layout", "its chunk count is not a multiple of pp");
        s.vpp = int(chunks.size()) / s.pp;
        std::vector<int> perRank(std::size_t(s.pp), 0);
        for (std::size_t c = 0; c < chunks.size(); ++c)
            perRank[c % std::size_t(s.pp)] += chunks[c];
        bool found = false;
        for (const auto& [first, last] : { std::pair { 0, 0 }, { perRank.front(), 0 }, { 0, perRank.back() },
                 { perRank.front(), perRank.back() } }) {
            perf::ParallelStrategy candidate = s;
            candidate.first_stage_layers = s.pp > 1 ? first : 0;
            candidate.last_stage_layers = s.pp > 1 ? last : 0;
            if (perf::chunkLayerCounts(candidate, layers) == chunks) {
                s = candidate;
                found = true;
                break;
            }
        }
        if (!found)
            fail("--pipeline-model-parallel-layout", "a division a Stratex strategy cannot hold");
    } else {
        s.first_stage_layers = intFlag(flags, "--decoder-first-pipeline-num-layers", 0);
        s.last_stage_layers = intFlag(flags, "--decoder-last-pipeline-num-layers", 0);
        if (has("--num-virtual-stages-per-pipeline-rank"))
            s.vpp = intFlag(flags, "--num-virtual-stages-per-pipeline-rank", 1);
        else if (has("--num-layers-per-virtual-pipeline-stage"))
            s.vpp = layers / s.pp / intFlag(flags, "--num-layers-per-virtual-pipeline-stage", 1);
    }
    s.schedule = s.vpp > 1 ? perf::PipelineSchedule::Interleaved : perf::PipelineSchedule::OneFOneB;

    // Recomputation.
    const std::string granularity = text("--recompute-granularity");
    if (granularity == "selective") {
        s.recompute = perf::Recompute::Selective;
        if (has("--recompute-modules")) {
            perf::RecomputeModules modules = perf::RecomputeModules::of({});
            std::string words = text("--recompute-modules") + " ";
            for (std::size_t start = 0, end; (end = words.find(' ', start)) != std::string::npos; start = end + 1) {
                if (end == start)
                    continue;
                const std::string name = words.substr(start, end - start);
                const std::optional<perf::RecomputeModule> module = perf::parseRecomputeModule(name);
                if (!module)
                    fail("--recompute-modules", "'" + name + "' is not one of " + perf::recomputeModuleChoices());
                modules = modules.with(*module);
            }
            s.recompute_modules = modules;
        }
    } else if (granularity == "full") {
        if (text("--recompute-method") != "uniform")
            fail("--recompute-method", "'" + text("--recompute-method") + "': a Stratex strategy recomputes uniformly");
        s.recompute = perf::Recompute::Full;
        s.recompute_num_layers = intFlag(flags, "--recompute-num-layers", 1);
    } else if (!granularity.empty()) {
        fail("--recompute-granularity", "'" + granularity + "' is neither full nor selective");
    }

    s.micro_batch_size = intFlag(flags, "--micro-batch-size", 1);
    s.global_batch_size = intFlag(flags, "--global-batch-size", s.micro_batch_size * s.dp);

    // Data parallelism.
    if (has("--use-megatron-fsdp")) {
        const std::string sharding = has("--data-parallel-sharding-strategy")
            ? text("--data-parallel-sharding-strategy")
            : std::string("optim_grads_params"); // Megatron's default
        static const std::map<std::string, int> stages { { "no_shard", 0 }, { "optim", 1 }, { "optim_grads", 2 },
            { "optim_grads_params", 3 } };
        if (!stages.contains(sharding))
            fail("--data-parallel-sharding-strategy", "'" + sharding + "' is not a Megatron-FSDP strategy");
        s.zero = stages.at(sharding);
    } else {
        s.zero = has("--use-distributed-optimizer") ? 1 : 0;
    }
    s.overlap_grad_reduce = has("--overlap-grad-reduce");

    if (has("--fp8-format"))
        s.precision = perf::Precision::Fp8;
    else if (has("--fp16"))
        s.precision = perf::Precision::Fp16;
    else if (has("--bf16"))
        s.precision = perf::Precision::Bf16;
    else
        fail("--bf16", "missing: a Stratex strategy trains in bf16, fp16 or fp8, not fp32");
    const std::string backend = text("--attention-backend");
    s.flash_attention = backend != "unfused" && backend != "local";
    return s;
}

model::ModelDescription modelFromMegatronArguments(
    const MegatronArgumentList& list, int vocabSize, const std::string& name)
{
    const Flags flags(list.begin(), list.end());
    const auto has = [&](const char* flag) { return flags.contains(flag); };
    model::ModelDescription m;
    m.name = name;
    m.vocab_size = vocabSize;
    m.num_layers = intFlag(flags, "--num-layers", 1);
    m.hidden_size = intFlag(flags, "--hidden-size", 1);
    m.num_heads = intFlag(flags, "--num-attention-heads", 1);
    m.ffn_hidden_size = intFlag(flags, "--ffn-hidden-size", 4 * m.hidden_size);
    m.num_kv_heads = has("--group-query-attention") ? intFlag(flags, "--num-query-groups", 1) : m.num_heads;
    m.seq_length = intFlag(flags, "--seq-length", 1);
    m.mlp = has("--swiglu") ? model::MlpKind::Gated : model::MlpKind::Plain;
    m.norm = has("--normalization") && flags.at("--normalization") == "RMSNorm" ? model::NormKind::RmsNorm
                                                                                : model::NormKind::LayerNorm;
    m.position = has("--position-embedding-type") && flags.at("--position-embedding-type") == "rope"
        ? model::PositionEmbedding::Rope
        : model::PositionEmbedding::Learned;
    m.tied_embeddings = !has("--untie-embeddings-and-output-weights");
    m.qkv_bias = has("--add-qkv-bias");
    if (has("--num-experts")) {
        model::MoeDescription moe;
        moe.num_experts = intFlag(flags, "--num-experts", 1);
        moe.top_k = intFlag(flags, "--moe-router-topk", 2);
        moe.expert_ffn_hidden_size = intFlag(flags, "--moe-ffn-hidden-size", m.ffn_hidden_size);
        const int shared = has("--moe-shared-expert-intermediate-size")
            ? intFlag(flags, "--moe-shared-expert-intermediate-size", 1)
            : 0;
        if (shared > 0) {
            moe.shared_experts = shared / moe.expert_ffn_hidden_size > 0 ? shared / moe.expert_ffn_hidden_size : 1;
            moe.shared_expert_ffn_hidden_size = shared / moe.shared_experts;
        }
        if (has("--moe-layer-freq")) {
            const std::string& pattern = flags.at("--moe-layer-freq");
            const std::size_t star = pattern.find("[0]*");
            if (star == std::string::npos)
                throw Error("Megatron arguments: --moe-layer-freq: '" + pattern + "' is not read here");
            moe.first_dense_layers = std::stoi(pattern.substr(star + 4));
        }
        m.moe = moe;
    }
    return m;
}

} // namespace stratex::exporting
