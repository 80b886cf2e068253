// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the export suites share: the fixture model, the plan Stratex searches on it, model shapes
// resized for hand-made plans.
#include <algorithm>
#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/export/export_note.h"
#include "core/model/model_presets.h"
#include "core/galvatron/search_engine.h"

#include "../galvatron/search_test_util.h"

namespace stratex::test {

// llama2-7b at the fixtures' sequence length (2048).
inline model::ModelDescription llama7b()
{
    model::ModelDescription m = model::modelPreset("llama2-7b");
    m.seq_length = 2048;
    return m;
}

// The best plan of a search on the llama2-7b fixtures.
inline galvatron::Plan searched(int memoryGb, int bsz)
{
    NullProgress progress;
    return *galvatron::search(llamaInputs(), llamaSettings(memoryGb, bsz), progress, 2).best;
}

// A preset with another layer count and sequence length (a MoE keeps at least one MoE layer).
inline model::ModelDescription resizedModel(const char* preset, int layers, int seq)
{
    model::ModelDescription m = model::modelPreset(preset);
    m.num_layers = layers;
    m.seq_length = seq;
    if (m.moe)
        m.moe->first_dense_layers = std::min(m.moe->first_dense_layers, layers - 1);
    return m;
}

inline std::string joined(const std::vector<std::string>& lines)
{
    std::string text;
    for (const std::string& line : lines)
        text += line + "\n";
    return text;
}

// Every note's line, one a line.
inline std::string joined(const std::vector<exporting::ExportNote>& notes)
{
    return joined(exporting::exportNoteLines(notes));
}

// The notes that say the target will refuse the file (or a value in it).
inline std::vector<exporting::ExportNote> refusals(const std::vector<exporting::ExportNote>& notes)
{
    std::vector<exporting::ExportNote> out;
    for (const exporting::ExportNote& note : notes) {
        if (note.kind == exporting::ExportNoteKind::Refusal)
            out.push_back(note);
    }
    return out;
}

} // namespace stratex::test
