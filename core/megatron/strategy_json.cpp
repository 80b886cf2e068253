// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/strategy_json.h"

#include <algorithm>
#include <cctype>

#include "core/common/checked_math.h"
#include "core/common/input_limits.h"
#include "core/megatron/te_dummy_wgrad.h"

namespace stratex::megatron {

namespace {

void assume(std::vector<std::string>* assumptions, std::string text)
{
    if (assumptions)
        assumptions->push_back(std::move(text));
}

// `max`: the flags' bound (input_limits.h). Unbounded, pp 2147483647 allocated 8.6 GB of stage
// tables and first/last stage layers of 2^31-1 wrapped the remaining layers (issue 26).
int optionalInt(const JsonView& object, std::string_view key, int fallback, int max = limits::kMaxWorld)
{
    const std::optional<JsonView> value = object.find(key);
    if (!value)
        return fallback;
    const int read = value->positiveInt();
    if (read > max)
        value->fail("a positive integer of at most " + std::to_string(max));
    return read;
}

int optionalLayers(const JsonView& object, std::string_view key)
{
    const std::optional<JsonView> value = object.find(key);
    if (!value || value->integer() == 0)
        return 0;
    return optionalInt(object, key, 0, limits::kMaxLayers);
}

// The keys a strategy holds (toJson below). A key that differs only in case ("TP": 8) is an error:
// it was ignored and tp 1 assumed without a word (issue 26); any other is reported as ignored.
constexpr std::string_view kStrategyKeys[] = { "tp", "pp", "vpp", "cp", "cp_comm_type", "ep", "etp", "dp",
    "attention_kernel", // docs/kernels.md §6
    "compile", // docs/kernels.md, "Eager and compiled blocks"
    "cuda_graphs", // docs/kernels.md §7, "CUDA graphs"
    "compile_loss", // docs/memory-model.md, "torchtitan's compiled loss"
    "fp8_recipe", // docs/kernels.md §8, "The recipe"
    "sequence_parallel", "zero", "recompute", "recompute_num_layers", "recompute_modules", "micro_batch_size",
    "global_batch_size", "schedule", "first_stage_layers", "last_stage_layers", "precision", "overlap_grad_reduce",
    "tp_comm_overlap", "moe_token_dispatcher_type", "moe_ep_comm_overlap", "flash_attention", "framework",
    "main_grads_dtype", "optimizer_state_dtype", "gradient_accumulation_fusion", "transformer_engine_version",
    "cross_entropy_loss_fusion", // docs/memory-model.md, "Fused cross-entropy loss"
    "dp_shard", "microbatch_group_size", // docs/memory-model.md, "Micro-batch group N"
    "gradient_buffer", // docs/memory-model.md, "Gradient buffer lifetime"
    "cpu_offload_layers", // docs/memory-model.md, "CPU activation offload"
    "tp_async_backward" }; // docs/collectives.md, "TP backward overlap"

} // namespace

bool isStrategyKey(std::string_view key)
{
    return std::ranges::find(kStrategyKeys, key) != std::end(kStrategyKeys);
}

namespace {

void checkKeys(const JsonView& object, std::vector<std::string>* assumptions)
{
    const auto lower = [](std::string text) {
        std::ranges::transform(text, text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        return text;
    };
    for (const auto& [key, value] : object.members()) {
        if (std::ranges::find(kStrategyKeys, key) != std::end(kStrategyKeys))
            continue;
        const auto same = std::ranges::find(kStrategyKeys, lower(key));
        if (same != std::end(kStrategyKeys))
            value.fail("the key \"" + std::string(*same) + "\" (keys are lower case)");
        assume(assumptions, "unknown strategy key \"" + key + "\" ignored");
    }
}

template <typename Enum, typename Parse>
Enum readChoice(const JsonView& object, std::string_view key, Enum fallback, Parse parse, std::string_view expected)
{
    const std::optional<JsonView> value = object.find(key);
    if (!value)
        return fallback;
    const std::optional<Enum> parsed = parse(value->string());
    if (!parsed)
        value->fail(expected);
    return *parsed;
}

PipelineSchedule readSchedule(const JsonView& object)
{
    const std::optional<JsonView> schedule = object.find("schedule");
    if (!schedule)
        return PipelineSchedule::OneFOneB;
    const std::string name = schedule->string();
    if (name == "gpipe")
        return PipelineSchedule::OneFOneB;
    const std::optional<PipelineSchedule> parsed = parsePipelineSchedule(name);
    if (!parsed)
        schedule->fail("\"1f1b\", \"interleaved\", \"gpipe\" or \"zb-h1\"");
    return *parsed;
}

std::vector<std::string> recomputeModuleNames(const RecomputeModules& modules)
{
    const std::vector<std::string_view> names = modules.names();
    return { names.begin(), names.end() };
}

} // namespace

nlohmann::ordered_json toJson(const ParallelStrategy& s)
{
    nlohmann::ordered_json json {
        { "tp", s.tp },
        { "pp", s.pp },
        { "vpp", s.vpp },
        { "cp", s.cp },
        { "cp_comm_type", cpCommTypeName(s.cp_comm_type) },
        { "ep", s.ep },
        { "etp", s.etp },
        { "dp", s.dp },
        { "sequence_parallel", s.sequence_parallel },
        { "zero", s.zero },
        { "recompute", recomputeName(s.recompute) },
        { "recompute_num_layers", s.recompute_num_layers },
        { "recompute_modules", recomputeModuleNames(s.recompute_modules) },
        { "micro_batch_size", s.micro_batch_size },
        { "global_batch_size", s.global_batch_size },
        { "schedule", pipelineScheduleName(s.schedule) },
        { "first_stage_layers", s.first_stage_layers },
        { "last_stage_layers", s.last_stage_layers },
        { "precision", precisionName(s.precision) },
        { "overlap_grad_reduce", s.overlap_grad_reduce },
        { "framework", frameworkName(s.framework) },
        { "main_grads_dtype", stateDtypeName(s.main_grads_dtype) },
        { "optimizer_state_dtype", stateDtypeName(s.optimizer_state_dtype) },
        { "flash_attention", s.flash_attention },
    };
    if (s.tp_comm_overlap) // written only when on: plans and exports without it keep their bytes
        json["tp_comm_overlap"] = true;
    if (!s.gradient_accumulation_fusion) // likewise: written only when off
        json["gradient_accumulation_fusion"] = false;
    if (!s.tp_async_backward) // likewise: written only when off
        json["tp_async_backward"] = false;
    if (s.gradient_buffer != GradientBuffer::Persistent) // likewise: written only when not the default
        json["gradient_buffer"] = gradientBufferName(s.gradient_buffer);
    if (s.cross_entropy_loss_fusion) // likewise: written only when on (Megatron's default is off)
        json["cross_entropy_loss_fusion"] = true;
    if (s.te_version != 0) // likewise: written only when given
        json["transformer_engine_version"] = teVersionName(s.te_version);
    if (s.moe_token_dispatcher != MoeDispatcher::AllToAll) // likewise: written when not the default
        json["moe_token_dispatcher_type"] = moeDispatcherName(s.moe_token_dispatcher);
    if (s.moe_ep_comm_overlap)
        json["moe_ep_comm_overlap"] = true;
    if (s.attention_kernel != hardware::AttentionKernel::Default) // likewise: the framework's default unwritten
        json["attention_kernel"] = hardware::attentionKernelName(s.attention_kernel);
    if (s.compile != Compile::Default) // likewise: the framework's default unwritten (docs/kernels.md)
        json["compile"] = s.compile == Compile::On;
    if (!s.compile_loss) // likewise: written only when off (docs/memory-model.md)
        json["compile_loss"] = false;
    if (s.cuda_graphs != CudaGraphs::None) // likewise: written only when on (docs/kernels.md §7)
        json["cuda_graphs"] = cudaGraphsName(s.cuda_graphs);
    if (s.fp8_recipe != Fp8Recipe::Default) // likewise: the framework's default unwritten (docs/kernels.md §8)
        json["fp8_recipe"] = fp8RecipeName(s.fp8_recipe);
    if (s.microbatch_group_size > 0) // the interleaved group N: written only when given (0: pp)
        json["microbatch_group_size"] = s.microbatch_group_size;
    if (s.cpu_offload_layers > 0) // written only when on: plans without it keep their bytes
        json["cpu_offload_layers"] = s.cpu_offload_layers;
    if (s.dpReplicas() > 1) // HSDP (docs/hsdp.md): written only when the shard group is smaller than dp
        json["dp_shard"] = s.dpShard();
    return json;
}

ParallelStrategy readStrategy(const JsonView& object, const model::ModelDescription& model, long long worldSize,
    std::vector<std::string>* assumptions)
{
    object.requireObject();
    checkKeys(object, assumptions);
    ParallelStrategy s;
    s.tp = optionalInt(object, "tp", 1);
    s.pp = optionalInt(object, "pp", 1, limits::kMaxLayers); // a stage holds at least one layer
    s.cp = optionalInt(object, "cp", 1);
    s.cp_comm_type
        = readChoice(object, "cp_comm_type", CpCommType::P2p, parseCpCommType,
            "\"p2p\" (ring), \"a2a\" (Ulysses), \"all_gather\" or \"a2a+p2p\" (hierarchical)");
    s.ep = optionalInt(object, "ep", 1);
    s.etp = optionalInt(object, "etp", 1);
    const long long modelParallel = checkedProduct(
        { { "tp", s.tp }, { "pp", s.pp }, { "cp", s.cp } }, object.file(), limits::kMaxWorld);
    s.dp = optionalInt(object, "dp", int(std::clamp<long long>(worldSize / modelParallel, 1, 1 << 30)));
    s.global_batch_size = object["global_batch_size"].positiveInt();
    if (const std::optional<JsonView> mbs = object.find("micro_batch_size")) {
        s.micro_batch_size = optionalInt(object, "micro_batch_size", 1, limits::kMaxBatch);
    } else {
        assume(assumptions, "micro_batch_size 1");
    }
    if (const std::optional<JsonView> sp = object.find("sequence_parallel")) {
        s.sequence_parallel = sp->boolean();
    } else {
        s.sequence_parallel = s.tp > 1;
        if (s.tp > 1)
            assume(assumptions, "sequence parallelism on (tp > 1)");
    }
    if (const std::optional<JsonView> zero = object.find("zero")) {
        const std::int64_t stage = zero->integer();
        if (stage < 0 || stage > 3)
            zero->fail("0, 1, 2 or 3");
        s.zero = int(stage);
    } else {
        s.zero = s.dp * s.cp > 1 ? 1 : 0;
        if (s.zero == 1)
            assume(assumptions, "distributed optimizer (zero 1)");
    }
    if (const std::optional<JsonView> shard = object.find("dp_shard")) {
        // HSDP (docs/hsdp.md): the data-parallel ranks of one shard group; dp (or 0) is plain ZeRO.
        const std::int64_t ranks = shard->integer();
        if (ranks < 0 || ranks > s.dp || (ranks > 0 && s.dp % ranks != 0))
            shard->fail("0 or a divisor of dp " + std::to_string(s.dp) + " (the shard group's data-parallel ranks)");
        if (ranks > 0 && ranks < s.dp && s.zero < 1)
            shard->fail("dp (" + std::to_string(s.dp) + ") or 0 with zero 0: hybrid sharding needs zero >= 1");
        s.dp_shard = ranks == s.dp ? 0 : int(ranks);
    }
    s.recompute
        = readChoice(object, "recompute", Recompute::None, parseRecompute, "\"none\", \"selective\" or \"full\"");
    if (!object.has("recompute"))
        assume(assumptions, "no recompute");
    if (const std::optional<JsonView> modules = object.find("recompute_modules")) {
        modules->requireArray();
        RecomputeModules set = RecomputeModules::of({});
        for (const JsonView& element : modules->elements()) {
            const std::optional<RecomputeModule> module = parseRecomputeModule(element.string());
            if (!module)
                element.fail("one of Megatron's recompute modules (" + recomputeModuleChoices() + ")");
            set = set.with(*module);
        }
        if (s.recompute == Recompute::Selective)
            s.recompute_modules = set;
    }
    if (const std::optional<JsonView> n = object.find("recompute_num_layers"))
        s.recompute_num_layers = int(n->integer() == 0 ? 0 : n->positiveInt());
    s.schedule = readSchedule(object);
    if (const std::optional<JsonView> schedule = object.find("schedule"); schedule && schedule->string() == "gpipe")
        assume(assumptions, "schedule \"gpipe\" costed as 1F1B (the cost model has no GPipe)");
    s.first_stage_layers = optionalLayers(object, "first_stage_layers");
    s.last_stage_layers = optionalLayers(object, "last_stage_layers");
    s.vpp = optionalInt(object, "vpp", 1, limits::kMaxLayers);
    if (s.schedule == PipelineSchedule::Interleaved && s.pp > 1 && !object.has("vpp")) {
        // The smallest chunk count every stage's layers divide into.
        const std::vector<int> layers = stageLayerCounts(s, model.num_layers);
        for (int v = 2; v <= model.num_layers; ++v) {
            if (std::ranges::all_of(layers, [v](int n) { return n % v == 0; })) {
                s.vpp = v;
                break;
            }
        }
        assume(assumptions, "vpp " + std::to_string(s.vpp) + " (interleaved, chunks not given)");
    }
    if (s.vpp == 1 && s.schedule == PipelineSchedule::Interleaved)
        s.schedule = PipelineSchedule::OneFOneB;
    // The interleaved schedule's micro-batch group N (docs/memory-model.md, "Micro-batch group N"):
    // Megatron-Core's range [pp, micro-batches] with a last group of 0 or at least pp
    // (schedules.py forward_backward_pipelining_with_interleaving @ d98e8a64). pp is the default and
    // is kept unwritten (0), so plans that do not name N keep their bytes.
    if (const std::optional<JsonView> group = object.find("microbatch_group_size")) {
        const int n = group->positiveInt();
        const int m = s.microbatches();
        if (s.vpp <= 1)
            group->fail("no microbatch_group_size without the interleaved schedule (vpp > 1); found vpp "
                + std::to_string(s.vpp));
        if (n < s.pp || n > m)
            group->fail("an integer in [pp " + std::to_string(s.pp) + ", micro-batches " + std::to_string(m)
                + "] (Megatron-Core's --microbatch-group-size-per-virtual-pipeline-stage)");
        if (m % n != 0 && m % n < s.pp)
            group->fail("a group size whose last group (micro-batches " + std::to_string(m)
                + " mod N) is 0 or at least pp " + std::to_string(s.pp));
        s.microbatch_group_size = n == s.pp ? 0 : n;
    }
    // CPU activation offload (docs/memory-model.md, "CPU activation offload"): 0 is off; the range
    // and what it needs are strategyProblems' (it needs the model's layer count).
    if (const std::optional<JsonView> offload = object.find("cpu_offload_layers"))
        s.cpu_offload_layers = int(offload->integer() == 0 ? 0 : offload->positiveInt());
    s.precision = readChoice(object, "precision", Precision::Bf16, parsePrecision, "\"bf16\", \"fp16\" or \"fp8\"");
    if (const std::optional<JsonView> overlap = object.find("overlap_grad_reduce"))
        s.overlap_grad_reduce = overlap->boolean();
    if (const std::optional<JsonView> overlap = object.find("tp_comm_overlap"))
        s.tp_comm_overlap = overlap->boolean();
    if (const std::optional<JsonView> fusion = object.find("gradient_accumulation_fusion"))
        s.gradient_accumulation_fusion = fusion->boolean();
    if (const std::optional<JsonView> async = object.find("tp_async_backward"))
        s.tp_async_backward = async->boolean();
    if (const std::optional<JsonView> te = object.find("transformer_engine_version")) {
        const std::optional<int> version = te->isString() ? parseTeVersion(te->string()) : std::nullopt;
        if (!version)
            te->fail("a Transformer Engine release \"major.minor\" (\"2.3\", \"1.7.0\") or \"none\"");
        s.te_version = *version;
    }
    s.moe_token_dispatcher = readChoice(object, "moe_token_dispatcher_type", MoeDispatcher::AllToAll,
        parseMoeDispatcher, "\"alltoall\", \"allgather\" or \"flex\" (DeepEP/HybridEP)");
    if (const std::optional<JsonView> overlap = object.find("moe_ep_comm_overlap"))
        s.moe_ep_comm_overlap = overlap->boolean();
    if (const std::optional<JsonView> flash = object.find("flash_attention"))
        s.flash_attention = flash->boolean();
    // torch.compile of the blocks (docs/kernels.md, "Eager and compiled blocks"): true or false; absent, the
    // framework's default.
    if (const std::optional<JsonView> compile = object.find("compile"))
        s.compile = compile->boolean() ? Compile::On : Compile::Off;
    // torchtitan's loss compiled with the blocks (docs/memory-model.md, "torchtitan's compiled loss"):
    // absent, true, as torchtitan has run it since 2025-04.
    if (const std::optional<JsonView> compileLoss = object.find("compile_loss"))
        s.compile_loss = compileLoss->boolean();
    // CUDA graphs (docs/kernels.md §7, "CUDA graphs"): absent, none.
    s.cuda_graphs = readChoice(object, "cuda_graphs", CudaGraphs::None, parseCudaGraphs, cudaGraphsChoices());
    // The attention kernel (docs/kernels.md §6): "unfused" is flash_attention false; a fused kernel
    // with flash_attention false contradicts it.
    s.attention_kernel = readChoice(object, "attention_kernel", hardware::AttentionKernel::Default,
        hardware::parseAttentionKernel, hardware::attentionKernelChoices());
    if (s.attention_kernel == hardware::AttentionKernel::Unfused)
        s.flash_attention = false;
    else if (!s.flash_attention && s.attention_kernel != hardware::AttentionKernel::Default)
        object["attention_kernel"].fail("\"unfused\" or no attention_kernel with flash_attention false");
    s.framework = readChoice(object, "framework", Framework::MegatronCore, parseFramework, frameworkChoices());
    // Megatron-Core's fused cross entropy (docs/memory-model.md, "Fused cross-entropy loss"): a
    // Megatron-Core and Megatron-Bridge switch (model_parallel_config.py cross_entropy_loss_fusion @
    // d98e8a64); torchtitan, DeepSpeed and Composer run their own loss.
    if (const std::optional<JsonView> fusion = object.find("cross_entropy_loss_fusion")) {
        s.cross_entropy_loss_fusion = fusion->boolean();
        if (s.cross_entropy_loss_fusion && s.framework != Framework::MegatronCore
            && s.framework != Framework::MegatronBridge)
            fusion->fail("false or no cross_entropy_loss_fusion with framework \"" + std::string(frameworkName(s.framework))
                + "\" (Megatron-Core's and Megatron-Bridge's switch only)");
    }
    // Transformer Engine's FP8 recipe (docs/kernels.md §8, "The recipe"): absent, the framework's default.
    s.fp8_recipe = readChoice(object, "fp8_recipe", Fp8Recipe::Default, parseFp8Recipe, fp8RecipeChoices());
    if (const std::string why = fp8RecipeProblem(s); !why.empty())
        object["fp8_recipe"].fail("a recipe this strategy runs (" + why + ")");
    s.main_grads_dtype = readChoice(object, "main_grads_dtype", StateDtype::Fp32, parseStateDtype, "\"fp32\" or \"bf16\"");
    s.optimizer_state_dtype
        = readChoice(object, "optimizer_state_dtype", StateDtype::Fp32, parseStateDtype, "\"fp32\" or \"bf16\"");
    // docs/memory-model.md, "Gradient buffer lifetime".
    s.gradient_buffer = readChoice(
        object, "gradient_buffer", GradientBuffer::Persistent, parseGradientBuffer, "\"persistent\" or \"step\"");
    if (s.gradient_buffer == GradientBuffer::Step
        && (s.zero != 1 || (s.framework != Framework::MegatronCore && s.framework != Framework::MegatronBridge)))
        object["gradient_buffer"].fail("\"persistent\" or no gradient_buffer unless zero 1 under megatron-core or "
                                       "megatron-bridge (found zero "
            + std::to_string(s.zero) + ", framework \"" + std::string(frameworkName(s.framework)) + "\")");
    // Bounded work: costing simulates every micro-batch through every model chunk.
    if (s.global_batch_size > limits::kMaxBatch)
        object["global_batch_size"].fail("at most " + std::to_string(limits::kMaxBatch) + " sequences");
    if (pipelineWork(s) > limits::kMaxSimLayerCosts)
        object["global_batch_size"].fail("a batch whose micro-batches x pipeline stages x model chunks stay within "
            + std::to_string(limits::kMaxSimLayerCosts) + " (the simulator's budget)");
    return s;
}

} // namespace stratex::megatron
