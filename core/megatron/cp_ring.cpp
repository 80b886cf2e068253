// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/cp_ring.h"

#include <algorithm>

namespace stratex::megatron {

namespace {

double exposed(double transferS, double hidingS)
{
    return std::max(0.0, transferS - hidingS);
}

} // namespace

CpRingExposure ringCpExposure(const CpRingInput& in)
{
    CpRingExposure out;
    if (in.cp <= 1)
        return out;
    const double steps = in.cp;
    // Causal load balancing (the sequence cut into 2 cp chunks, rank r holding chunks r and
    // 2cp-1-r): the diagonal step attends over the rank's own two chunks causally, every other
    // step over half of the received chunk or half of the rank's queries, so every step carries
    // 1/cp of the rank's attention (TE context_parallel.py AttnFuncWithCPAndKVP2P; PyTorch
    // _attention.py, "Round-robin Load Balance").
    const double forwardStep = in.forward_attention_s / steps;
    const double backwardStep = in.backward_attention_s / steps;
    if (in.framework == Framework::Torchtitan && in.compiled) {
        // Traced, each functional collective returns wait_tensor(result) at once
        // (torch/distributed/_functional_collectives.py _maybe_wrap_tensor: "if _are_we_tracing():
        // return wait_tensor(self)"), and Inductor moves no wait unless reorder_for_compute_comm_overlap
        // is set (torch/_inductor/config.py, default False). So the K/V all-gather of the forward and
        // of the backward, and each of the cp fp32 dK/dV rotations (exchange_buffers after every
        // step), run before the next kernel: nothing hides under attention.
        out.forward_s = in.kv_all_gather_s;
        out.backward_s = in.kv_all_gather_s + steps * in.dkv_fp32_step_s;
        return out;
    }
    if (in.framework == Framework::Torchtitan) {
        // PyTorch _templated_ring_attention with the default rotate method ALL_GATHER (torchtitan
        // 2024-12: context_parallel_rotate_method "allgather"): one all-gather of every rank's K/V,
        // issued at step 0 and waited for at step 1, hides under step 0 only.
        out.forward_s = exposed(in.kv_all_gather_s, forwardStep);
        // _templated_ring_attention_backward: the K/V all-gather again under step 0; the dK/dV,
        // accumulated in fp32 (convert_to_f32), go round with an ALL_TO_ALL rotater: sent after
        // step i, waited for after step i + 1's kernel, and the last one after the loop, exposed.
        out.backward_s = exposed(in.kv_all_gather_s, backwardStep)
            + (steps - 1) * exposed(in.dkv_fp32_step_s, backwardStep) + in.dkv_fp32_step_s;
        return out;
    }
    // Transformer Engine's AttnFuncWithCPAndKVP2P (cp_comm_type p2p): at step i the rank sends its
    // current K/V to the next rank and receives the next chunk (batch_isend_irecv) while it
    // computes step i; step i + 1 waits for it. cp - 1 transfers, each under one step.
    out.forward_s = (steps - 1) * exposed(in.kv_step_s, forwardStep);
    // The backward: step 0 sends K/V only, steps 1..cp-2 send K/V and the dK/dV accumulated so far
    // (one batched send of both, the tensors' dtype), the last step dK/dV only; each is waited for
    // after its step's kernel, so each hides under one backward step.
    out.backward_s = 2 * exposed(in.kv_step_s, backwardStep) + (steps - 2) * exposed(in.kv_dkv_step_s, backwardStep);
    return out;
}

double ringKvWidth(Framework framework, double qWidth, double kvWidth)
{
    // torchtitan 9dec370 torchtitan/models/llama/model.py Attention.forward: keys = repeat_kv(xk,
    // self.n_rep), values = repeat_kv(xv, self.n_rep), then F.scaled_dot_product_attention, which
    // context_parallel replaces (torch/distributed/tensor/experimental/_attention.py
    // _distribute_function): its ring concatenates, all-gathers and rotates those K/V and their
    // gradients. Transformer Engine's AttnFuncWithCPAndKVP2P sends k and v as given, kv heads only.
    return framework == Framework::Torchtitan ? qWidth : kvWidth;
}

CpRingWork ringCpWork(int cp, Framework framework, double tokens, double qWidth, double kvWidth)
{
    CpRingWork work;
    if (cp <= 1)
        return work;
    // Per step: the attention kernel, two merges and the send/recv kernel, forward and backward;
    // the layer counts one attention kernel a pass already.
    work.forward_kernels = 4 * cp - 1;
    work.backward_kernels = 4 * cp - 1;
    // The slowest rank (the last: every step on all its queries) sets the ring's pace.
    const double steps = cp;
    const double q = tokens * qWidth; // elements of the rank's output (and dQ)
    const double kv = tokens * 2 * kvWidth; // of its K and V (and dK, dV)
    if (framework == Framework::Torchtitan) {
        // PyTorch torch/distributed/tensor/experimental/_attention.py (the 2024-12 layout, read at
        // pytorch/pytorch 0123248a and f2127dbd; docs/context-parallel.md, "The merges, pass by pass"),
        // on the last rank, whose steps i > 0 all take the i <= rank branch (all its queries against
        // the first half of the received K/V, partial = False), the slowest merges:
        // Forward, _SDPAMerger(convert_to_f32): step 0 casts its output to fp32 and keeps it (2 + 4
        // bytes an element); each later step casts (6) and merges with out - sigmoid(lse' - lse) *
        // (out - out'): a subtraction, a product and a subtraction on fp32 (12 + 8 + 12 = 32, the
        // per-row lse terms 1/head_dim of that, left out); results() casts the fp32 output back
        // (4 + 2). Steps 0 to cp - 2 also concatenate K and V for the rotater (16-bit, 2 + 2 bytes an
        // element: torch.cat([key.flatten(), value.flatten()]) runs before exchange_buffers at every
        // such step, though the ALL_GATHER rotater gathers only the first).
        work.forward_bytes = q * (6 + (steps - 1) * (6 + 32) + 6) + kv * (steps - 1) * 4;
        // Backward, _templated_ring_attention_backward: dQ, dK and dV start as fp32 zeros (4 each);
        // every step adds its 16-bit dQ into the fp32 one (4 + 2 + 4); step 0 adds dK/dV whole (10),
        // later steps through _partial_update(add=True): the half they computed added in place (5)
        // and torch.cat of the two halves (4 + 4); every step then concatenates dK and dV for the
        // dK/dV rotater (8). After the loop dQ and the received dK/dV are cast back (4 + 2). Steps 0
        // to cp - 2 concatenate K and V for the K/V rotater as in the forward (4).
        work.backward_bytes
            = q * (4 + steps * 10 + 6) + kv * (4 + 10 + 8 + (steps - 1) * (5 + 8 + 8) + 6 + (steps - 1) * 4);
        return work;
    }
    // Transformer Engine (AttnFuncWithCPAndKVP2P): flash_attn_fwd_out_correction adds each
    // step's 16-bit output, scaled, into the fp32 output (2 + 4 + 4 bytes an element); the
    // backward adds each step's dQ and dK/dV into 16-bit buffers (dq.add_: 2 + 2 + 2).
    work.forward_bytes = steps * q * 10;
    work.backward_bytes = steps * (q + kv) * 6;
    return work;
}

} // namespace stratex::megatron
