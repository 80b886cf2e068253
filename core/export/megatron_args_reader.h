// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

#include "core/export/megatron_flags.h"
#include "core/model/model_description.h"
#include "core/perf/parallel_strategy.h"

namespace stratex::exporting {

// Reads back the Megatron-LM arguments an export wrote: the MEGATRON_ARGS=( ... ) array of a
// script (one "--flag [value]" per line, values single-quoted the way shellQuote writes them), or,
// without such an array, a plain argument line ("--tensor-model-parallel-size 8 --bf16 ...").
// Throws stratex::Error for an unterminated array or quote.
MegatronArgumentList parseMegatronArguments(std::string_view text);

// The strategy the arguments run on `worldSize` GPUs, with Megatron's meaning of every flag
// (megatron_flags.h): dp = world / (tp x pp x cp); an absent --expert-tensor-parallel-size is the
// TP degree; --num-virtual-stages-per-pipeline-rank, --num-layers-per-virtual-pipeline-stage or a
// layout's chunk count give vpp (the interleaved schedule); the distributed optimizer is ZeRO-1,
// Megatron-FSDP's optim_grads ZeRO-2 and optim_grads_params ZeRO-3; --recompute-method uniform is
// the full recompute the strategy knows; --fp8-format is FP8; --attention-backend unfused or local
// switches flash attention off. A layer division the strategy cannot hold (a layout whose middle
// stages are not its even split), the block recompute method, fp32 or an unknown flag value is a
// stratex::Error naming the flag.
perf::ParallelStrategy strategyFromMegatronArguments(const MegatronArgumentList& args, long long worldSize);

// The architecture the arguments describe; the vocabulary (set by the tokenizer's arguments) and the
// name are not in them: `vocabSize` and `name` are taken as given.
model::ModelDescription modelFromMegatronArguments(
    const MegatronArgumentList& args, int vocabSize, const std::string& name);

} // namespace stratex::exporting
