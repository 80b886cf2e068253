// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan main's Python config module as text, from the typed job (TorchtitanJob,
// torchtitan_module.cpp, which also lists the torchtitan sources every name here is read from,
// pytorch/torchtitan b5bcd76c).
#include "core/export/torchtitan_module.h"

#include "core/export/python_literal.h"
#include "core/export/shell_quote.h"

namespace stratex::exporting {

namespace {

std::string str(long long n)
{
    return std::to_string(n);
}

} // namespace

std::string torchtitanModuleText(const TorchtitanJob& job)
{
    std::vector<std::string> approximations;
    std::vector<std::string> refusals;
    for (const ExportNote& note : job.notes)
        (note.kind == ExportNoteKind::Refusal ? refusals : approximations).push_back(note.text);
    const bool customAc = job.ac.kind == TorchtitanAc::Kind::Layers || job.ac.kind == TorchtitanAc::Kind::Modules;
    const std::string fn(kTorchtitanConfigFunction);

    std::string t;
    t += "# torchtitan config module for a plan, written by Stratex for torchtitan main (the Python configs\n";
    t += "# of pytorch/torchtitan#2386; checked against b5bcd76c, 2026-08-21). Train with\n";
    t += "#   PYTHONPATH=. MODULE=" + std::string(kTorchtitanModuleName) + " CONFIG=" + fn + " ./run_train.sh\n";
    t += "# from torchtitan's root with this file there as " + std::string(kTorchtitanModuleName) + ".py;\n";
    t += "# hf_assets_path must hold the model's tokenizer (scripts/download_hf_assets.py).\n";
    for (const std::string& line : job.header)
        t += "# " + commentLine(line) + "\n";
    t += "# torchtitan: tp " + str(job.tp) + ", pp " + str(job.pp) + ", cp " + str(job.cp) + ", ep " + str(job.ep)
        + ", dp replicate " + str(job.dp_replicate) + " x shard " + str(job.dp_shard) + "\n";
    if (!refusals.empty()) {
        t += "# Refused (the config function raises these instead of training something else):\n";
        for (const std::string& line : refusals)
            t += "#   " + commentLine(line) + "\n";
    }
    if (!approximations.empty()) {
        t += "# Not expressible in torchtitan as planned, or to know:\n";
        for (const std::string& line : approximations)
            t += "#   " + commentLine(line) + "\n";
    }
    t += "\n";
    if (customAc)
        t += "from dataclasses import dataclass, field\n\n";
    t += "from torchtitan.components.checkpointer import CheckpointManager\n";
    t += "from torchtitan.components.data import ConcatThenSplitPackingConfig, GrainDataLoader\n";
    t += "from torchtitan.components.loss import ChunkedLossWrapper, CrossEntropyLoss\n";
    t += "from torchtitan.components.optimizer import default_adamw\n";
    if (job.float8_linear || job.float8_grouped_experts)
        t += "from torchtitan.components.quantization import Float8GroupedExpertsConverter, Float8LinearConverter\n";
    t += "from torchtitan.config import ParallelismConfig, TrainingConfig\n";
    if (customAc)
        t += "from torchtitan.config.override import override\n";
    t += "from torchtitan.distributed.activation_checkpoint import FullAC, SelectiveAC\n";
    t += "from torchtitan.hf_datasets.text_datasets import DATASETS\n";
    t += "from torchtitan.models.common.config_utils import decoder_vocab_size\n";
    t += "from torchtitan.models." + job.model.model_module + " import model_registry\n";
    t += "from torchtitan.trainer import Trainer\n";

    t += torchtitanFlavourText(job.model);

    if (customAc) {
        t += "\n\n# The plan's recompute. torchtitan's FullAC wraps every transformer block\n";
        t += "# (ActivationCheckpointing.apply); this wraps the plan's layers, or the plan's modules of each\n";
        t += "# block, and replaces the config's FullAC through torchtitan's override mechanism after the\n";
        t += "# command line is parsed (torchtitan/config/override.py).\n";
        t += "class StratexAC(FullAC):\n";
        t += "    @dataclass(kw_only=True, slots=True)\n";
        t += "    class Config(FullAC.Config):\n";
        t += "        layers: list[int] | None = None\n";
        t += "        \"\"\"The blocks to checkpoint (None: every block).\"\"\"\n";
        t += "        modules: list[str] = field(default_factory=list)\n";
        t += "        \"\"\"Submodules of each block to checkpoint (empty: the whole block).\"\"\"\n\n";
        t += "    def apply(self, model) -> None:\n";
        t += "        config = self.config\n";
        t += "        layers = model.get_submodule(\"layers\")\n";
        t += "        for layer_id, block in list(layers.named_children()):\n";
        t += "            if config.layers is not None and int(layer_id) not in config.layers:\n";
        t += "                continue\n";
        t += "            if not config.modules:\n";
        t += "                layers.register_module(\n";
        t += "                    layer_id, self._wrap_block(block, base_fqn=f\"layers.{layer_id}\")\n";
        t += "                )\n";
        t += "                continue\n";
        t += "            for name in config.modules:\n";
        t += "                parent_name, _, child = name.rpartition(\".\")\n";
        t += "                parent = block.get_submodule(parent_name) if parent_name else block\n";
        t += "                module = getattr(parent, child, None)\n";
        t += "                if module is not None:  # dense blocks have no moe, MoE blocks no feed_forward\n";
        t += "                    parent.register_module(child, self._wrap_block(module))\n\n\n";
        t += "@override(target=FullAC.Config, fqns=[\"activation_checkpoint\"], exact=True)\n";
        t += "def stratex_recompute(config: FullAC.Config) -> StratexAC.Config:\n";
        t += "    return StratexAC.Config(\n";
        if (job.ac.kind == TorchtitanAc::Kind::Layers) {
            std::string list;
            for (std::size_t i = 0; i < job.ac.layers.size(); ++i)
                list += (i ? ", " : "") + str(job.ac.layers[i]);
            t += "        layers=[" + list + "],\n";
        } else {
            t += "        modules=" + pythonStringList(job.ac.modules) + ",\n";
        }
        t += "    )\n";
    }

    t += "\n\ndef " + fn + "() -> Trainer.Config:\n";
    if (!refusals.empty()) {
        std::string reason;
        for (std::size_t i = 0; i < refusals.size(); ++i)
            reason += (i ? "; " : "") + refusals[i];
        t += "    raise ValueError(" + pythonString(reason) + ")\n";
    }
    std::string converters;
    if (job.float8_linear)
        converters += "            Float8LinearConverter.Config(filter_fqns=" + pythonStringList(job.float8_filter_fqns)
            + "),\n";
    if (job.float8_grouped_experts)
        converters += "            Float8GroupedExpertsConverter.Config(),\n";
    if (converters.empty()) {
        t += "    model_spec = model_registry(" + pythonString(job.model.flavor) + ")\n";
    } else {
        t += "    model_spec = model_registry(\n";
        t += "        " + pythonString(job.model.flavor) + ",\n";
        t += "        converters=[\n" + converters + "        ],\n";
        t += "    )\n";
    }
    t += "    config = Trainer.Config(\n";
    t += "        loss=ChunkedLossWrapper.Config(\n";
    t += "            loss_fn=CrossEntropyLoss.Config(global_vocab_size=decoder_vocab_size(model_spec)),\n";
    t += "        ),\n";
    t += "        hf_assets_path=" + pythonString(job.model.hf_assets_path) + ",\n";
    t += "        model_spec=model_spec,\n";
    t += "        optimizer=default_adamw(lr=3e-4),\n";
    t += "        dataloader=GrainDataLoader.Config(\n";
    t += "            dataset=ConcatThenSplitPackingConfig(dataset=DATASETS[\"c4\"]),\n";
    t += "        ),\n";
    t += "        checkpoint=CheckpointManager.Config(interval=500),\n";
    t += "        training=TrainingConfig(),\n";
    t += "        parallelism=ParallelismConfig(),\n";
    t += "    )\n";
    const auto set = [&](const std::string& path, const std::string& value) {
        t += "    config." + path + " = " + value + "\n";
    };
    set("training.num_tokens_per_microbatch_per_dp_rank", str(job.tokens_per_microbatch_per_dp_rank));
    set("training.num_tokens_per_train_step", str(job.tokens_per_train_step));
    set("training.max_context_length", str(job.max_context_length));
    set("training.mixed_precision_param", pythonString(job.mixed_precision_param));
    if (job.disable_cuda_graphs)
        set("training.disable_cuda_graphs", "True");
    set("parallelism.data_parallel_replicate_degree", str(job.dp_replicate));
    set("parallelism.data_parallel_shard_degree", str(job.dp_shard));
    if (job.fsdp_reshard_after_forward != "default")
        set("parallelism.fsdp_reshard_after_forward", pythonString(job.fsdp_reshard_after_forward));
    set("parallelism.tensor_parallel_degree", str(job.tp));
    if (job.tp > 1)
        set("parallelism.enable_sequence_parallel", pythonBool(job.sequence_parallel));
    set("parallelism.context_parallel_degree", str(job.cp));
    if (job.cp > 1)
        set("parallelism.context_parallel_load_balancer", pythonString(job.cp_load_balancer));
    if (job.ep > 1)
        set("parallelism.expert_parallel_degree", str(job.ep));
    set("parallelism.pipeline_parallel_degree", str(job.pp));
    if (job.pp > 1) {
        set("parallelism.pipeline_parallel_schedule", pythonString(job.schedule));
        if (!job.schedule_csv.empty())
            set("parallelism.pipeline_parallel_schedule_csv", pythonString(job.schedule_csv));
        set("parallelism.num_pp_microbatches", str(job.num_pp_microbatches));
    }
    if (!job.module_fqns_per_model_part.empty()) {
        t += "    config.parallelism.module_fqns_per_model_part = [\n";
        for (const std::vector<std::string>& part : job.module_fqns_per_model_part)
            t += "        " + pythonStringList(part) + ",\n";
        t += "    ]\n";
    }
    if (job.compile || job.async_tp) { // --compile.enable (docs/kernels.md, "Eager and compiled blocks")
        set("compile.enable", "True");
        if (!job.compile_loss) // config/configs.py CompileConfig.components, default ["model", "loss"]
            set("compile.components", "[\"model\"]");
    }
    if (job.async_tp) {
        // torchtitan_recipes/tests/h100.py llama3_debugmodel_tp2_asynctp_compile: AsyncTP with compile.
        set("compile.enable_async_tensor_parallel", "True");
    }
    switch (job.ac.kind) {
    case TorchtitanAc::Kind::None: set("activation_checkpoint", "None"); break;
    case TorchtitanAc::Kind::Selective: set("activation_checkpoint", "SelectiveAC.Config()"); break;
    case TorchtitanAc::Kind::Full: set("activation_checkpoint", "FullAC.Config()"); break;
    case TorchtitanAc::Kind::Layers:
    case TorchtitanAc::Kind::Modules:
        set("activation_checkpoint", "FullAC.Config()");
        set("override.imports", "[__name__ + \".stratex_recompute\"]");
        break;
    }
    t += "    return config\n";
    return t;
}

} // namespace stratex::exporting
