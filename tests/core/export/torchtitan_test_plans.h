// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The plans the torchtitan main export's suites write (tst_torchtitan_module,
// tst_torchtitan_plan_module): a Galvatron plan by layer, GPipe, DeepSeek-V2-Lite from its
// config.json, and an MLA model with a field deepseek_v3's blocks lack.
#include <algorithm>
#include <filesystem>
#include <vector>

#include <QString>

#include "core/galvatron/plan.h"
#include "core/megatron/plan_file.h"
#include "core/model/hf_config.h"

#include "plan_file_test_util.h"

namespace stratex::test::torchtitan_plans {

inline galvatron::Plan galvatronPlan(const std::vector<int>& division, int tp, int sp, galvatron::DpType dpType, int chunks,
    const std::vector<int>& checkpointed)
{
    galvatron::Plan plan;
    plan.pp = int(division.size());
    plan.world = 8;
    plan.pp_division = division;
    plan.gbsz = 64;
    plan.chunks = chunks;
    plan.pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    int layer = 0;
    for (int n : division) {
        for (int i = 0; i < n; ++i, ++layer) {
            galvatron::LayerStrategy s;
            s.pp = plan.pp;
            s.tp = tp;
            s.sp = sp;
            s.dp = 8 / (plan.pp * tp * sp);
            s.dp_type = s.dp > 1 ? dpType : galvatron::DpType::Ddp;
            s.checkpoint = std::find(checkpointed.begin(), checkpointed.end(), layer) != checkpointed.end();
            plan.layers.push_back(s);
        }
    }
    plan.embedding = { plan.pp, tp, sp, 1, 8 / (plan.pp * tp * sp), galvatron::DpType::Zero2 };
    return plan;
}

inline megatron::PlanFile gpipePlan()
{
    megatron::PlanFile plan = planOf("llama3.1-8b", 0, 0, "h100-80gb", 1, "tp=2 pp=2 dp=2 zero=0 gbs=16");
    plan.gpipe = true;
    return plan;
}

// DeepSeek-V2-Lite as its config.json describes it (q_lora_rank null, softmax routing without
// expert bias, 2 shared experts): EP 8 with TP 2 on 16 GPUs.
inline megatron::PlanFile v2LitePlan(const QString& items = "tp=2 pp=1 ep=8 dp=8 sp=1 zero=1 gbs=64")
{
    megatron::PlanFile plan = planOf("deepseek-v3-style", 0, 0, "h100-80gb", 2, items);
    plan.model = model::readHfConfigFile(
        std::filesystem::path(STRATEX_TEST_DATA_DIR) / "hf-configs" / "deepseek-v2-lite.json").model;
    plan.model.name = "deepseek-v2-lite";
    return plan;
}

// An MLA model with a field deepseek_v3's blocks lack.
inline megatron::PlanFile mlaWithQkNorm()
{
    megatron::PlanFile plan = v2LitePlan();
    plan.model.qk_norm = true;
    return plan;
}

} // namespace stratex::test::torchtitan_plans
