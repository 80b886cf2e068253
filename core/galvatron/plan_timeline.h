// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/galvatron/evaluate.h"
#include "core/sim/schedule_kind.h"
#include "core/sim/sim_spec.h"

namespace stratex::galvatron {

// A searched plan's training step as input for the pipeline simulator, so the timeline of a
// search result is drawn by the same simulator that draws the planner's timelines: one merged
// layer per pipeline stage and `chunks` identical micro-batches. A stage's per-micro-batch time C_i
// is split into a forward of C_i/3 and a backward of 2*C_i/3, the split Galvatron's pipeline
// formula uses. Memory: the stage's model states, embedding / LM head and
// global buffer are the model state; each micro-batch stores the stage's activations divided by
// the micro-batches in flight. Gradient synchronisation and ZeRO-3 gathers stay inside C_i (they
// are not simulated as separate transfers), so the simulated step is close to, not equal to, the
// plan's time_cost_s.
struct PlanTimelineInput {
    sim::SimulationInput input;
    sim::ScheduleKind schedule = sim::ScheduleKind::OneFOneB;
    double memory_limit_mb = 0; // the DP budget the search packed the stages into
};

PlanTimelineInput planTimelineInput(const Evaluation& evaluation);

} // namespace stratex::galvatron
