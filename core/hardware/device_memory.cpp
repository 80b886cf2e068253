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

} // namespace

double cudaContextMb()
{
    // "The first CUDA operation will create the CUDA context which uses around 400MB if CUDA >= 11.7
    // is used and lazy module loading enabled (default in PyTorch)": ptrblck, pytorch/pytorch#109888
    // (2023-09-23). One figure for every GPU family: no per-family measurement is held.
    return 400 * kMiB / kMb;
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

double allocatorCacheMb(double churnMb, double fragmentation, bool expandableSegments)
{
    // PyTorch c10/cuda/CUDACachingAllocator.cpp: requests round up to 512 B (kMinBlockSize); a
    // request under 1 MiB takes a block of a 2 MiB segment (kSmallBuffer), under 10 MiB a 20 MiB
    // segment (kLargeBuffer), larger ones their size rounded to 2 MiB (kRoundLarge). Freed blocks
    // stay cached and are split for later requests; with tensors of varied sizes the segments hold
    // free remainders no later request fits, so reserved grows past allocated by a share of what
    // is allocated and freed during the step (`fragmentation` - 1, a fitted factor). With
    // expandable_segments one segment per stream grows by 2 MiB pages and a free range is
    // reused for any size: only the page rounding of the peak remains (<= 2 MiB).
    const double churn = std::max(0.0, churnMb);
    if (expandableSegments)
        return std::min(churn, 2 * kMiB / kMb);
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
    for (const Communicator& communicator : input.communicators)
        memory.nccl_mb += ncclCommunicatorMb(communicator);
    memory.allocator_cache_mb = allocatorCacheMb(input.churn_mb, input.fragmentation, input.expandable_segments);
    return memory;
}

} // namespace stratex::hardware
