// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Which of Megatron-LM's parallelism features existed by the end of a year (docs/frameworks.md,
// "Megatron-LM's features by year"). A search restricted to them answers what a team could have
// run then: `reference --search-claims` searches each run with the features of its publication
// year, so a 2021 run measured without sequence parallelism, selective recompute or the
// distributed optimizer (they came in 2022) is compared with the best plan of 2021's Megatron,
// not of today's. Each feature's year is that of the first commit on Megatron-LM main that added
// its flag to megatron/arguments.py (megatron/training/arguments.py later), read with
// `git log -S` in the mirror of NVIDIA/Megatron-LM; the commits are in the .cpp.

#include "core/megatron/parallel_strategy.h"
#include "core/megatron/strategy_search.h"

namespace stratex::megatron {

struct MegatronFeatures {
    bool interleaved = true; // --num-layers-per-virtual-pipeline-stage
    bool tp_async_backward = true; // --async-tensor-parallel-allreduce
    bool distributed_optimizer = true; // --use-distributed-optimizer (ZeRO-1)
    bool sequence_parallel = true; // --sequence-parallel
    bool selective_recompute = true; // --recompute-granularity selective
    bool expert_parallel = true; // --expert-model-parallel-size
    bool context_parallel = true; // --context-parallel-size
    bool tp_comm_overlap = true; // --tp-comm-overlap
    bool uneven_layouts = true; // --decoder-first/last-pipeline-num-layers
    bool cp_a2a = true; // --cp-comm-type a2a (Ulysses)
    bool hsdp = true; // --num-distributed-optimizer-instances
    bool megatron_fsdp = true; // --use-custom-fsdp, later --use-megatron-fsdp (ZeRO-2/3)
};

// The features Megatron-LM's main branch had by the end of `year`; 0: today's (all of them).
MegatronFeatures megatronFeaturesOf(int year);

// Whether a framework's plans follow Megatron-LM's releases (Megatron-Core, Megatron-Bridge):
// StrategySpace::features_year restricts only their searches.
bool followsMegatronReleases(Framework framework);

// The space with what `space.features_year` lacks taken out (interleaving, CP and its Ulysses
// exchange, EP, uneven ends, HSDP, TP comm overlap, ZeRO stages, selective recompute), for a
// framework that follows Megatron-LM's releases; otherwise `space` as it is.
StrategySpace spaceOfFeatures(StrategySpace space);

// A candidate shape's switches the year decides: sequence parallelism and the asynchronous TP
// all-reduce in backward. Not the gradient reduce overlapped with backward (--overlap-grad-reduce,
// 2d5220a4, 2023-08-16): torch DDP (--DDP-impl torch) overlapped it before, and the records of
// earlier years are costed with it (docs/frameworks.md).
void applyFeatures(ParallelStrategy& shape, const StrategySpace& space);

} // namespace stratex::megatron
