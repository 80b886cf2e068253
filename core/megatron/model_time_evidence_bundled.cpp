// SPDX-License-Identifier: GPL-3.0-or-later
// The time model's error on the bundled reference runs (resources/reference-runs), per model
// architecture: a table, not a read of the records at run time, so that a search needs no files and
// both front ends say the same. tests/core/megatron/tst_model_time_evidence recomputes it from the
// records with the bundled presets and fails, with the rows to paste here, when a record or the
// model changes it.
#include "core/megatron/model_time_evidence.h"

namespace stratex::megatron {

const std::vector<ModelTimeError>& bundledModelTimeErrors()
{
    // { architectureKey, the records' model names, timed runs, lowest, highest, mean }
    static const std::vector<ModelTimeError> table {
        { "L105 h20480 f81920 a128/128 d160 plain", "gpt-530b", 8, -0.03901, 0.02475, -0.00289 },
        { "L112 h18432 f73728 a144/144 d128 plain", "gpt-462b", 1, 0.02543, 0.02543, 0.02543 },
        { "L12 h768 f3072 a12/12 d64 plain", "mpt-125m", 2, 0.04331, 0.09703, 0.07017 },
        { "L126 h16384 f53248 a128/8 d128 gated", "llama3.1-405b", 12, -0.06908, 0.13449, 0.02605 },
        { "L128 h25600 f102400 a160/160 d160 plain", "gpt-1t", 3, -0.05305, -0.00004, -0.03230 },
        { "L24 h1024 f4096 a16/16 d64 plain", "mpt-350m", 2, 0.00111, 0.04059, 0.02085 },
        { "L24 h2048 f8192 a16/16 d128 plain", "mpt-1b, gpt-1.7b", 5, -0.02921, 0.07877, 0.02855 },
        { "L24 h2304 f9216 a24/24 d96 plain", "gpt-1.7b", 1, -0.09022, -0.09022, -0.09022 },
        { "L24 h4096 f16384 a32/32 d128 plain", "gpt3-5b", 1, -0.00837, -0.00837, -0.00837 },
        { "L30 h3072 f12288 a32/32 d96 plain", "gpt-3.6b", 1, -0.08647, -0.08647, -0.08647 },
        { "L30 h4096 f16384 a32/32 d128 plain", "gpt-7.1b", 1, 0.02149, 0.02149, 0.02149 },
        { "L32 h2560 f10240 a20/20 d128 plain", "mpt-3b", 3, 0.04969, 0.06791, 0.05593 },
        { "L32 h4096 f11008 a32/32 d128 gated", "llama2-7b", 10, -0.06290, 0.03952, 0.00025 },
        { "L32 h4096 f14336 a32/8 d128 gated", "llama3-8b, llama3.1-8b", 24, -0.12163, 0.20442, 0.00843 },
        { "L32 h4096 f14336 a32/8 d128 gated moe8x2 f14336 s0 d0", "mixtral-8x7b", 1, -0.14987, -0.14987, -0.14987 },
        { "L32 h4096 f16384 a32/32 d128 plain", "mpt-7b, nemotron3-8b", 6, -0.02884, 0.09898, 0.03171 },
        { "L32 h6144 f24576 a48/48 d128 plain", "gpt-16b", 1, -0.12682, -0.12682, -0.12682 },
        { "L36 h2880 f2880 a64/8 d64 gated moe128x4 f2880 s0 d0", "gpt-oss-120b", 3, 0.17639, 0.48368, 0.34506 },
        { "L36 h4096 f16384 a32/32 d128 plain", "gpt-7.5b", 1, -0.09149, -0.09149, -0.09149 },
        { "L40 h5120 f13824 a40/40 d128 gated", "llama2-13b", 4, -0.03060, 0.07011, 0.03943 },
        { "L40 h5120 f20480 a40/40 d128 plain", "mpt-13b", 4, -0.05747, 0.07300, 0.00021 },
        { "L40 h6144 f24576 a48/48 d128 plain", "gpt-18b, nemotron3-22b", 2, -0.09646, 0.00642, -0.04502 },
        { "L44 h6144 f24576 a48/48 d128 plain", "gpt3-20b", 1, -0.05212, -0.05212, -0.05212 },
        { "L48 h2048 f6144 a32/4 d128 gated moe128x8 f768 s0 d0", "qwen3-30b-a3b", 3, -0.05140, 0.12173, 0.05529 },
        { "L48 h6144 f24576 a64/64 d96 plain", "gpt-22b", 2, -0.11699, -0.07756, -0.09728 },
        { "L48 h7168 f28672 a56/56 d128 plain", "mpt-30b, gpt-32b", 5, -0.32238, 0.22163, -0.02099 },
        { "L48 h8192 f32768 a64/64 d128 plain", "gpt-39b", 1, -0.08244, -0.08244, -0.08244 },
        { "L56 h6144 f16384 a48/8 d128 gated moe8x2 f16384 s0 d0", "mixtral-8x22b", 1, 0.28395, 0.28395, 0.28395 },
        { "L60 h10240 f40960 a80/80 d128 plain", "gpt-76b", 1, 0.00551, 0.00551, 0.00551 },
        { "L61 h7168 f18432 a128/128 d56 gated mla1536/512 moe256x8 f2048 s1 d3", "deepseek-v3", 1, -0.00457, -0.00457, -0.00457 },
        { "L80 h12288 f49152 a96/96 d128 plain", "gpt-145b", 4, -0.09334, -0.01537, -0.05551 },
        { "L80 h8192 f28672 a64/8 d128 gated", "llama3-70b, llama2-70b, llama3.1-70b", 11, -0.09704, 0.14119, 0.00147 },
        { "L80 h8192 f32768 a64/64 d128 plain", "mpt-70b", 5, -0.05417, 0.11146, 0.01712 },
        { "L84 h8192 f32768 a64/64 d128 plain", "gpt-70b", 1, -0.04739, -0.04739, -0.04739 },
        { "L92 h10240 f40960 a80/80 d128 plain", "gpt-119b", 1, 0.09834, 0.09834, 0.09834 },
        { "L94 h4096 f12288 a64/4 d128 gated moe128x8 f1536 s0 d0", "qwen3-235b-a22b", 10, -0.05405, 0.25220, 0.04309 },
        { "L96 h12288 f49152 a96/96 d128 plain", "gpt-175b, gpt-177b, gpt3-175b", 10, -0.11906, 0.08836, -0.01163 },
        { "L96 h16384 f65536 a128/128 d128 plain", "gpt-314b, gpt-310b", 2, 0.01444, 0.01984, 0.01714 },
        { "L96 h18432 f73728 a96/8 d192 plain", "nemotron4-340b", 1, -0.08071, -0.08071, -0.08071 },
    };
    return table;
}

} // namespace stratex::megatron
