// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QChartView>

class QChart;
class QPalette;
class QValueAxis;

namespace stratex::ui {

class ChartLegend;

// The chart's chrome in the palette's colours: background (Base), title, legend and axis labels
// (Text), axis lines and grid (Text faded into Base). Series keep their own colours. The legend
// draws each point or line series' own marker — a dot for points, a line segment for lines — so a
// fit and the points it fits read apart; bars keep filled squares.
void applyPaletteToChart(QChart* chart, const QPalette& palette);

// An axis over whole numbers (batch sizes, sequence lengths, MB): ticks at multiples of a 1-2-5
// step of at least 1 covering [low, high], labelled without decimals ("2000", not "2000.0").
void setIntegerRange(QValueAxis* axis, double low, double high, int targetTicks = 6);
// printf format of the integer axes' labels (Qt Charts passes the value as a 64-bit integer).
inline constexpr const char* kIntegerLabelFormat = "%lld";
// An axis over real values: Qt's nice numbers over [low, high], labelled with as many decimals as
// the tick step needs ("500", "2.5"; not "500.0").
void setRealRange(QValueAxis* axis, double low, double high);

// A chart view that follows the palette (View > Theme): its chart is restyled by
// applyPaletteToChart() on every palette change.
class PaletteChartView : public QChartView {
    Q_OBJECT
public:
    explicit PaletteChartView(QWidget* parent = nullptr);

    // Restyles the chart; call after a rebuild (new axes start in Qt Charts' light colours). Refreshes
    // the wrapping legend, if any.
    void followPalette();
    // This view over a ChartLegend (its legend in wrapping rows, in place of Qt Charts' one row of
    // truncated labels), in a new widget for the caller's layout.
    QWidget* withWrappingLegend();
    ChartLegend* wrappingLegend() const { return m_legend; }

protected:
    void changeEvent(QEvent* event) override;

private:
    ChartLegend* m_legend = nullptr;
};

} // namespace stratex::ui
