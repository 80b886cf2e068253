// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/perf/reference_run.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/model/model_json.h"
#include "core/perf/flops_convention.h"

namespace stratex::perf {

namespace {

int optionalInt(const JsonView& object, std::string_view key, int fallback)
{
    const std::optional<JsonView> value = object.find(key);
    return value ? value->positiveInt() : fallback;
}

// The record names the model by preset for people; its shape keys are what counts.
model::ModelDescription readRunModel(const JsonView& object)
{
    nlohmann::ordered_json copy = object.raw();
    if (copy.contains("num_layers") && copy.contains("hidden_size"))
        copy.erase("preset");
    const JsonDocument document = JsonDocument::parse(copy.dump(), object.file() + object.path());
    return model::readModel(document.root());
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

ParallelStrategy readRunStrategy(
    const JsonView& object, const model::ModelDescription& model, int world, std::vector<std::string>& assumptions)
{
    object.requireObject();
    ParallelStrategy s;
    s.tp = optionalInt(object, "tp", 1);
    s.pp = optionalInt(object, "pp", 1);
    s.cp = optionalInt(object, "cp", 1);
    s.ep = optionalInt(object, "ep", 1);
    s.etp = optionalInt(object, "etp", 1);
    s.dp = optionalInt(object, "dp", std::max(1, world / std::max(1, s.tp * s.pp * s.cp)));
    s.global_batch_size = object["global_batch_size"].positiveInt();
    if (const std::optional<JsonView> mbs = object.find("micro_batch_size")) {
        s.micro_batch_size = mbs->positiveInt();
    } else {
        s.micro_batch_size = 1;
        assumptions.push_back("micro_batch_size 1");
    }
    if (const std::optional<JsonView> sp = object.find("sequence_parallel")) {
        s.sequence_parallel = sp->boolean();
    } else {
        s.sequence_parallel = s.tp > 1;
        if (s.tp > 1)
            assumptions.push_back("sequence parallelism on (tp > 1)");
    }
    if (const std::optional<JsonView> zero = object.find("zero")) {
        const std::int64_t stage = zero->integer();
        if (stage < 0 || stage > 3)
            zero->fail("0, 1, 2 or 3");
        s.zero = int(stage);
    } else {
        s.zero = s.dp * s.cp > 1 ? 1 : 0;
        if (s.zero == 1)
            assumptions.push_back("distributed optimizer (zero 1)");
    }
    s.recompute
        = readChoice(object, "recompute", Recompute::None, parseRecompute, "\"none\", \"selective\" or \"full\"");
    if (!object.has("recompute"))
        assumptions.push_back("no recompute");
    s.recompute_num_layers = object.has("recompute_num_layers") ? object["recompute_num_layers"].positiveInt() : 0;
    if (const std::optional<JsonView> schedule = object.find("schedule")) {
        const std::string name = schedule->string();
        if (name == "1f1b" || name == "gpipe")
            s.schedule = PipelineSchedule::OneFOneB;
        else if (name == "interleaved")
            s.schedule = PipelineSchedule::Interleaved;
        else if (name == "zb-h1")
            s.schedule = PipelineSchedule::ZbH1;
        else
            schedule->fail("\"1f1b\", \"interleaved\", \"gpipe\" or \"zb-h1\"");
    }
    s.first_stage_layers = object.has("first_stage_layers") ? object["first_stage_layers"].positiveInt() : 0;
    s.last_stage_layers = object.has("last_stage_layers") ? object["last_stage_layers"].positiveInt() : 0;
    s.vpp = optionalInt(object, "vpp", 1);
    if (s.schedule == PipelineSchedule::Interleaved && s.pp > 1 && !object.has("vpp")) {
        // The smallest chunk count every stage's layers divide into.
        const std::vector<int> layers = stageLayerCounts(s, model.num_layers);
        for (int v = 2; v <= model.num_layers; ++v) {
            if (std::ranges::all_of(layers, [v](int n) { return n % v == 0; })) {
                s.vpp = v;
                break;
            }
        }
        assumptions.push_back("vpp " + std::to_string(s.vpp) + " (interleaved, chunks not published)");
    }
    if (s.vpp == 1 && s.schedule == PipelineSchedule::Interleaved)
        s.schedule = PipelineSchedule::OneFOneB;
    s.precision = readChoice(object, "precision", Precision::Bf16, parsePrecision, "\"bf16\", \"fp16\" or \"fp8\"");
    return s;
}

} // namespace

ReferenceRun readReferenceRun(const std::filesystem::path& file)
{
    const JsonDocument document = JsonDocument::load(file);
    const JsonView root = document.root();
    root.requireObject();
    ReferenceRun run;
    run.file = file;
    run.id = root["id"].string();
    const JsonView use = root["use"];
    if (use.string() != "fit" && use.string() != "holdout")
        use.fail("\"fit\" or \"holdout\"");
    run.fit = use.string() == "fit";
    run.verified = root.has("verified") ? root["verified"].boolean() : true;
    run.model = readRunModel(root["model"]);

    const JsonView cluster = root["cluster"];
    const JsonView gpu = cluster["gpu"];
    try {
        run.cluster.gpu = profile::synth::gpuPreset(gpu.string());
    } catch (const InputError&) {
        throw;
    } catch (const Error& error) {
        gpu.fail(std::string("a GPU preset; ") + error.what());
    }
    run.cluster.num_nodes = cluster["num_nodes"].positiveInt();
    run.cluster.gpus_per_node = cluster["gpus_per_node"].positiveInt();
    run.strategy = readRunStrategy(root["strategy"], run.model, run.cluster.worldSize(), run.assumptions);
    // FlashAttention appeared in mid-2022 and reached Megatron with Transformer Engine in 2023.
    if (const std::optional<JsonView> flash = root["strategy"].find("flash_attention")) {
        run.strategy.flash_attention = flash->boolean();
    } else if (const std::optional<JsonView> source = root.find("source")) {
        if (const std::optional<JsonView> year = source->find("year"); year && year->integer() <= 2022) {
            run.strategy.flash_attention = false;
            run.assumptions.push_back("no flash attention (published " + std::to_string(year->integer()) + ")");
        }
    }

    const JsonView measured = root["measured"];
    const double gpus = run.cluster.worldSize();
    const double tokens = double(run.strategy.global_batch_size) * run.model.seq_length;
    if (const std::optional<JsonView> time = measured.find("iteration_time_s")) {
        run.measured_iteration_s = time->positiveNumber();
        run.measured_from = "iteration_time_s";
    } else if (const std::optional<JsonView> rate = measured.find("tokens_per_s_per_gpu")) {
        run.measured_iteration_s = tokens / (rate->positiveNumber() * gpus);
        run.measured_from = "tokens_per_s_per_gpu";
    } else {
        const JsonView conventionName = measured["flops_convention"];
        const std::optional<FlopsConvention> convention = parseFlopsConvention(conventionName.string());
        if (!convention)
            conventionName.fail("a FLOPs convention of resources/reference-runs/README.md");
        double tflops = 0;
        if (const std::optional<JsonView> published = measured.find("tflops_per_gpu")) {
            tflops = published->positiveNumber();
            run.measured_from = "tflops_per_gpu (" + conventionName.string() + ")";
        } else {
            const double peak
                = conventionPeakTflops(*convention, run.cluster.gpu.name).value_or(run.cluster.gpu.peak_tflops);
            tflops = measured["mfu"].positiveNumber() * peak;
            run.measured_from = "mfu (" + conventionName.string() + ")";
        }
        run.measured_iteration_s
            = conventionFlops(*convention, run.model, run.strategy.global_batch_size) / (tflops * 1e12 * gpus);
    }
    if (const std::optional<JsonView> memory = measured.find("peak_memory_gb"))
        run.peak_memory_gib = memory->positiveNumber();
    run.trained = measured.has("trained") ? measured["trained"].boolean() : true;
    return run;
}

std::vector<ReferenceRun> readReferenceRuns(const std::filesystem::path& dir)
{
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    }
    std::ranges::sort(files);
    std::vector<ReferenceRun> runs;
    for (const auto& file : files)
        runs.push_back(readReferenceRun(file));
    return runs;
}

ReferenceComparison compareWithRun(const ReferenceRun& run, const Efficiency& efficiency)
{
    ReferenceComparison comparison;
    comparison.run = &run;
    comparison.estimate = estimate(run.model, run.strategy, HardwareModel(run.cluster, efficiency));
    comparison.predicted_iteration_s = comparison.estimate.iteration_ms * 1e-3;
    if (comparison.estimate.problems.empty() && comparison.predicted_iteration_s > 0)
        comparison.throughput_error = run.measured_iteration_s / comparison.predicted_iteration_s - 1;
    comparison.predicted_oom = comparison.estimate.problems.empty() && !comparison.estimate.fits;
    return comparison;
}

double meanAbsoluteError(const std::vector<ReferenceComparison>& comparisons)
{
    double sum = 0;
    int count = 0;
    for (const ReferenceComparison& c : comparisons) {
        if (!c.estimate.problems.empty())
            continue;
        sum += std::abs(c.throughput_error);
        ++count;
    }
    return count > 0 ? sum / count : 0;
}

} // namespace stratex::perf
