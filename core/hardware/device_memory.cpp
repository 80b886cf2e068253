// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/device_memory.h"

#include <algorithm>

namespace stratex::hardware {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMb = 1e6;

// NCCL's per-connection buffers, one per protocol (NVIDIA/nccl src/init.cc DEFAULT_LL_BUFFSIZE,
// DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE, and src/include/device.h @ 5067397c):
//   LL     NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x NCCL_STEPS 8 x 16-byte lines = 512 KiB
//   LL128  NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x 8 steps x 8 bytes
//   Simple NCCL_BUFFSIZE default 1 << 22 = 4 MiB
constexpr double kLlBytes = 8.0 * 512 * 8 * 16;
constexpr double kLl128Bytes = 120.0 * 640 * 8 * 8;
constexpr double kSimpleBytes = 4.0 * kMiB;
constexpr double kConnectionBytes = kLlBytes + kLl128Bytes + kSimpleBytes;
// ASSUMED, not measured: channels NCCL opens for a collective communicator inside an NVLink node
// (NCCL chooses per topology, at most MAXCHANNELS 64; 16 is in the range its init logs print for
// H100 nodes). A ring channel receives from one peer. Pipeline send/recv: 2 channels per peer
// (NCCL_NCHANNELS_PER_NET_PEER's order of magnitude), two neighbours.
constexpr int kRingChannels = 16;
constexpr int kP2pChannelsPerPeer = 2;
constexpr int kP2pPeers = 2;

// Measured on one H200 (resources/device-measurements/h200-2026-11-28/memory.json; the rows are
// named in docs/device-measurements.md, "Memory", and held by tests/core/hardware/
// tst_device_memory_h200.cpp). cudaContextMb() and ncclProcessMb() say what each is.
constexpr double kCudaContextBytes = 804061184;
constexpr double kNcclProcessBytes = 70 * kMiB;
// With expandable segments: reserved minus allocated over the step's churn (the allocated peak less
// the fp32 parameters and AdamW's moments, the only tensors alive through the step), the mean of the
// three plain rows: mbs2-expandable 0.90 %, mbs4-expandable 1.35 %, seq4096-mbs1-expandable 1.10 %.
// (Without them the same gives 6.54, 7.87 and 6.02 %: Efficiency::activation_fragmentation 1.07.)
constexpr double kExpandableShare = 0.0112;

} // namespace

double cudaContextMb()
{
    // Measured (docs/device-measurements.md, "Memory"): what the device holds beyond the caching
    // allocator's reserved peak in a PyTorch training process on one H200 (PyTorch 2.11, CUDA 13.0,
    // lazy module loading): device_used_after - max_memory_reserved in resources/device-measurements/
    // h200-2026-11-28/memory.json, 804 061 184 bytes to the byte in all eight rows that open no
    // NCCL communicator (mbs2, mbs4, mbs2-recompute, seq4096-mbs1, each with expandable segments
    // off and on). Of it, 552 402 944 bytes (527 MiB, device_used_before) are there right after CUDA
    // initialisation: the context itself; the other 240 MiB are the kernel modules the step loads
    // lazily (cuBLAS, SDPA's flash kernels, PyTorch's own). The earlier figure, ~400 MiB for the
    // context alone (ptrblck, pytorch/pytorch#109888), left the modules out. One figure for every
    // GPU family: no other family is measured.
    return kCudaContextBytes / kMb;
}

double cublasWorkspaceMb(const std::string& gpuName)
{
    // PyTorch aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize: default
    // ":4096:8" (32 MiB) on sm90 (Hopper), else 4096 KiB x 2 + 16 KiB x 8; allocated through the
    // caching allocator (getNewWorkspace), so it counts as allocated memory.
    const bool hopper = gpuName.rfind("h100", 0) == 0 || gpuName.rfind("h200", 0) == 0 || gpuName.rfind("gh200", 0) == 0;
    const double bytes = hopper ? 4096.0 * 8 * 1024 : 4096.0 * 1024 * 2 + 16.0 * 1024 * 8;
    return bytes / kMb;
}

double ncclCommunicatorMb(const Communicator& communicator)
{
    if (communicator.size <= 1)
        return 0;
    const int connections = communicator.point_to_point ? kP2pPeers * kP2pChannelsPerPeer : kRingChannels;
    return connections * kConnectionBytes / kMb;
}

double ncclProcessMb()
{
    return kNcclProcessBytes / kMb;
}

double allocatorCacheMb(double churnMb, double fragmentation, bool expandableSegments)
{
    // PyTorch c10/cuda/CUDACachingAllocator.cpp: requests round up to 512 B (kMinBlockSize); a
    // request under 1 MiB takes a block of a 2 MiB segment (kSmallBuffer), under 10 MiB a 20 MiB
    // segment (kLargeBuffer), larger ones their size rounded to 2 MiB (kRoundLarge). Freed blocks
    // stay cached and are split for later requests (best fit); with tensors of varied sizes the
    // segments hold free remainders no later request fits, so reserved grows past allocated by a
    // share of what is allocated and freed during the step (`fragmentation` - 1, Efficiency's
    // activation_fragmentation, measured: docs/device-measurements.md, "Memory"; mostly the first
    // step's AdamW moments, created after the backward in the blocks it freed, which the next
    // step's same-sized requests then find split: docs/memory-model.md, "A replay of the caching
    // allocator"). With expandable_segments one segment per stream grows by pages (2 MiB in the
    // small pool, 20 MiB in the large: Note [Expandable Segments] there) and a free range is reused
    // for any request that fits it; the page rounding and the free ranges a larger request skips
    // (it maps new pages at the end) remain: kExpandableShare of the churn, measured.
    const double churn = std::max(0.0, churnMb);
    if (expandableSegments)
        return churn * kExpandableShare;
    return churn * std::max(0.0, fragmentation - 1);
}

double lateAllocationSegmentMb(
    double allocationMb, double largestEarlierMb, double absentAtFirstStepMb, bool expandableSegments)
{
    if (expandableSegments || allocationMb <= largestEarlierMb)
        return 0;
    return std::max(0.0, allocationMb - std::max(0.0, absentAtFirstStepMb));
}

DeviceMemory deviceMemory(const DeviceMemoryInput& input)
{
    DeviceMemory memory;
    memory.cublas_workspace_mb = cublasWorkspaceMb(input.gpu_name);
    memory.cuda_context_mb = cudaContextMb();
    bool joinsGroup = false;
    for (const Communicator& communicator : input.communicators) {
        memory.nccl_mb += ncclCommunicatorMb(communicator);
        joinsGroup = joinsGroup || communicator.size > 1;
    }
    // NCCL's fixed part, once per process that opens a communicator (ncclProcessMb).
    if (joinsGroup)
        memory.nccl_mb += ncclProcessMb();
    memory.allocator_cache_mb = allocatorCacheMb(input.churn_mb, input.fragmentation, input.expandable_segments);
    return memory;
}

} // namespace stratex::hardware
