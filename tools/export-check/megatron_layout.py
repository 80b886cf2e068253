# SPDX-License-Identifier: GPL-3.0-or-later
"""The plan's layers per model chunk, chunk-major (chunk 0 of ranks 0..pp-1, then chunk 1...):
the division the plan was costed with, a line-for-line port of Stratex's stageLayerCounts and
chunkLayerCount (core/megatron/parallel_strategy.cpp). The checks compare it with what each target
builds from the exported file (Megatron's get_num_layers_to_build, torchtitan's model parts...)."""


def plan_stages(s, layers):
    pp = max(1, s.get("pp", 1))
    counts = [0] * pp
    rest, first, last = layers, 0, pp
    if pp > 1 and s.get("first_stage_layers", 0) > 0:
        counts[0] = s["first_stage_layers"]
        rest -= counts[0]
        first = 1
    if pp > 1 and s.get("last_stage_layers", 0) > 0:
        counts[-1] = s["last_stage_layers"]
        rest -= counts[-1]
        last = pp - 1
    middle = last - first
    for stage in range(first, last):
        counts[stage] = rest // middle + (1 if stage - first < rest % middle else 0) if middle > 0 else 0
    return counts


def chunk_count(stage_layers, stage, chunk, vpp):
    v = max(1, vpp)
    extra = stage_layers % v
    heavy = chunk >= v - extra if stage == 0 else chunk < extra
    return stage_layers // v + (1 if heavy else 0)


def plan_chunks(s, layers):
    stages = plan_stages(s, layers)
    v = max(1, s.get("vpp", 1))
    return [chunk_count(stages[i], i, j, v) for j in range(v) for i in range(len(stages))]
