// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace stratex::hardware {

// What a training process holds on its GPU beyond its tensors (docs/memory-model.md, "Device
// memory"): the number nvidia-smi shows and the one that runs out. MB = 1e6 bytes throughout.
//
//   allocated  what torch.cuda.max_memory_allocated reports: tensors, cuBLAS workspaces
//   reserved   allocated + what the caching allocator keeps cached (max_memory_reserved)
//   device     reserved + CUDA context + NCCL communicator buffers (nvidia-smi)
//
// The CUDA context, NCCL's fixed part and the allocator's shares are measured on one H200
// (resources/device-measurements/h200-2026-11-28/memory.json; docs/device-measurements.md,
// "Memory"); tests/core/hardware/tst_device_memory_h200.cpp holds them to every row.

// One NCCL communicator a rank belongs to: a collective group (TP, CP, DP, EP ...) or the
// pipeline's point-to-point neighbours.
struct Communicator {
    std::string name; // "tp", "dp", "pp", ... for the breakdown
    int size = 1; // ranks; a group of 1 creates no connections
    bool point_to_point = false; // send/recv with the neighbours only (pipeline)
};

struct DeviceMemoryInput {
    std::string gpu_name; // a GPU preset name ("h100-80gb"): Hopper gets PyTorch's larger cuBLAS workspace
    std::vector<Communicator> communicators;
    // Memory allocated and freed within an iteration at the allocated peak (activations, gathered
    // weights, logits): what the caching allocator's free blocks fragment.
    double churn_mb = 0;
    // The reserved-over-allocated factor on the churn without expandable segments (Efficiency's
    // activation_fragmentation: 1.07 = 7 % of the churn stays cached in blocks too small or split).
    double fragmentation = 1.07;
    bool expandable_segments = false; // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
};

struct DeviceMemory {
    double cublas_workspace_mb = 0; // allocated through the caching allocator: part of "allocated"
    double allocator_cache_mb = 0; // reserved - allocated at the peak
    double cuda_context_mb = 0;
    double nccl_mb = 0; // all communicators' buffers and NCCL's fixed part (ncclProcessMb)

    // Beyond the allocated peak (tensors + workspace): what "device" adds to it.
    double outsideAllocatedMb() const { return allocator_cache_mb + cuda_context_mb + nccl_mb; }
};

// The CUDA context of a PyTorch training process with lazy module loading (CUDA >= 11.7,
// PyTorch's default), with the kernel modules a training step loads: measured, 804 MB.
double cudaContextMb();
// PyTorch's default cuBLAS workspace for one handle and stream on this GPU.
double cublasWorkspaceMb(const std::string& gpuName);
// Buffers of one NCCL communicator on one rank (0 for a group of one).
double ncclCommunicatorMb(const Communicator& communicator);
// What a process that opens NCCL holds beside the connection buffers: NCCL's device code, loaded
// at the first collective, and the communicator's own structures. Measured with one communicator
// of one rank (FSDP2 on one GPU: 70 MiB over the same run without it); deviceMemory() counts it
// once per rank that joins a group of more than one.
double ncclProcessMb();
// Reserved minus allocated at the peak for `churnMb` of short-lived allocations: (fragmentation - 1)
// of it without expandable segments, a measured smaller share with them.
double allocatorCacheMb(double churnMb, double fragmentation, bool expandableSegments);

// The reserved memory a request made after the step's peak adds (docs/memory-model.md, "Device
// memory"): without expandable segments the caching allocator never merges segments, so a free
// block is at most the largest segment, and a segment is at most the largest request that created
// it rounded to 2 MiB (c10/cuda/CUDACachingAllocator.cpp get_allocation_size, kRoundLarge). A
// request larger than every earlier one (`largestEarlierMb`) therefore gets a new segment from
// cudaMalloc even when little is allocated, and reserved memory only grows. At the first step the
// optimizer's lazily created state (`absentAtFirstStepMb`: torch.optim's AdamW allocates exp_avg
// and exp_avg_sq in its first step(), after the backward) is not yet allocated: the reserved peak
// is at least the steady one less that state plus the new segment, so it adds
// max(0, allocation - absent). Expandable segments map pages to one segment per stream and reuse
// free ranges: 0 there.
double lateAllocationSegmentMb(
    double allocationMb, double largestEarlierMb, double absentAtFirstStepMb, bool expandableSegments);

DeviceMemory deviceMemory(const DeviceMemoryInput& input);

} // namespace stratex::hardware
