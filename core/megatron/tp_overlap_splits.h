// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>

#include "core/megatron/framework.h"

namespace stratex::megatron {

// How TP communication overlap cuts the GEMMs beside it (docs/collectives.md, "Split GEMMs"). To hide
// a collective chunk by chunk, the framework runs the GEMM as several smaller ones, each on the rows
// one chunk brings or sends; a smaller GEMM fills fewer waves of the SMs, so the pieces together
// take longer than the whole GEMM (tile and wave quantization, docs/kernels.md §2). 1: not split.
struct TpOverlapSplits {
    int column_forward = 1; // QKV, fc1 forward: all-gather + GEMM, one GEMM per arriving shard
    int row_forward = 1; // output projection, fc2 forward: GEMM + reduce-scatter, the output in chunks
    int row_backward = 1; // output projection, fc2 data gradient: the output gradient's gather + GEMM
    int column_backward = 1; // QKV, fc1 data gradient: GEMM + reduce-scatter of the input gradient
    // How many pieces run at once: Transformer Engine issues them round-robin on 3 compute streams
    // (_NUM_MAX_UB_STREAMS, module/base.py; CommOverlap / CommOverlapP2P _stream_compute,
    // csrc/comm_gemm_overlap.h at v1.8); PyTorch's symmetric-memory ops run each shard's matmul on
    // the current stream, one after another.
    int concurrent = 1;
};

// - Transformer Engine's userbuffers (Megatron-Core --tp-comm-overlap, NeMo / Megatron-Bridge
//   tp_comm_overlap): `ring_exchange` for qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad (one GEMM
//   per TP shard), `pipeline` with num_splits 4 for proj_fprop and fc2_fprop, `bulk` (the GEMM whole)
//   for the QKV / fc1 data and weight gradients (initialize_ub, transformer_engine/pytorch/module/
//   base.py at v1.8);
// - torchtitan's AsyncTP: Inductor's micro-pipeline pass fuses every all-gather + matmul and matmul +
//   reduce-scatter, forward and backward, into PyTorch's symmetric-memory ops, which run the matmul
//   shard by shard, TP pieces (torch/distributed/_symmetric_memory/__init__.py
//   _fused_all_gather_matmul_impl, _fused_matmul_reduce_scatter_impl).
// Other frameworks have no TP communication overlap: nothing split.
TpOverlapSplits tpOverlapSplits(Framework framework, int tp);

// What running an m x n (over k) GEMM as `parts` GEMMs of m / parts rows adds to running it whole,
// with `gemmS(m, n, k)` the GEMM model; `concurrent` pieces at a time share the SMs, as one GEMM of
// their rows. 0 for parts <= 1.
double splitGemmExtraS(
    const std::function<double(double, double, double)>& gemmS, double m, double n, double k, int parts, int concurrent = 1);

} // namespace stratex::megatron
