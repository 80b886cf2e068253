// SPDX-License-Identifier: GPL-3.0-or-later
// The coverage of the bundled reference runs (resources/reference-runs): a table, not a read of
// the records at run time, so that a search needs no files and both front ends see the same
// evidence. tests/core/megatron/tst_plan_evidence recomputes it from the records and fails, with
// the values to paste here, when a record changes it.
#include "core/megatron/plan_evidence.h"

namespace stratex::megatron {

const EvidenceCoverage& bundledCoverage()
{
    static const EvidenceCoverage coverage = [] {
        EvidenceCoverage c;
        c.runs = 156;
        c.max_tp = 8;
        c.max_pp = 64;
        c.max_cp = 32;
        c.max_ep = 64;
        c.max_dp_by_zero = { 32, 128, 512, 512 };
        c.min_world = 2;
        c.max_world = 16384;
        c.min_params_b = 0.125228544;
        c.max_params_b = 1008.0092672;
        c.min_seq_length = 2048;
        c.max_seq_length = 1048576;
        c.dense = true;
        c.moe = true;
        c.gpu_families = { "a100", "b200-192gb", "gb200-186gb", "h100", "h100-96gb" };
        c.max_cp_by_comm = { 32, 0, 16, 0 }; // p2p, a2a, all_gather, a2a+p2p
        c.schedules = { true, true, false }; // 1F1B, interleaved, ZB-H1
        return c;
    }();
    return coverage;
}

} // namespace stratex::megatron
