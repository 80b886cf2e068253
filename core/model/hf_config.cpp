// SPDX-License-Identifier: GPL-3.0-or-later
// The family's detection, the model's name and validation; the keys (hf_config_keys.h), the
// shared shapes (hf_config_shapes.h) and each family's reader (hf_config_families.h) apart.
#include "core/model/hf_config.h"

#include <algorithm>
#include <map>
#include <optional>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/model/hf_config_families.h"
#include "core/model/hf_config_keys.h"

namespace stratex::model {

using hf::Keys;
using hf::Reading;

namespace {

// The architectures transformers registers for each family (modeling_auto.py's
// MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and the Llama 4 multimodal class).
const std::map<std::string, std::string, std::less<>>& architectureFamilies()
{
    static const std::map<std::string, std::string, std::less<>> families {
        { "LlamaForCausalLM", "llama" },
        { "Llama4ForCausalLM", "llama4" },
        { "Llama4ForConditionalGeneration", "llama4" },
        { "MistralForCausalLM", "mistral" },
        { "MixtralForCausalLM", "mixtral" },
        { "Qwen2ForCausalLM", "qwen2" },
        { "Qwen2MoeForCausalLM", "qwen2_moe" },
        { "Qwen3ForCausalLM", "qwen3" },
        { "Qwen3MoeForCausalLM", "qwen3_moe" },
        { "DeepseekV2ForCausalLM", "deepseek_v2" },
        { "DeepseekV3ForCausalLM", "deepseek_v3" },
        { "GemmaForCausalLM", "gemma" },
        { "NemotronForCausalLM", "nemotron" },
        { "GPTNeoXForCausalLM", "gpt_neox" },
        { "GPT2LMHeadModel", "gpt2" },
    };
    return families;
}

std::string familyList()
{
    std::string list;
    for (const std::string& family : hfConfigFamilies())
        list += (list.empty() ? "" : ", ") + family;
    return list;
}

// The model's name as file names and labels carry it: letters, digits, '.', '_' and '-'.
std::string cleanName(const std::string& raw)
{
    std::string name = raw;
    const std::size_t slash = name.find_last_of("/\\");
    if (slash != std::string::npos)
        name = name.substr(slash + 1);
    for (char& c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
            || c == '_' || c == '-';
        if (!plain)
            c = '-';
    }
    if (name.size() > std::size_t(limits::kMaxNameLength))
        name.resize(std::size_t(limits::kMaxNameLength));
    return name;
}

} // namespace

const std::vector<std::string>& hfConfigFamilies()
{
    static const std::vector<std::string> families { "llama", "llama4", "mistral", "mixtral", "qwen2", "qwen2_moe",
        "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3", "gemma", "nemotron", "gpt_neox", "gpt2" };
    return families;
}

HfModel readHfConfig(const JsonView& root, const std::string& fallbackName)
{
    root.requireObject();
    HfModel out;
    std::optional<std::string> fromArchitecture;
    std::optional<JsonView> architectureView;
    if (const std::optional<JsonView> architectures = root.find("architectures");
        architectures && !architectures->raw().is_null()) {
        architectures->requireArray();
        if (architectures->size() > 0) {
            architectureView = architectures->at(0);
            const std::string name = architectureView->string();
            const auto& known = architectureFamilies();
            if (const auto found = known.find(name); found != known.end())
                fromArchitecture = found->second;
        }
    }
    const std::optional<JsonView> typeView = root.find("model_type");
    if (typeView) {
        out.family = typeView->string();
        const auto& families = hfConfigFamilies();
        if (std::find(families.begin(), families.end(), out.family) == families.end())
            typeView->fail("a supported model_type (" + familyList() + ")");
        if (fromArchitecture && *fromArchitecture != out.family)
            architectureView->fail("an architecture of model_type \"" + out.family + "\" (the file contradicts itself)");
    } else if (fromArchitecture) {
        out.family = *fromArchitecture;
    } else if (architectureView) {
        architectureView->fail("a supported architecture (of " + familyList() + ")");
    } else {
        root.failMissing("model_type");
    }

    // Llama 4's released files nest the language model in "text_config".
    JsonView object = root;
    if (out.family == "llama4") {
        if (const std::optional<JsonView> text = root.find("text_config"); text && !text->raw().is_null()) {
            text->requireObject();
            object = *text;
        }
    }
    const Keys keys(object);
    Reading reading { keys, out };
    readFamily(out.family, reading);

    ModelDescription& m = out.model;
    if (m.seq_length > limits::kMaxSeqLength)
        keys.require("max_position_embeddings")
            .fail("a sequence length of at most " + std::to_string(limits::kMaxSeqLength));
    std::string name = cleanName(Keys(root).text("_name_or_path", std::string()));
    m.name = name.empty() ? cleanName(fallbackName) : name;
    if (m.name.empty())
        m.name = out.family;
    try {
        m.validate();
    } catch (const Error& error) {
        root.fail(std::string("a valid model shape (") + error.what() + ")");
    }
    return out;
}

HfModel readHfConfigFile(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    std::string fallback = path.stem().string();
    if (fallback == "config" && path.has_parent_path())
        fallback = std::filesystem::absolute(path).parent_path().filename().string();
    return readHfConfig(document.root(), fallback);
}

} // namespace stratex::model
