// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <vector>

#include <QWidget>

#include "core/megatron/estimate.h"

namespace stratex::ui {

// A stratex plan's layers at a glance, in two rows. "Model order": the transformer layers from
// first to last, each run of layers coloured by the pipeline stage that holds it, so interleaving
// (VPP) shows as the stage colours repeating once per model chunk. "Stages": one block per stage,
// as wide as its layers (uneven first/last stages stand out), split into its model chunks. The
// tooltips give a chunk's layer range and a stage's times and memory.
class StratexLayerStrip : public QWidget {
    Q_OBJECT
public:
    // One run of consecutive layers on one model chunk.
    struct Chunk {
        int stage = 0;
        int chunk = 0; // model chunk (virtual stage) of `stage`
        int first_layer = 0;
        int layers = 0;
    };

    explicit StratexLayerStrip(QWidget* parent = nullptr);

    void setPlan(std::optional<megatron::Estimate> plan);
    const std::optional<megatron::Estimate>& plan() const { return m_plan; }
    // The chunks in model order (Megatron's: chunk j of every stage, then chunk j + 1).
    const std::vector<Chunk>& chunks() const { return m_chunks; }
    // Where the model-order row draws chunk `index`, and the stage row stage `stage`.
    QRect chunkRect(int index) const;
    QRect stageRect(int stage) const;
    int chunkAt(QPoint point) const; // -1 outside
    int stageAt(QPoint point) const; // -1 outside
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    int totalLayers() const;
    double layerWidth() const;

    std::optional<megatron::Estimate> m_plan;
    std::vector<Chunk> m_chunks;
};

// Megatron's assignment of layers to model chunks: stage i's layers split over vpp chunks (the
// first ones one layer more when they do not divide), chunks in order j·pp + i.
std::vector<StratexLayerStrip::Chunk> modelChunks(const std::vector<int>& stageLayers, int vpp);

} // namespace stratex::ui
