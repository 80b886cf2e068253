// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/fp8_recipe.h"

#include "core/common/enum_names.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<Fp8Recipe, 5> kFp8RecipeNames { { { Fp8Recipe::Default, "default" },
    { Fp8Recipe::Delayed, "delayed" }, { Fp8Recipe::Tensorwise, "tensorwise" }, { Fp8Recipe::Mxfp8, "mxfp8" },
    { Fp8Recipe::Blockwise, "blockwise" } } };

bool megatronFramework(Framework framework)
{
    return framework == Framework::MegatronCore || framework == Framework::MegatronBridge;
}

// transformer_config.py __post_init__ (d98e8a64): delayed scaling refuses these recompute modules.
bool recomputesLayernormOrMoeAct(const ParallelStrategy& s)
{
    return s.recompute == Recompute::Selective
        && (s.recompute_modules.has(RecomputeModule::Layernorm) || s.recompute_modules.has(RecomputeModule::MoeAct));
}

} // namespace

std::string_view fp8RecipeName(Fp8Recipe value)
{
    return enumName(kFp8RecipeNames, value);
}

std::optional<Fp8Recipe> parseFp8Recipe(std::string_view name)
{
    return parseEnumName(kFp8RecipeNames, name);
}

std::string fp8RecipeChoices()
{
    return "\"default\", \"delayed\", \"tensorwise\", \"mxfp8\" or \"blockwise\"";
}

Fp8Recipe resolvedFp8Recipe(const ParallelStrategy& s)
{
    if (s.fp8_recipe != Fp8Recipe::Default)
        return s.fp8_recipe;
    if (s.framework == Framework::MegatronCore)
        return recomputesLayernormOrMoeAct(s) ? Fp8Recipe::Tensorwise : Fp8Recipe::Delayed;
    return Fp8Recipe::Tensorwise;
}

std::string precisionLabel(const ParallelStrategy& s)
{
    std::string label(precisionName(s.precision));
    if (s.precision == Precision::Fp8)
        label += " (" + std::string(fp8RecipeName(resolvedFp8Recipe(s))) + " recipe)";
    return label;
}

hardware::Fp8Scaling fp8Scaling(Fp8Recipe resolved)
{
    switch (resolved) {
    case Fp8Recipe::Delayed:
        return hardware::Fp8Scaling::Delayed;
    case Fp8Recipe::Mxfp8:
        return hardware::Fp8Scaling::Mxfp8;
    case Fp8Recipe::Blockwise:
        return hardware::Fp8Scaling::Blockwise;
    case Fp8Recipe::Default:
    case Fp8Recipe::Tensorwise:
        break;
    }
    return hardware::Fp8Scaling::Current;
}

std::string fp8RecipeProblem(const ParallelStrategy& s)
{
    if (s.fp8_recipe == Fp8Recipe::Default)
        return {};
    const std::string recipe = "fp8_recipe " + std::string(fp8RecipeName(s.fp8_recipe));
    if (s.precision != Precision::Fp8)
        return recipe + " needs precision fp8 (found " + std::string(precisionName(s.precision)) + ")";
    if (!megatronFramework(s.framework) && s.fp8_recipe != Fp8Recipe::Tensorwise)
        return recipe + " with framework \"" + std::string(frameworkName(s.framework))
            + "\": only Megatron-Core and Megatron-Bridge choose Transformer Engine's recipe; this framework scales "
              "per tensor (fp8_recipe default or tensorwise)";
    if (s.fp8_recipe == Fp8Recipe::Delayed && recomputesLayernormOrMoeAct(s))
        return recipe + " with layernorm or moe_act recompute: \"Delayed scaling does not support moe_act and "
                        "layernorm recompute for fp8\" (Megatron-Core transformer_config.py); use tensorwise";
    return {};
}

} // namespace stratex::megatron
