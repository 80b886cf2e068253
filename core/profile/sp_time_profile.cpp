// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/sp_time_profile.h"

#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/profile/profile_key.h"

namespace stratex::profile {

SpTimeProfile SpTimeProfile::fromJson(const JsonView& root)
{
    root.requireObject();
    SpTimeProfile profile;
    profile.file = root.file();
    for (const auto& [key, value] : root.members()) {
        const bool allreduce = startsWith(key, "allreduce_size_");
        const bool all2all = startsWith(key, "all2all_size_");
        if (!allreduce && !all2all)
            continue;
        // Galvatron: group = third field from the end, size = second from the end without "MB".
        const auto fields = splitUnderscore(key);
        std::optional<int> group;
        std::optional<int> megabytes;
        if (fields.size() >= 4 && fields.back() == "time") {
            group = parseAllDigits(fields[fields.size() - 3]);
            const std::string_view size = fields[fields.size() - 2];
            if (size.size() > 2 && size.substr(size.size() - 2) == "MB")
                megabytes = parseAllDigits(size.substr(0, size.size() - 2));
        }
        if (!group || !megabytes || *group < 1)
            throw InputError(profile.file, value.path(),
                std::string("a key \"") + (allreduce ? "allreduce" : "all2all") + "_size_{group}_{X}MB_time\"",
                "key \"" + key + "\"");
        (allreduce ? profile.allreduce : profile.all2all)[*group].emplace_back(*megabytes, value.nonNegativeNumber());
    }
    if (profile.allreduce.empty() && profile.all2all.empty())
        throw InputError(
            profile.file, "/", "keys \"allreduce_size_{group}_{X}MB_time\" and \"all2all_size_...\" (ms)", "none");
    return profile;
}

SpTimeProfile SpTimeProfile::load(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    return fromJson(document.root());
}

} // namespace stratex::profile
