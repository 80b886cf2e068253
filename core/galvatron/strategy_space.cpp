// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/strategy_space.h"

#include <algorithm>

namespace stratex::galvatron {

namespace {

template <typename T> void sortUnique(std::vector<T>& values)
{
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
}

template <typename T, typename Keep> void keepIf(std::vector<T>& values, Keep keep)
{
    values.erase(std::remove_if(values.begin(), values.end(), [&](const T& v) { return !keep(v); }), values.end());
}

} // namespace

StrategySpace enumerateStrategies(const SearchSettings& settings)
{
    using galvatron::DpType;
    const int world = settings.world();
    const int layers = settings.model.num_layers;
    std::vector<int> degrees;
    for (int d = 1; d <= world; d *= 2)
        degrees.push_back(d);

    StrategySpace space;
    for (int pp : degrees) {
        if (pp > layers || pp > settings.max_pp_deg)
            continue;
        for (bool ulysses : { false, true }) {
            for (int t : degrees) {
                if (!ulysses && t > settings.max_tp_deg)
                    continue;
                if (ulysses && t > settings.max_sp_deg)
                    continue;
                if (t * pp > world)
                    continue;
                // Context parallelism is disabled (Galvatron's default disable_cp = 1): cp = 1.
                const int dp = world / pp / t;
                std::vector<DpType> types;
                if (dp == 1)
                    types = { DpType::Ddp };
                else if (settings.default_dp_type == DpType::Ddp)
                    types = { DpType::Ddp, DpType::Zero3 };
                else
                    types = { DpType::Zero2, DpType::Zero3 };
                for (DpType type : types) {
                    for (bool checkpoint : { false, true }) {
                        galvatron::LayerStrategy s;
                        s.pp = pp;
                        s.tp = ulysses ? 1 : t;
                        s.sp = ulysses ? t : 1;
                        s.cp = 1;
                        s.dp = dp;
                        s.dp_type = type;
                        s.checkpoint = checkpoint;
                        space.layers.push_back(s);
                    }
                }
            }
        }
    }
    sortUnique(space.layers);
    for (const galvatron::LayerStrategy& s : space.layers)
        space.embeddings.push_back(galvatron::projection(s));
    sortUnique(space.embeddings);

    auto& L = space.layers;
    auto& E = space.embeddings;
    if (settings.disable_pp) {
        keepIf(L, [](const auto& s) { return s.pp == 1; });
        keepIf(E, [](const auto& s) { return s.pp == 1; });
    }
    if (settings.disable_tp) {
        keepIf(L, [](const auto& s) { return s.tp == 1; });
        keepIf(E, [](const auto& s) { return s.tp == 1; });
    }
    if (settings.disable_sp) {
        keepIf(L, [](const auto& s) { return s.sp == 1; });
        keepIf(E, [](const auto& s) { return s.sp == 1; });
    }
    if (settings.disable_dp) {
        keepIf(L, [](const auto& s) { return s.dp == 1; });
        keepIf(E, [](const auto& s) { return s.dp == 1; });
    }
    if (settings.disable_ckpt)
        keepIf(L, [](const auto& s) { return !s.checkpoint; });
    if (settings.disable_fsdp) {
        keepIf(L, [](const auto& s) { return s.dp_type != DpType::Zero3; });
        keepIf(E, [](const auto& s) { return s.dp_type != DpType::Zero3; });
    }
    if (settings.disable_embedding_lmhead_tp)
        keepIf(E, [](const auto& s) { return s.tp == 1; });
    if (settings.disable_embedding_lmhead_sp)
        keepIf(E, [](const auto& s) { return s.sp == 1; });
    sortUnique(L);
    sortUnique(E);
    for (const galvatron::EmbeddingStrategy& e : E)
        space.pipelineDegrees.push_back(e.pp);
    sortUnique(space.pipelineDegrees);
    return space;
}

} // namespace stratex::galvatron
