// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace stratex::megatron {

// One micro-batch's saved activations alive at the peak: what its forward of one model chunk
// stored on this rank and its backward has not freed yet.
struct PeakHeldActivations {
    int microbatch = 0; // the micro-batch's number in the iteration (0-based)
    int chunk = 0; // model chunk on this rank (0 unless interleaved)
    double mb = 0;
};

// The worst rank's peak, explained from the same ledger the Timeline page's memory curve and the
// plan table's peak come from (docs/memory-model.md, "Explaining the peak"): the moment, the op
// running then, and every part alive, allocated first and then what the device holds around the
// tensors. The allocated parts sum to the stage's allocated peak, all parts to its device peak.
// MB = 1e6 bytes.
struct PeakExplanation {
    int stage = 0; // the pipeline stage (rank) with the highest device peak
    std::string op; // "forward", "backward", "weight gradient" (ZB-H1's W) or "optimizer step"
    int microbatch = 0; // the micro-batch the op runs
    int chunk = 0; // its model chunk on the rank
    bool last_chunk = false; // the model's last chunk: the op computes the logits and the loss
    double time_ms = 0; // when the op starts, in the simulated iteration
    // Allocated (torch.cuda.max_memory_allocated) at the moment:
    double weights_mb = 0;
    double gradients_mb = 0;
    double optimizer_mb = 0;
    double workspace_mb = 0; // cuBLAS
    std::vector<PeakHeldActivations> held; // saved activations per in-flight micro-batch and chunk
    double held_mb = 0; // their sum
    double op_stored_mb = 0; // what the running op's micro-batch stores for its backward
    double op_transient_mb = 0; // the op's transient: a layer's intermediates or a recomputed group
    double logits_mb = 0; // logits and loss buffers (the op on the last chunk)
    // Kept by the stage for the whole step: torch.distributed.pipelining's receive buffers and the
    // last stage's output chunks under torchtitan (pipeline_input.h pipelineStageBuffers).
    double pipeline_buffers_mb = 0;
    // The device beyond the tensors (nvidia-smi's number):
    double allocator_cache_mb = 0;
    double cuda_context_mb = 0;
    double nccl_mb = 0;
    double other_reserve_mb = 0; // the calibrated memory_reserve_gb
    double allocated_mb = 0; // the sum of the allocated parts
    double device_mb = 0; // allocated + the device's parts

    int inflightMicrobatches() const;
};

} // namespace stratex::megatron
