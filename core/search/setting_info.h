// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>
#include <vector>

namespace stratex::search {

// What each search setting means, for the CLI's --help and the GUI's tooltips (one text, two
// front ends). `flag` is the command-line option without "--"; `galvatron` the search_dist.yaml key;
// `value` the value placeholder ("" for on/off flags).
struct SettingInfo {
    std::string_view flag;
    std::string_view galvatron;
    std::string_view value;
    std::string_view help;
};

const std::vector<SettingInfo>& searchSettingInfo();
const SettingInfo* findSettingInfo(std::string_view flag);

// What Galvatron main does with a batch that does not divide evenly, and what Stratex does.
std::string_view unevenBatchExplanation();

} // namespace stratex::search
