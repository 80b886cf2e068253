// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QComboBox>

namespace stratex::ui {

// A combo box that can be narrower than its longest item: it draws its current text elided in
// the middle ("search plan: pp 2, …(estimate 7.761 s)") where it does not fit, and its tooltip
// always holds the whole text (QComboBox itself clips the text, without an ellipsis). Its width
// follows the layout, not the longest item.
class ElidingComboBox : public QComboBox {
    Q_OBJECT
public:
    explicit ElidingComboBox(QWidget* parent = nullptr);

    // The current text as drawn in the field's present width.
    QString shownText() const;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRect textRect() const;
};

} // namespace stratex::ui
