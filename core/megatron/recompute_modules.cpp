// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/recompute_modules.h"

#include "core/common/enum_names.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<RecomputeModule, 7> kModuleNames { { { RecomputeModule::CoreAttn, "core_attn" },
    { RecomputeModule::Layernorm, "layernorm" }, { RecomputeModule::Mlp, "mlp" }, { RecomputeModule::Moe, "moe" },
    { RecomputeModule::MoeAct, "moe_act" }, { RecomputeModule::SharedExperts, "shared_experts" },
    { RecomputeModule::MlaUpProj, "mla_up_proj" } } };

} // namespace

std::vector<std::string_view> RecomputeModules::names() const
{
    std::vector<std::string_view> out;
    for (const auto& [module, name] : kModuleNames) {
        if (has(module))
            out.push_back(name);
    }
    return out;
}

std::string RecomputeModules::joined(std::string_view separator) const
{
    std::string text;
    for (std::string_view name : names()) {
        if (!text.empty())
            text += separator;
        text += name;
    }
    return text;
}

std::optional<RecomputeModule> parseRecomputeModule(std::string_view name)
{
    return parseEnumName(kModuleNames, name);
}

std::string recomputeModuleChoices()
{
    std::string text;
    for (const auto& [module, name] : kModuleNames)
        text += (text.empty() ? "" : ", ") + std::string(name);
    return text;
}

} // namespace stratex::megatron
