// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLineEdit>

namespace stratex::ui {

// A line edit for a file or folder path. While it does not have the focus, a path wider than the
// field is shown elided in the middle ("/home/…/llama2-13b-a100-40gb-2x8"), so both its root and
// the file or folder name stay visible at any window width; then the tooltip shows the whole path
// above the field's own tooltip. With the focus it is a plain line edit.
class PathLineEdit : public QLineEdit {
    Q_OBJECT
public:
    explicit PathLineEdit(QWidget* parent = nullptr);

    // What the field shows: the text, or the text elided to the field's width when unfocused.
    QString displayedText() const;

protected:
    bool event(QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    QRect textRect() const;
};

} // namespace stratex::ui
