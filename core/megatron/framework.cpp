// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/framework.h"

#include "core/common/enum_names.h"

namespace stratex::megatron {

namespace {

constexpr EnumNames<Framework, 5> kFrameworkNames { { { Framework::MegatronCore, "megatron-core" },
    { Framework::MegatronBridge, "megatron-bridge" }, { Framework::Torchtitan, "torchtitan" },
    { Framework::DeepSpeed, "deepspeed" }, { Framework::Composer, "composer" } } };

} // namespace

std::string_view frameworkName(Framework value)
{
    return enumName(kFrameworkNames, value);
}

std::optional<Framework> parseFramework(std::string_view name)
{
    if (name == "nemo")
        return Framework::MegatronBridge;
    return parseEnumName(kFrameworkNames, name);
}

std::string frameworkChoices()
{
    return "\"megatron-core\", \"megatron-bridge\" (or \"nemo\"), \"torchtitan\", \"deepspeed\" or \"composer\"";
}

} // namespace stratex::megatron
