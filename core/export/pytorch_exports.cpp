// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/pytorch_exports.h"

#include <algorithm>

#include "core/export/shell_quote.h"
#include "core/export/uniform_plan.h"
#include "core/model/model_presets.h"

namespace stratex::exporting {

namespace {

// The same architecture up to the name, the sequence length and the RoPE scaling (torchtitan's
// llama3 flavours always scale).
bool sameArchitecture(const model::ModelDescription& a, const model::ModelDescription& b)
{
    model::ModelDescription x = a;
    x.name = b.name;
    x.seq_length = b.seq_length;
    x.rope_scaling = b.rope_scaling;
    return x == b;
}

} // namespace

std::string tomlString(const std::string& text)
{
    // A TOML basic string (TOML 1.0, "String"): " and \ escaped, control characters as \b \t \n
    // \f \r or \uXXXX -- a raw newline ended the string, and a crafted model name
    // ("\"]\n[job]\nx = 1") injected keys (issue 26). TOML must be UTF-8: a byte that does not start
    // a valid UTF-8 sequence becomes U+FFFD.
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out = "\"";
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t size = text.size();
    for (std::size_t i = 0; i < size;) {
        const unsigned char c = bytes[i];
        if (c < 0x80) {
            switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\f': out += "\\f"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20 || c == 0x7f)
                    out += std::string("\\u00") + kHex[c >> 4] + kHex[c & 15];
                else
                    out += char(c);
            }
            ++i;
            continue;
        }
        // The length of a valid UTF-8 sequence starting here (RFC 3629: no overlongs, no
        // surrogates, at most U+10FFFF), or 0.
        std::size_t length = 0;
        const auto continuation = [&](std::size_t k, unsigned char low = 0x80, unsigned char high = 0xbf) {
            return i + k < size && bytes[i + k] >= low && bytes[i + k] <= high;
        };
        if (c >= 0xc2 && c <= 0xdf && continuation(1))
            length = 2;
        else if (c == 0xe0 && continuation(1, 0xa0) && continuation(2))
            length = 3;
        else if (((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) && continuation(1) && continuation(2))
            length = 3;
        else if (c == 0xed && continuation(1, 0x80, 0x9f) && continuation(2))
            length = 3;
        else if (c == 0xf0 && continuation(1, 0x90) && continuation(2) && continuation(3))
            length = 4;
        else if (c >= 0xf1 && c <= 0xf3 && continuation(1) && continuation(2) && continuation(3))
            length = 4;
        else if (c == 0xf4 && continuation(1, 0x80, 0x8f) && continuation(2) && continuation(3))
            length = 4;
        if (length == 0) {
            out += "\\uFFFD";
            ++i;
        } else {
            out.append(text, i, length);
            i += length;
        }
    }
    return out + "\"";
}

std::optional<TorchtitanModel> torchtitanModel(const model::ModelDescription& model)
{
    // torchtitan/models/llama3/model/args.py: rope_scaling_args defaults to RoPEScalingArgs (8, 1, 4,
    // 8192), Llama 3.1's; deepseek_v3's 671B: q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim
    // 128, qk_rope_head_dim 64, v_head_dim 128.
    static const std::pair<const char*, TorchtitanModel> shipped[] {
        { "llama3.1-8b", { "llama3", "8B", "" } },
        { "llama3.1-70b", { "llama3", "70B", "" } },
        { "llama3-405b", { "llama3", "405B", "" } },
        { "deepseek-v3-style", { "deepseek_v3", "671B", "" } },
    };
    for (const auto& [preset, titan] : shipped) {
        const model::ModelDescription known = model::modelPreset(preset);
        if (!sameArchitecture(model, known))
            continue;
        TorchtitanModel found = titan;
        // v0.2.2's deepseek_v3 (model/model.py precompute_freqs_cis, Attention.__init__) applies
        // YaRN (rope_factor 40) and its softmax mscale only beyond original_seq_len 4096.
        if (found.name == "deepseek_v3" && model.seq_length > 4096)
            found.note = "torchtitan's deepseek_v3 applies YaRN RoPE scaling (factor 40) beyond 4096 positions; "
                + model.name + " has none";
        else if (model.rope_scaling != known.rope_scaling)
            found.note = "torchtitan's llama3 applies Llama 3.1's RoPE scaling (factor 8 over 8192 positions); "
                + model.name + " has " + (model.rope_scaling ? "another" : "none");
        return found;
    }
    return std::nullopt;
}

std::optional<ExportNote> torchtitanModelNote(const model::ModelDescription& model)
{
    const std::optional<TorchtitanModel> titan = torchtitanModel(model);
    if (!titan)
        return ExportNote { ExportNoteKind::Approximation, "model",
            "torchtitan: v0.2 ships no flavour of " + model.name
                + "'s architecture: the job config trains the model its [model] names (torchtitan's default "
                  "debug model without one) unless you register a flavour for it" };
    if (!titan->note.empty())
        return ExportNote { ExportNoteKind::Approximation, "model", "torchtitan: " + titan->note };
    return std::nullopt;
}

std::string torchtitanModelSection(const model::ModelDescription& model, bool float8)
{
    std::string s;
    const std::optional<TorchtitanModel> titan = torchtitanModel(model);
    if (!titan)
        s += "\n# [model]: torchtitan v0.2 ships llama3 (8B, 70B, 405B), llama4, qwen3, deepseek_v3 and gpt_oss "
             "flavours, none\n# of "
            + commentLine(model.name) + "'s architecture; set name and flavor to one you registered.\n";
    else if (!titan->note.empty())
        s += "\n# [model]: " + commentLine(titan->note) + ".\n";
    if (!titan && !float8)
        return s;
    s += "\n[model]\n";
    if (titan)
        s += "name = " + tomlString(titan->name) + "\nflavor = " + tomlString(titan->flavor) + "\n";
    if (float8)
        s += "converters = [\"quantize.linear.float8\"]\n";
    return s;
}

std::string PipelineAction::text() const
{
    return std::to_string(stage) + type + std::to_string(microbatch);
}

std::vector<std::vector<PipelineAction>> pipelineOrder(const galvatron::Plan& plan)
{
    const int p = std::max(1, plan.pp);
    const int m = std::max(1, plan.chunks);
    std::vector<std::vector<PipelineAction>> ranks(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) {
        std::vector<PipelineAction>& actions = ranks[std::size_t(r)];
        if (plan.pipeline_type == galvatron::PipelineType::GPipe) {
            for (int i = 0; i < m; ++i)
                actions.push_back({ r, 'F', i });
            for (int i = 0; i < m; ++i)
                actions.push_back({ r, 'B', i });
            continue;
        }
        const int warmup = std::min(m, p - r);
        int forward = 0;
        int backward = 0;
        while (forward < warmup)
            actions.push_back({ r, 'F', forward++ });
        while (backward < m) {
            actions.push_back({ r, 'B', backward++ });
            if (forward < m)
                actions.push_back({ r, 'F', forward++ });
        }
    }
    return ranks;
}

std::string pipelineScheduleCsv(const std::vector<std::vector<PipelineAction>>& ranks)
{
    std::string csv;
    for (const std::vector<PipelineAction>& rank : ranks) {
        for (std::size_t i = 0; i < rank.size(); ++i)
            csv += (i ? "," : "") + rank[i].text();
        csv += "\r\n"; // csv.writer's default line terminator
    }
    return csv;
}

std::string pipelineScheduleCsv(const galvatron::Plan& plan)
{
    return pipelineScheduleCsv(pipelineOrder(plan));
}

TorchtitanConfig torchtitanConfig(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model)
{
    TorchtitanConfig config;
    std::vector<std::string> notes; // the file's comments: every note of the export (export_note.h)
    const auto note = [&](std::string field, const std::string& text,
                          ExportNoteKind kind = ExportNoteKind::Approximation) {
        notes.push_back(text);
        addExportNote(config.notes, kind, std::move(field), "torchtitan: " + text);
    };
    if (const std::optional<ExportNote> modelNote = torchtitanModelNote(model))
        config.notes.push_back(*modelNote);
    const int world = plan.world > 0 ? plan.world : settings.world();
    const int layers = int(plan.layers.size());
    const int pp = plan.pp;
    const int tp = mostCommonTp(plan);
    const int cp = mostCommonUlysses(plan);
    const int dp = std::max(1, world / (pp * tp * cp));

    // Per-layer degrees torchtitan cannot give.
    int otherDegrees = 0;
    for (const galvatron::LayerStrategy& s : plan.layers)
        otherDegrees += s.tp != tp || s.sp != cp ? 1 : 0;
    if (otherDegrees > 0)
        note("tp_sizes_enc", std::to_string(otherDegrees) + " of " + std::to_string(layers)
            + " layers planned with other TP/SP degrees: torchtitan uses one of each (tp " + std::to_string(tp)
            + ", cp " + std::to_string(cp) + ")");
    if (cp > 1)
        note("use_sp", "Ulysses SP " + std::to_string(cp)
            + " runs as torchtitan's context parallelism (ring attention), not an all-to-all");

    // Data parallelism: FSDP2 shards (reshard after forward: ZeRO-3; never: ZeRO-2), DDP replicates.
    const DpTypeMix mix = dpTypeMix(plan);
    int replicate = dp;
    int shard = 1;
    std::string reshard;
    if (dp > 1 && (mix.any_zero3 || mix.any_zero2)) {
        replicate = 1;
        shard = dp;
        reshard = mix.any_zero3 ? "always" : "never";
        if (mix.any_zero3 && !mix.every_zero3)
            note("dp_types_enc", "per-layer ZeRO is not expressible: every layer reshards after forward (ZeRO-3)");
    }

    // Batches: with PP, torchtitan splits each step's local batch into micro-batches; without,
    // Galvatron's micro-batches are gradient-accumulation steps.
    const long long perStep = static_cast<long long>(plan.chunks) * dp;
    if (plan.gbsz % perStep != 0)
        note("global_bsz", "global batch " + std::to_string(plan.gbsz) + " does not divide into " + std::to_string(plan.chunks)
            + " micro-batches x dp " + std::to_string(dp) + "; torchtitan asserts on it", ExportNoteKind::Refusal);
    const int microbatch = int(std::max(1LL, plan.gbsz / perStep));
    const int localBatch = pp > 1 ? microbatch * plan.chunks : microbatch;
    if (pp > 1 && plan.pipeline_type != galvatron::PipelineType::GPipe && plan.chunks < pp)
        note("chunks", std::to_string(plan.chunks) + " micro-batches for " + std::to_string(pp)
            + " stages: torch's Schedule1F1B needs at least one per stage", ExportNoteKind::Refusal);

    // Recomputation: torchtitan's full AC, or layer-level selective AC every Nth layer.
    int checkpointed = 0;
    for (const galvatron::LayerStrategy& s : plan.layers)
        checkpointed += s.checkpoint ? 1 : 0;
    std::string acMode = "none";
    int acEvery = 0;
    if (checkpointed == layers && layers > 0) {
        acMode = "full";
    } else if (checkpointed > 0) {
        acMode = "selective";
        acEvery = std::max(1, layers / checkpointed);
        note("checkpoint", "the plan recomputes " + std::to_string(checkpointed) + " of " + std::to_string(layers)
            + " layers; torchtitan's layer-level selective AC recomputes every " + std::to_string(acEvery)
            + (acEvery == 1 ? "st" : "th") + " layer (" + std::to_string(layers / acEvery) + ")");
    }
    if (plan.embedSdp() == 1 && shard == 1)
        note("embed_sdp", "embedding / LM head: ZeRO-3 planned; torchtitan shards it only with FSDP");

    if (settings.mixed_precision == galvatron::MixedPrecision::Fp16)
        note("mixed_precision", "fp16: torchtitan trains in bfloat16 or float32 (mixed_precision_param bfloat16 here)");

    std::string s;
    s += "# torchtitan job config for a Galvatron strategy, written by Stratex (torchtitan v0.2 TOML,\n";
    s += "# torchtitan/config/job_config.py; train with ./run_train.sh --job.config_file this.toml).\n";
    s += "# "
        + commentLine("model " + model.name + ": " + std::to_string(model.num_layers) + " layers, hidden "
            + std::to_string(model.hidden_size) + ", seq " + std::to_string(model.seq_length))
        + "\n";
    s += "# "
        + commentLine("plan: pp " + std::to_string(pp) + ", chunks " + std::to_string(plan.chunks) + ", global batch "
            + std::to_string(plan.gbsz) + "; layers " + plan.layerSummary())
        + "\n";
    s += "# torchtitan: tp " + std::to_string(tp) + ", pp " + std::to_string(pp) + ", cp " + std::to_string(cp)
        + ", dp " + std::to_string(dp) + (shard > 1 ? " (FSDP2)" : "") + "\n";
    if (!notes.empty())
        s += "# Not expressible in torchtitan, written as the nearest it accepts:\n";
    for (const std::string& line : notes)
        s += "#   " + commentLine(line) + "\n";
    s += "\n[job]\n";
    s += "description = " + tomlString("Stratex plan for " + model.name) + "\n";
    s += torchtitanModelSection(model, false);
    s += "\n[training]\n";
    s += "local_batch_size = " + std::to_string(localBatch) + "\n";
    s += "global_batch_size = " + std::to_string(plan.gbsz) + "\n";
    s += "seq_len = " + std::to_string(model.seq_length) + "\n";
    s += std::string("mixed_precision_param = ")
        + (settings.mixed_precision == galvatron::MixedPrecision::Fp32 ? "\"float32\"" : "\"bfloat16\"") + "\n";
    s += "\n[parallelism]\n";
    s += "data_parallel_replicate_degree = " + std::to_string(replicate) + "\n";
    s += "data_parallel_shard_degree = " + std::to_string(shard) + "\n";
    if (!reshard.empty())
        s += "fsdp_reshard_after_forward = " + tomlString(reshard) + "\n";
    s += "tensor_parallel_degree = " + std::to_string(tp) + "\n";
    s += "context_parallel_degree = " + std::to_string(cp) + "\n";
    s += "pipeline_parallel_degree = " + std::to_string(pp) + "\n";
    if (pp > 1) {
        s += std::string("pipeline_parallel_schedule = ")
            + (plan.pipeline_type == galvatron::PipelineType::GPipe ? "\"GPipe\"" : "\"1F1B\"") + "\n";
        s += "pipeline_parallel_microbatch_size = " + std::to_string(microbatch) + "\n";
        // The exact division, as torchtitan's llama3 names its modules.
        s += "module_fqns_per_model_part = [\n";
        int first = 0;
        for (int stage = 0; stage < pp; ++stage) {
            std::string part = "    [";
            if (stage == 0)
                part += "\"tok_embeddings\", ";
            const int end = first + plan.pp_division[std::size_t(stage)];
            for (int i = first; i < end; ++i)
                part += "\"layers." + std::to_string(i) + "\"" + (i + 1 < end ? ", " : "");
            if (stage + 1 == pp)
                part += ", \"norm\", \"output\"";
            s += part + "]" + (stage + 1 < pp ? "," : "") + "\n";
            first += plan.pp_division[std::size_t(stage)];
        }
        s += "]\n";
    }
    s += "\n[activation_checkpoint]\n";
    s += "mode = " + tomlString(acMode) + "\n";
    if (acMode == "selective")
        s += "selective_ac_option = " + tomlString(std::to_string(acEvery)) + "\n";
    config.text = s;
    return config;
}

} // namespace stratex::exporting
