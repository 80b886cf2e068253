// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::megatron {

// The parts of a layer Megatron-LM's selective recompute rebuilds in the backward pass
// (--recompute-modules, megatron/core/transformer/transformer_config.py). "core_attn", "mlp",
// "moe" and "shared_experts" checkpoint the module (only its input is kept); "layernorm",
// "moe_act" and "mla_up_proj" discard the output and recompute it from the input the next GEMM
// needs anyway.
enum class RecomputeModule : unsigned {
    CoreAttn = 1u << 0,
    Layernorm = 1u << 1,
    Mlp = 1u << 2, // the dense MLP
    Moe = 1u << 3, // the whole MoE layer, expert all-to-alls included
    MoeAct = 1u << 4, // the experts' activation function
    SharedExperts = 1u << 5,
    MlaUpProj = 1u << 6, // MLA's Q/KV up projections and RoPE (multi_latent_attention.py)
};

// A set of modules; Megatron's default is {core_attn}.
class RecomputeModules {
public:
    constexpr RecomputeModules() = default;
    static constexpr RecomputeModules of(std::initializer_list<RecomputeModule> modules)
    {
        RecomputeModules set;
        set.m_bits = 0;
        for (RecomputeModule module : modules)
            set.m_bits |= unsigned(module);
        return set;
    }

    constexpr RecomputeModules with(RecomputeModule module) const
    {
        RecomputeModules set = *this;
        set.m_bits |= unsigned(module);
        return set;
    }
    constexpr bool has(RecomputeModule module) const { return (m_bits & unsigned(module)) != 0; }
    constexpr bool isDefault() const { return m_bits == unsigned(RecomputeModule::CoreAttn); }
    constexpr bool empty() const { return m_bits == 0; }

    // Megatron's names in its order: "core_attn", "layernorm", "mlp", "moe", "moe_act", "shared_experts",
    // "mla_up_proj".
    std::vector<std::string_view> names() const;
    std::string joined(std::string_view separator) const; // "layernorm moe"

    auto operator<=>(const RecomputeModules&) const = default;

private:
    unsigned m_bits = unsigned(RecomputeModule::CoreAttn);
};

std::optional<RecomputeModule> parseRecomputeModule(std::string_view name);
// Every name Megatron accepts, for messages.
std::string recomputeModuleChoices();

} // namespace stratex::megatron
