// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/reference_run.h"

#include <algorithm>
#include <cmath>

#include <sstream>

#include "core/common/enum_names.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"
#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/runs/flops_convention.h"
#include "core/megatron/strategy_json.h"

namespace stratex::runs {

namespace {

// The record names the model by preset for people; its shape keys are what counts.
model::ModelDescription readRunModel(const JsonView& object)
{
    nlohmann::ordered_json copy = object.raw();
    if (copy.contains("num_layers") && copy.contains("hidden_size"))
        copy.erase("preset");
    const JsonDocument document = JsonDocument::parse(copy.dump(), object.file() + object.path());
    return model::readModel(document.root());
}

// A measured value within its physical range: above 0 and at most `max` (1e308 ms and MFU 2.0
// were read, and calibrated, issue 26).
double measuredWithin(const JsonView& value, double max, std::string_view unit)
{
    const double number = value.positiveNumber();
    if (!(number <= max)) {
        std::ostringstream bound;
        bound << max;
        value.fail("a measured value above 0 and at most " + bound.str() + " " + std::string(unit));
    }
    return number;
}

constexpr EnumNames<PeakMemoryKind, 3> kPeakMemoryKindNames { { { PeakMemoryKind::Allocated, "allocated" },
    { PeakMemoryKind::Reserved, "reserved" }, { PeakMemoryKind::Device, "device" } } };

constexpr EnumNames<LayoutPurpose, 3> kLayoutPurposeNames { { { LayoutPurpose::Throughput, "throughput" },
    { LayoutPurpose::Demonstration, "demonstration" }, { LayoutPurpose::Ablation, "ablation" } } };

bool contains(const std::string& text, std::string_view part)
{
    return text.find(part) != std::string::npos;
}

// A record without "framework": the framework its source ran. torchtitan's benchmark records
// (id torchtitan*, source title "torchtitan benchmarks") are torchtitan runs; NeMo and
// Megatron-Bridge performance pages are Megatron-Bridge (NeMo 2 runs Megatron-Core underneath);
// everything else is taken as Megatron-Core.
megatron::Framework inferFramework(const std::string& id, const JsonView& root)
{
    std::string title;
    if (const std::optional<JsonView> source = root.find("source")) {
        if (const std::optional<JsonView> t = source->find("title"))
            title = t->string();
    }
    if (id.rfind("torchtitan", 0) == 0 || contains(title, "torchtitan"))
        return megatron::Framework::Torchtitan;
    if (contains(title, "NeMo") || contains(title, "Megatron-Bridge"))
        return megatron::Framework::MegatronBridge;
    return megatron::Framework::MegatronCore;
}

} // namespace

std::string_view peakMemoryKindName(PeakMemoryKind kind)
{
    return enumName(kPeakMemoryKindNames, kind);
}

std::optional<PeakMemoryKind> parsePeakMemoryKind(std::string_view name)
{
    return parseEnumName(kPeakMemoryKindNames, name);
}

std::string_view layoutPurposeName(LayoutPurpose purpose)
{
    return enumName(kLayoutPurposeNames, purpose);
}

std::optional<LayoutPurpose> parseLayoutPurpose(std::string_view name)
{
    return parseEnumName(kLayoutPurposeNames, name);
}

ReferenceRun readReferenceRun(const std::filesystem::path& file)
{
    const JsonDocument document = JsonDocument::load(file);
    const JsonView root = document.root();
    root.requireObject();
    ReferenceRun run;
    run.file = file;
    run.id = root["id"].string();
    run.source = run.id;
    if (const std::optional<JsonView> source = root.find("source")) {
        if (const std::optional<JsonView> url = source->find("url"))
            run.source = url->string();
        else if (const std::optional<JsonView> title = source->find("title"))
            run.source = title->string();
    }
    run.release = run.source;
    if (const std::optional<JsonView> source = root.find("source")) {
        const std::optional<JsonView> url = source->find("url");
        const std::optional<JsonView> title = source->find("title");
        if (url && title)
            run.release = url->string() + " | " + title->string();
    }
    const JsonView use = root["use"];
    if (use.string() != "fit" && use.string() != "holdout")
        use.fail("\"fit\" or \"holdout\"");
    run.fit = use.string() == "fit";
    run.verified = root.has("verified") ? root["verified"].boolean() : true;
    run.model = readRunModel(root["model"]);

    const JsonView cluster = root["cluster"];
    const JsonView gpu = cluster["gpu"];
    try {
        run.cluster.gpu = hardware::gpuPreset(gpu.string());
    } catch (const InputError&) {
        throw;
    } catch (const Error& error) {
        gpu.fail(std::string("a GPU preset; ") + error.what());
    }
    run.cluster.num_nodes = cluster["num_nodes"].positiveInt();
    run.cluster.gpus_per_node = cluster["gpus_per_node"].positiveInt();
    // The flags' bounds (input_limits.h), so the world size is an int and tables stay small.
    if (run.cluster.num_nodes > limits::kMaxNodes)
        cluster["num_nodes"].fail("a positive integer of at most " + std::to_string(limits::kMaxNodes));
    if (run.cluster.gpus_per_node > limits::kMaxGpusPerNode)
        cluster["gpus_per_node"].fail("a positive integer of at most " + std::to_string(limits::kMaxGpusPerNode));
    run.strategy = megatron::readStrategy(root["strategy"], run.model, run.cluster.worldSize(), &run.assumptions);
    if (const std::optional<JsonView> source = root.find("source"))
        if (const std::optional<JsonView> year = source->find("year")) {
            const std::int64_t y = year->integer();
            if (y < 1900 || y > 2100)
                year->fail("a year from 1900 to 2100");
            run.year = static_cast<int>(y);
        }
    // FlashAttention appeared in mid-2022 and reached Megatron with Transformer Engine in 2023.
    if (const std::optional<JsonView> flash = root["strategy"].find("flash_attention")) {
        run.strategy.flash_attention = flash->boolean();
    } else if (run.year > 0 && run.year <= 2022) {
        run.strategy.flash_attention = false;
        run.assumptions.push_back("no flash attention (published " + std::to_string(run.year) + ")");
    }

    const JsonView measured = root["measured"];
    const double gpus = run.cluster.worldSize();
    const double tokens = double(run.strategy.global_batch_size) * run.model.seq_length;
    run.trained = measured.has("trained") ? measured["trained"].boolean() : true;
    if (!run.trained) {
        // A run that went out of memory (README step 3: "that is a measurement too"): it measured
        // no time, and its outcome is compared with the model's fit check (memory_outcomes.h).
        for (const char* key : { "iteration_time_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu" })
            if (const std::optional<JsonView> time = measured.find(key))
                time->fail("no measured time: a run that went out of memory (\"trained\": false) has none");
        if (run.fit)
            use.fail("\"holdout\" (a run that went out of memory has no time to fit)");
        run.measured_time = false;
        run.measured_from = "none (went out of memory)";
    } else if (const std::optional<JsonView> time = measured.find("iteration_time_s")) {
        run.measured_iteration_s = measuredWithin(*time, limits::kMaxMeasuredIterationS, "s");
        run.measured_from = "iteration_time_s";
    } else if (const std::optional<JsonView> rate = measured.find("tokens_per_s_per_gpu")) {
        run.measured_iteration_s = tokens / (measuredWithin(*rate, limits::kMaxTokensPerSPerGpu, "tokens/s") * gpus);
        run.measured_from = "tokens_per_s_per_gpu";
    } else if (!measured.has("tflops_per_gpu") && !measured.has("mfu") && !measured.has("flops_convention")) {
        // A memory-only record (issue 23: every published peak memory is compared, also where the
        // source gives no time). It must publish memory, and it is never fitted: the time fit and
        // cross-validation see no time to fit (resources/reference-runs/README.md).
        if (!measured.has("peak_memory_gb"))
            measured.fail("a measured time (iteration_time_s, tokens_per_s_per_gpu, tflops_per_gpu or mfu) or, "
                          "for a memory-only record, peak_memory_gb");
        if (run.fit)
            use.fail("\"holdout\" (a memory-only record publishes no time to fit)");
        run.measured_time = false;
        run.measured_from = "none (memory only)";
    } else {
        const JsonView conventionName = measured["flops_convention"];
        const std::optional<FlopsConvention> convention = parseFlopsConvention(conventionName.string());
        if (!convention)
            conventionName.fail("a FLOPs convention of resources/reference-runs/README.md");
        double tflops = 0;
        if (const std::optional<JsonView> published = measured.find("tflops_per_gpu")) {
            tflops = measuredWithin(*published, limits::kMaxGpuTflops, "TFLOP/s");
            run.measured_from = "tflops_per_gpu (" + conventionName.string() + ")";
        } else {
            const double peak
                = conventionPeakTflops(*convention, run.cluster.gpu.name).value_or(run.cluster.gpu.peak_tflops);
            tflops = measuredWithin(measured["mfu"], 1.0, "(a fraction of the peak)") * peak;
            run.measured_from = "mfu (" + conventionName.string() + ")";
        }
        run.measured_iteration_s
            = conventionFlops(*convention, run.model, run.strategy.global_batch_size) / (tflops * 1e12 * gpus);
    }
    if (const std::optional<JsonView> framework = root.find("framework")) {
        const std::optional<megatron::Framework> parsed = megatron::parseFramework(framework->string());
        if (!parsed)
            framework->fail(megatron::frameworkChoices());
        run.strategy.framework = *parsed;
    } else if (!root["strategy"].has("framework")) {
        run.strategy.framework = inferFramework(run.id, root);
        run.framework_inferred = true;
    }
    // The record's framework may come after its strategy (readStrategy checks the strategy's own
    // "framework"): the fused loss is Megatron-Core's and Megatron-Bridge's switch only.
    if (run.strategy.cross_entropy_loss_fusion && run.strategy.framework != megatron::Framework::MegatronCore
        && run.strategy.framework != megatron::Framework::MegatronBridge)
        root["strategy"]["cross_entropy_loss_fusion"].fail("false or no cross_entropy_loss_fusion with framework \""
            + std::string(megatron::frameworkName(run.strategy.framework)) + "\" (Megatron-Core's and Megatron-Bridge's switch only)");
    // Likewise the FP8 recipe (docs/kernels.md §8): Transformer Engine's recipes are Megatron-Core's and
    // Megatron-Bridge's switch.
    if (const std::string why = megatron::fp8RecipeProblem(run.strategy); !why.empty())
        root["strategy"]["fp8_recipe"].fail("a recipe this run's framework runs (" + why + ")");
    if (const std::optional<JsonView> memory = measured.find("peak_memory_gb"))
        run.peak_memory_gib = measuredWithin(*memory, limits::kMaxGpuMemoryGb, "GB");
    if (const std::optional<JsonView> kind = measured.find("peak_memory_kind")) {
        const std::optional<PeakMemoryKind> parsed = parsePeakMemoryKind(kind->string());
        if (!parsed)
            kind->fail("\"allocated\", \"reserved\" or \"device\"");
        run.peak_memory_kind = *parsed;
    } else {
        // torchtitan logs "memory: <max_reserved_gib>GiB" (torchtitan/components/metrics.py,
        // DeviceMemoryMonitor.get_peak_stats: reserved_bytes.all.peak, @ b5bcd76c); a record of
        // another framework publishes what the GPU showed unless it says otherwise (README).
        run.peak_memory_kind = run.strategy.framework == megatron::Framework::Torchtitan ? PeakMemoryKind::Reserved
                                                                                          : PeakMemoryKind::Device;
        run.peak_memory_kind_inferred = true;
    }
    if (const std::optional<JsonView> stage = measured.find("peak_memory_stage")) {
        if (!run.peak_memory_gib)
            stage->fail("no peak_memory_stage without peak_memory_gb");
        const std::int64_t value = stage->integer();
        if (value < 0 || value >= run.strategy.pp)
            stage->fail("a pipeline stage from 0 to " + std::to_string(run.strategy.pp - 1));
        run.peak_memory_stage = int(value);
    }
    if (const std::optional<JsonView> kernel = root.find("attention_kernel")) {
        const std::optional<hardware::AttentionKernel> parsed = hardware::parseAttentionKernel(kernel->string());
        if (!parsed)
            kernel->fail(hardware::attentionKernelChoices());
        if (*parsed == hardware::AttentionKernel::MptTriton
            && !hardware::attentionKernelEfficiency(*parsed, hardware::presetFamily(run.cluster.gpu.name)))
            kernel->fail("an attention kernel measured on " + run.cluster.gpu.name + " (docs/kernels.md §6)");
        if (*parsed != hardware::AttentionKernel::Unfused && !run.strategy.flash_attention)
            kernel->fail("\"unfused\" with strategy.flash_attention false");
        run.attention_kernel = *parsed;
        // The cost model reads the plan's kernel (layer_cost.cpp, docs/kernels.md §6).
        run.strategy.attention_kernel = *parsed;
        if (*parsed == hardware::AttentionKernel::Unfused)
            run.strategy.flash_attention = false;
    }
    run.attention_kernel = run.strategy.attention_kernel; // "attention_kernel" may sit in the strategy too
    if (const std::optional<JsonView> purpose = root.find("layout_purpose")) {
        const std::optional<LayoutPurpose> parsed = parseLayoutPurpose(purpose->string());
        if (!parsed)
            purpose->fail("\"throughput\", \"demonstration\" or \"ablation\"");
        run.layout_purpose = *parsed;
    }
    return run;
}

std::vector<ReferenceRun> readReferenceRuns(const std::filesystem::path& dir)
{
    // A missing folder or a symlink loop was "internal error: filesystem error: directory iterator
    // cannot open directory" (issue 26): an error naming the folder.
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    std::filesystem::directory_iterator entries(dir, ec);
    if (ec)
        throw InputError(dir.string(), "", "a folder of run records (*.json)", "it cannot be read: " + ec.message());
    for (const auto& entry : entries) {
        if (entry.is_regular_file(ec) && entry.path().extension() == ".json")
            files.push_back(entry.path());
    }
    std::ranges::sort(files);
    std::vector<ReferenceRun> runs;
    for (const auto& file : files)
        runs.push_back(readReferenceRun(file));
    return runs;
}

ReferenceComparison compareWithRun(const ReferenceRun& run, const hardware::Efficiency& efficiency)
{
    ReferenceComparison comparison;
    comparison.run = &run;
    // The run's own attention kernel, where it is not the presets' flash attention (docs/kernels.md §6).
    hardware::Efficiency costed = efficiency;
    if (const std::optional<double> attention
        = hardware::attentionKernelEfficiency(run.attention_kernel, hardware::presetFamily(run.cluster.gpu.name)))
        costed.attention = *attention;
    comparison.estimate = megatron::estimate(run.model, run.strategy, hardware::HardwareModel(run.cluster, costed));
    comparison.predicted_iteration_s = comparison.estimate.iteration_ms * 1e-3;
    if (run.measured_time && comparison.estimate.problems.empty() && comparison.predicted_iteration_s > 0)
        comparison.throughput_error = run.measured_iteration_s / comparison.predicted_iteration_s - 1;
    comparison.predicted_oom = comparison.estimate.problems.empty() && !comparison.estimate.fits;
    if (run.peak_memory_gib && comparison.estimate.problems.empty()) {
        comparison.predicted_memory_gib
            = predictedPeakMemoryGib(comparison.estimate, run.peak_memory_kind, run.peak_memory_stage);
        comparison.memory_error = *comparison.predicted_memory_gib / *run.peak_memory_gib - 1;
    }
    return comparison;
}

MemoryOutcomeRow memoryOutcomeRow(const ReferenceComparison& comparison)
{
    return { comparison.run->id, comparison.run->trained, comparison.predicted_oom,
        hardware::mbToGib(comparison.estimate.device_peak_mb), hardware::mbToGib(comparison.estimate.memory_limit_mb) };
}

double meanAbsoluteError(const std::vector<ReferenceComparison>& comparisons)
{
    double sum = 0;
    int count = 0;
    for (const ReferenceComparison& c : comparisons) {
        if (!c.estimate.problems.empty() || !c.run->measured_time)
            continue;
        sum += std::abs(c.throughput_error);
        ++count;
    }
    return count > 0 ? sum / count : 0;
}

double predictedPeakMemoryGib(const megatron::Estimate& estimate, PeakMemoryKind kind, std::optional<int> only)
{
    double mb = 0;
    for (const megatron::StageEstimate& stage : estimate.stages) {
        if (only && stage.stage != *only)
            continue;
        const megatron::StageMemory& m = stage.memory;
        const double value = kind == PeakMemoryKind::Allocated ? m.allocatedMb()
            : kind == PeakMemoryKind::Reserved                 ? m.reservedMb()
                                                               : m.totalMb();
        mb = std::max(mb, value);
    }
    return hardware::mbToGib(mb);
}

std::vector<MemoryError> memoryErrors(const std::vector<ReferenceComparison>& comparisons)
{
    std::vector<MemoryError> out;
    for (const ReferenceComparison& c : comparisons) {
        if (c.memory_error)
            out.push_back({ c.run->strategy.framework, c.run->peak_memory_kind, *c.memory_error });
    }
    return out;
}

namespace {

constexpr megatron::Framework kFrameworks[] = { megatron::Framework::MegatronCore,
    megatron::Framework::MegatronBridge, megatron::Framework::Torchtitan, megatron::Framework::DeepSpeed,
    megatron::Framework::Composer };
constexpr PeakMemoryKind kKinds[] = { PeakMemoryKind::Allocated, PeakMemoryKind::Reserved, PeakMemoryKind::Device };

// The summary of the errors of `framework` (and `kind`, when set); records == 0 when there are none.
MemoryErrorSummary summarise(
    const std::vector<MemoryError>& errors, megatron::Framework framework, std::optional<PeakMemoryKind> kind)
{
    MemoryErrorSummary summary;
    summary.framework = framework;
    summary.kind = kind;
    double absolute = 0;
    double signedSum = 0;
    for (const MemoryError& e : errors) {
        if (e.framework != framework || (kind && e.kind != *kind))
            continue;
        absolute += std::abs(e.error);
        signedSum += e.error;
        summary.max_absolute_error = std::max(summary.max_absolute_error, std::abs(e.error));
        ++summary.records;
    }
    if (summary.records > 0) {
        summary.mean_absolute_error = absolute / summary.records;
        summary.mean_error = signedSum / summary.records;
    }
    return summary;
}

} // namespace

std::vector<MemoryErrorSummary> memoryErrorsByFramework(const std::vector<MemoryError>& errors)
{
    std::vector<MemoryErrorSummary> out;
    for (const megatron::Framework framework : kFrameworks) {
        if (MemoryErrorSummary s = summarise(errors, framework, std::nullopt); s.records > 0)
            out.push_back(s);
    }
    return out;
}

std::vector<MemoryErrorSummary> memoryErrorsByFramework(const std::vector<ReferenceComparison>& comparisons)
{
    return memoryErrorsByFramework(memoryErrors(comparisons));
}

std::vector<MemoryErrorSummary> memoryErrorsByFrameworkAndKind(const std::vector<MemoryError>& errors)
{
    std::vector<MemoryErrorSummary> out;
    for (const megatron::Framework framework : kFrameworks) {
        for (const PeakMemoryKind kind : kKinds) {
            if (MemoryErrorSummary s = summarise(errors, framework, kind); s.records > 0)
                out.push_back(s);
        }
    }
    return out;
}

} // namespace stratex::runs
