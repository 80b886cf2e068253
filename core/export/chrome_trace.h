// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Chrome-trace / Perfetto JSON of simulated pipeline timelines, in the subset of the Chrome trace
// event format that Perfetto documents for JSON import
// (google/perfetto:docs/getting-started/other-formats.md): ts and dur in microseconds, one track per (pid, tid),
// slices on one track must nest, `M` metadata names and sorts processes and threads.
// - one process (pid) per device, named "<title> device 00" and sorted by device;
// - tid 0 = compute, tid 1 = sends (the comm executor), tid 2.. = receives (several tracks only
//   when receives overlap, since Perfetto needs the slices of one track to nest);
// - `ph:"X"` slices in microseconds with the op, micro-batch, stage and chunk in args;
// - flow arrows from each send to its receive (bind_id, flow_out / flow_in);
// - memory as a `C` counter per device ("memory", args {"MB": ...}).
// The bytes depend only on the timelines and the options (deterministic). Streamed: each event
// is formatted into a small buffer and handed on, never a JSON object per event.

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/atomic_file.h"
#include "core/sim/timeline.h"

namespace stratex::exporting {

struct ChromeTraceSection {
    std::string title; // e.g. "wait-free-cyclic" or "plan A"; prefixes the process names
    const sim::Timeline* timeline = nullptr;
};

struct ChromeTraceOptions {
    bool memory_counters = true;
    bool flows = true;
    bool zero_duration_transfers = true; // transfers of a free link (0 us) still show the dependency
};

// Several timelines (e.g. two plans on a shared time axis) become consecutive pid ranges.
std::string chromeTraceJson(const std::vector<ChromeTraceSection>& sections, const ChromeTraceOptions& options = {});
std::string chromeTraceJson(
    const sim::Timeline& timeline, const std::string& title, const ChromeTraceOptions& options = {});

// Streams the trace into `sink` event by event (a few hundred bytes at a time): the document is
// never built whole, so a million-op plan needs no more memory than its timeline.
void writeChromeTrace(const ContentSink& sink, const std::vector<ChromeTraceSection>& sections,
    const ChromeTraceOptions& options = {});

// Writes atomically, streamed to the file; throws stratex::Error naming the file on failure.
void writeChromeTrace(const std::filesystem::path& path, const std::vector<ChromeTraceSection>& sections,
    const ChromeTraceOptions& options = {});

} // namespace stratex::exporting
