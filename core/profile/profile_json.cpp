// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/profile_json.h"

#include "core/common/atomic_file.h"
#include "core/common/error.h"

namespace stratex::profile {

JsonDocument parseProfileJson(std::string_view text, const std::string& name)
{
    try {
        return JsonDocument::parse(text, name);
    } catch (const nlohmann::json::exception& error) {
        std::string message = error.what();
        if (const auto pos = message.find("] "); pos != std::string::npos)
            message = message.substr(pos + 2);
        throw InputError(name, "", "valid JSON with finite numbers", message);
    }
}

JsonDocument loadProfileJson(const std::filesystem::path& path)
{
    return parseProfileJson(readTextFile(path), path.string());
}

} // namespace stratex::profile
