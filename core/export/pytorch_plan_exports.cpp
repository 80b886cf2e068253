// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/pytorch_plan_exports.h"

#include <algorithm>

#include "core/export/plan_file_checks.h"
#include "core/export/shell_quote.h"
#include "core/sim/sim_work.h"
#include "core/sim/simulator.h"

namespace stratex::exporting {

namespace {

std::string str(long long n)
{
    return std::to_string(n);
}

sim::ScheduleKind scheduleKind(const megatron::ParallelStrategy& s)
{
    if (s.schedule == megatron::PipelineSchedule::ZbH1)
        return sim::ScheduleKind::ZbH1;
    return s.vpp > 1 ? sim::ScheduleKind::Interleaved1F1B : sim::ScheduleKind::OneFOneB;
}

} // namespace

std::vector<std::vector<PipelineAction>> pipelineOrder(const megatron::ParallelStrategy& s)
{
    const int p = std::max(1, s.pp);
    const int chunks = p * std::max(1, s.vpp);
    const int m = std::max(1, s.microbatches());
    const bool zb = s.schedule == megatron::PipelineSchedule::ZbH1;
    std::vector<std::vector<PipelineAction>> ranks(static_cast<std::size_t>(p));
    if (p == 1) {
        for (int i = 0; i < m; ++i) {
            ranks[0].push_back({ 0, 'F', i });
            if (zb) {
                ranks[0].push_back({ 0, 'I', i });
                ranks[0].push_back({ 0, 'W', i });
            } else {
                ranks[0].push_back({ 0, 'B', i });
            }
        }
        return ranks;
    }
    // The simulation below holds every chunk pass and its timeline: bounded before it is built
    // (issue 26: a plan at the simulator's budget, 4,194,304 passes, took 2.3 GB).
    requireWithinBudget(sim::estimateSimulationWork("pytorch-schedule export", double(chunks) * m, true),
        "The plan's micro-batches (global_batch_size / (micro_batch_size x dp)) x pp x vpp are the passes: export a "
        "plan of fewer micro-batches, or run it anyway with "
            + std::string(kLiftWorkBudgetFlag) + ".");
    // The simulator's static order for the schedule the cost model ran, on unit costs (the order
    // does not depend on them): one "layer" per model chunk, chunk c on rank c mod pp.
    sim::SimulationInput input;
    for (int c = 0; c < chunks; ++c)
        input.device_assignment.push_back(c % p);
    sim::MicrobatchSpec spec;
    spec.layers.assign(std::size_t(chunks), sim::LayerCost { 1, 2, 1 });
    for (int id = 0; id < m; ++id) {
        spec.id = id;
        input.microbatches.push_back(spec);
    }
    const sim::SimulationResult result = sim::simulate(input, scheduleKind(s));
    for (const sim::DeviceTimeline& device : result.timeline.devices) {
        std::vector<sim::TimelineOp> ops = device.compute;
        std::sort(ops.begin(), ops.end(), [](const sim::TimelineOp& a, const sim::TimelineOp& b) {
            return a.start_us != b.start_us ? a.start_us < b.start_us : a.order < b.order;
        });
        std::vector<PipelineAction>& actions = ranks[std::size_t(device.device)];
        for (const sim::TimelineOp& op : ops) {
            const char type = op.kind == sim::OpKind::Forward ? 'F'
                : op.kind == sim::OpKind::Weight              ? 'W'
                : zb                                          ? 'I'
                                                              : 'B';
            actions.push_back({ op.stage, type, op.microbatch });
        }
    }
    return ranks;
}

std::string pipelineScheduleCsv(const megatron::ParallelStrategy& strategy)
{
    return pipelineScheduleCsv(pipelineOrder(strategy));
}

TorchtitanConfig torchtitanPlanConfig(const megatron::PlanFile& plan)
{
    requireValidStrategy(plan, "torchtitan");
    const model::ModelDescription& model = plan.model;
    const megatron::ParallelStrategy& s = plan.strategy;
    TorchtitanConfig config;
    std::vector<std::string> notes; // the file's comments: every note of the export (export_note.h)
    const auto note = [&](std::string field, const std::string& text,
                          ExportNoteKind kind = ExportNoteKind::Approximation) {
        notes.push_back(text);
        addExportNote(config.notes, kind, std::move(field), "torchtitan: " + text);
    };
    if (const std::optional<ExportNote> modelNote = torchtitanModelNote(model))
        config.notes.push_back(*modelNote);

    // Data parallelism: FSDP2 shards over dp (and always over cp: parallel_dims.py folds the CP
    // ranks into the FSDP mesh); reshard after forward is ZeRO-3, never is ZeRO-2.
    int replicate = s.dp;
    int shard = 1;
    std::string reshard;
    if (s.zero >= 1 && s.dp * s.cp > 1) {
        replicate = s.dpReplicas(); // HSDP (dp_shard, docs/hsdp.md): the (dp_replicate, fsdp) mesh
        shard = s.dpShard();
        reshard = s.zero == 3 ? "always" : "never";
        if (s.zero == 1)
            note("strategy.zero", "ZeRO-1: torchtitan's FSDP2 without resharding after forward shards gradients too "
                            "(ZeRO-2, less memory)");
    }
    if (s.cp > 1 && s.zero == 0)
        note("strategy.zero", "context parallelism: torchtitan shards the weights over the CP ranks (FSDP), the plan "
                        "replicates them");
    if (s.tp > 1 && !s.sequence_parallel)
        note("strategy.sequence_parallel", "tensor parallelism: torchtitan always shards norms and dropout over TP (sequence "
                        "parallelism), less activation memory than planned");
    if (s.ep > 1 && s.etp != 1 && s.etp != s.tp)
        note("strategy.etp", "expert tensor parallel degree " + str(s.etp) + ": torchtitan supports 1 or the TP degree (" + str(s.tp)
            + ") only (parallel_dims.py)", ExportNoteKind::Refusal);
    if (s.cp > 1 && s.cp_comm_type != megatron::CpCommType::P2p)
        note("strategy.cp_comm_type", "context parallelism cp_comm_type " + std::string(megatron::cpCommTypeName(s.cp_comm_type))
                + ": torchtitan only has ring attention (K/V rotated round the CP group); it would train, at the ring's cost");
    else if (s.cp > 1)
        note("strategy.cp_comm_type", "context parallelism: torchtitan's ring attention exchanges K/V by all-gather "
                        "(context_parallel_rotate_method), as costed");

    // Batches: with PP, torchtitan splits the local batch into micro-batches; without, it
    // accumulates gradients over local batches of the micro-batch size.
    const int microbatches = s.microbatches();
    const int localBatch = s.pp > 1 ? s.micro_batch_size * microbatches : s.micro_batch_size;
    const int stages = s.pp * s.vpp;
    if (s.pp > 1 && microbatches < stages)
        note("strategy.micro_batch_size", 
            str(microbatches) + " micro-batches for " + str(stages) + " pipeline stages: torchtitan warns of a bubble");

    // The schedule.
    std::string schedule = "1F1B";
    std::string csv;
    if (plan.gpipe && s.pp > 1) {
        // "schedule": "gpipe" in the plan file (costed as 1F1B): torchtitan has GPipe
        // (torch.distributed.pipelining ScheduleGPipe).
        schedule = "GPipe";
    } else if (s.schedule == megatron::PipelineSchedule::Interleaved && s.vpp > 1) {
        schedule = "Interleaved1F1B";
    } else if (s.schedule == megatron::PipelineSchedule::ZbH1 && s.pp > 1) {
        // torch's zero-bubble schedules are multi-stage (InterleavedZeroBubble) or V-shaped
        // (ZBVZeroBubble); ZB-H1 with one stage per rank runs as a loaded schedule.
        schedule = "PipelineScheduleSingle";
        csv = "pipeline_schedule.csv";
        note("strategy.schedule", "ZB-H1 runs the schedule CSV `stratex-cli export --to pytorch-schedule --out "
                        "pipeline_schedule.csv` writes for this plan (I/W split backward)");
    }

    // Recomputation.
    std::string acMode = "none";
    std::string acOption;
    if (s.recompute == megatron::Recompute::Full) {
        acMode = "full";
        if (s.recompute_num_layers > 1)
            note("strategy.recompute_num_layers", "full recompute in groups of " + str(s.recompute_num_layers)
                + " layers: torchtitan checkpoints every block on its own (a little more memory)");
    } else if (s.recompute == megatron::Recompute::Selective) {
        acMode = "selective";
        acOption = "op";
        note("strategy.recompute_modules", "selective recompute: torchtitan's op-level selective AC (recomputes the cheap ops, "
                        "keeps every other matmul), not Megatron's recompute modules ("
            + s.recompute_modules.joined(", ") + ")");
    }
    const bool float8 = s.precision == megatron::Precision::Fp8;
    if (float8 && model.moe)
        note("strategy.precision",
            "FP8: [quantize.linear.float8] converts nn.Linear layers only; the experts' grouped GEMMs stay in "
            "bf16 while the plan costs them in FP8");
    // Transformer Engine's recipe (docs/kernels.md §8): torchtitan v0.2's float8 converter scales per
    // tensor, dynamically (recipe_name "tensorwise", what is written); delayed, MXFP8 and blockwise
    // are not its options.
    if (float8 && megatron::resolvedFp8Recipe(s) != megatron::Fp8Recipe::Tensorwise)
        note("strategy.fp8_recipe",
            std::string(megatron::fp8RecipeName(megatron::resolvedFp8Recipe(s)))
                + " recipe planned: torchtitan's float8 converter scales per tensor, dynamically (recipe_name "
                  "\"tensorwise\"): an amax pass before each cast the plan did not cost");
    if (s.precision == megatron::Precision::Fp16)
        note("strategy.precision", "fp16: torchtitan trains in bfloat16 or float32 (mixed_precision_param bfloat16 here)");
    // A fused kernel torchtitan cannot be told to use (docs/kernels.md §6): said, nothing written.
    const hardware::AttentionKernel kernel = s.attention_kernel;
    if (s.flash_attention
        && (kernel == hardware::AttentionKernel::Cudnn || kernel == hardware::AttentionKernel::Flash3
            || kernel == hardware::AttentionKernel::MptTriton))
        note("strategy.attention_kernel",
            std::string(hardware::attentionKernelName(kernel))
                + ": torchtitan has no option for it; its SDPA runs flash first (cuDNN first on sm100)");
    if (!s.flash_attention)
        note("strategy.flash_attention", "unfused attention planned: torchtitan runs SDPA (flash or memory-efficient kernels)");
    // Megatron-Core's --no-gradient-accumulation-fusion (te_dummy_wgrad.h) has no torchtitan
    // counterpart: FSDP2/DDP reduce autograd's own weight gradients, with no fp32 main_grad to fuse into.
    if (!s.gradient_accumulation_fusion)
        note("strategy.gradient_accumulation_fusion", "gradient-accumulation fusion off planned: torchtitan has no such "
                        "setting (autograd's weight gradients, no fp32 main_grad); nothing written");

    // CUDA graphs (docs/kernels.md §7) came to torchtitan's Trainer after v0.2 (#3559, 2026-08).
    if (s.cuda_graphs != megatron::CudaGraphs::None)
        note("strategy.cuda_graphs",
            "CUDA graphs (" + std::string(megatron::cudaGraphsName(s.cuda_graphs))
                + ") planned: torchtitan v0.2 runs eagerly; the plan's time, costed without the host's launches, "
                  "is optimistic for small or MoE layers");

    std::string t;
    t += "# torchtitan job config for a Stratex plan, written by Stratex (torchtitan v0.2 TOML,\n";
    t += "# torchtitan/config/job_config.py; train with ./run_train.sh --job.config_file this.toml).\n";
    t += "# "
        + commentLine("model " + model.name + ": " + str(model.num_layers) + " layers, hidden " + str(model.hidden_size)
            + ", seq " + str(model.seq_length))
        + "\n";
    t += "# "
        + commentLine("plan: " + s.notation() + ", schedule " + std::string(megatron::pipelineScheduleName(s.schedule))
            + " on " + str(plan.cluster.num_nodes) + " x " + str(plan.cluster.gpus_per_node) + " "
            + plan.cluster.gpu.name)
        + "\n";
    if (!notes.empty())
        t += "# Not expressible in torchtitan as planned, or to know:\n";
    for (const std::string& text : notes)
        t += "#   " + commentLine(text) + "\n";
    t += "\n[job]\n";
    t += "description = " + tomlString("Stratex plan for " + model.name) + "\n";
    t += torchtitanModelSection(model, float8);
    if (float8)
        t += "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n";
    t += "\n[training]\n";
    t += "local_batch_size = " + str(localBatch) + "\n";
    t += "global_batch_size = " + str(s.global_batch_size) + "\n";
    t += "seq_len = " + str(model.seq_length) + "\n";
    t += "mixed_precision_param = \"bfloat16\"\n";
    t += "\n[parallelism]\n";
    t += "data_parallel_replicate_degree = " + str(replicate) + "\n";
    t += "data_parallel_shard_degree = " + str(shard) + "\n";
    if (!reshard.empty())
        t += "fsdp_reshard_after_forward = " + tomlString(reshard) + "\n";
    t += "tensor_parallel_degree = " + str(s.tp) + "\n";
    // torchtitan v0.2 (config/job_config.py; distributed/tensor_parallel.py maybe_enable_async_tp):
    // AsyncTP is a parallelism option and refuses to start without [compile] enable and "model"
    // among the compiled components (the default), written below.
    const bool asyncTp = s.tp_comm_overlap && s.tp > 1;
    if (asyncTp)
        t += "enable_async_tensor_parallel = true\n";
    t += "context_parallel_degree = " + str(s.cp) + "\n";
    if (model.moe) {
        t += "expert_parallel_degree = " + str(s.ep) + "\n";
        t += "expert_tensor_parallel_degree = " + str(s.ep > 1 ? s.etp : 1) + "\n";
    }
    t += "pipeline_parallel_degree = " + str(s.pp) + "\n";
    if (s.pp > 1) {
        t += "pipeline_parallel_schedule = " + tomlString(schedule) + "\n";
        if (!csv.empty())
            t += "pipeline_parallel_schedule_csv = " + tomlString(csv) + "\n";
        t += "pipeline_parallel_microbatch_size = " + str(s.micro_batch_size) + "\n";
        // The exact division, one model part per chunk in stage order, as torchtitan's decoder
        // models name their modules.
        const std::vector<int> chunkLayers = megatron::chunkLayerCounts(s, model.num_layers);
        t += "module_fqns_per_model_part = [\n";
        int first = 0;
        for (std::size_t c = 0; c < chunkLayers.size(); ++c) {
            std::vector<std::string> names;
            if (c == 0)
                names.push_back("tok_embeddings");
            for (int i = first; i < first + chunkLayers[c]; ++i)
                names.push_back("layers." + str(i));
            if (c + 1 == chunkLayers.size()) {
                names.push_back("norm");
                names.push_back("output");
            }
            std::string part = "    [";
            for (std::size_t k = 0; k < names.size(); ++k)
                part += (k ? ", " : "") + tomlString(names[k]);
            t += part + "]" + (c + 1 < chunkLayers.size() ? "," : "") + "\n";
            first += chunkLayers[c];
        }
        t += "]\n";
    }
    t += "\n[activation_checkpoint]\n";
    t += "mode = " + tomlString(acMode) + "\n";
    if (!acOption.empty())
        t += "selective_ac_option = " + tomlString(acOption) + "\n";
    // --compile.enable: the plan's compile on (docs/kernels.md, "Eager and compiled blocks") or AsyncTP's; components
    // keeps its default, ["model", "loss"]: the model is compiled.
    if (asyncTp || s.compile == megatron::Compile::On)
        t += "\n[compile]\nenable = true\n";
    config.text = t;
    return config;
}

} // namespace stratex::exporting
