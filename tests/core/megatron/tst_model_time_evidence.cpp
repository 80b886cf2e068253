// SPDX-License-Identifier: GPL-3.0-or-later
// The time evidence of a plan's model (core/megatron/model_time_evidence.h, docs/evidence.md
// "Measured runs of the model"): the bundled table is what the records give today with the
// bundled presets, one architecture has one key whatever its name and sequence length, and a
// model whose measured runs were predicted more than 15 % off says so.
#include <algorithm>
#include <cstdio>
#include <map>

#include <QtTest>

#include "core/hardware/hardware_model.h"
#include "core/megatron/model_time_evidence.h"
#include "core/model/model_presets.h"
#include "core/runs/reference_run.h"

using namespace stratex;
using namespace stratex::megatron;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(STRATEX_RESOURCES_DIR) / "reference-runs";

model::ModelDescription recordModel(const std::string& id)
{
    return runs::readReferenceRun(kRuns / (id + ".json")).model;
}

} // namespace

class TestModelTimeEvidence : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // The table against `reference`'s throughput errors over the bundled records; on a difference
    // the message is the table to paste into model_time_evidence_bundled.cpp.
    void bundledTableIsTheRecords()
    {
        const std::vector<runs::ReferenceRun> records = runs::readReferenceRuns(kRuns);
        std::map<std::string, ModelTimeError> found;
        std::map<std::string, std::vector<std::string>> names; // per key, first seen first
        for (const runs::ReferenceRun& run : records) {
            if (!run.measured_time)
                continue;
            const runs::ReferenceComparison c = runs::compareWithRun(run, hardware::efficiencyFor(run.cluster));
            const std::string key = architectureKey(run.model);
            ModelTimeError& row = found[key];
            if (row.runs == 0) {
                row.architecture = key;
                row.lowest = row.highest = c.throughput_error;
            }
            ++row.runs;
            row.lowest = std::min(row.lowest, c.throughput_error);
            row.highest = std::max(row.highest, c.throughput_error);
            row.mean += c.throughput_error;
            std::vector<std::string>& seen = names[key];
            if (std::find(seen.begin(), seen.end(), run.model.name) == seen.end())
                seen.push_back(run.model.name);
        }
        for (auto& [key, row] : found) {
            for (const std::string& name : names[key])
                row.model_names += (row.model_names.empty() ? "" : ", ") + name;
        }
        QString paste;
        bool same = found.size() == bundledModelTimeErrors().size();
        std::size_t i = 0;
        for (auto& [key, row] : found) {
            row.mean /= row.runs;
            paste += QString("        { \"%1\", \"%2\", %3, %4, %5, %6 },\n")
                         .arg(QString::fromStdString(key), QString::fromStdString(row.model_names))
                         .arg(row.runs)
                         .arg(row.lowest, 0, 'f', 5)
                         .arg(row.highest, 0, 'f', 5)
                         .arg(row.mean, 0, 'f', 5);
            if (i < bundledModelTimeErrors().size()) {
                const ModelTimeError& b = bundledModelTimeErrors()[i];
                same = same && b.architecture == key && b.model_names == row.model_names && b.runs == row.runs
                    && std::abs(b.lowest - row.lowest) < 5e-5 && std::abs(b.highest - row.highest) < 5e-5
                    && std::abs(b.mean - row.mean) < 5e-5;
            }
            ++i;
        }
        if (!same) // QtTest cuts long messages: the whole table on stderr
            std::fprintf(
                stderr, "the records give, for model_time_evidence_bundled.cpp's table:\n%s", qPrintable(paste));
        QVERIFY2(same, "model_time_evidence_bundled.cpp is out of date: the rows to paste are printed above");
    }

    // One architecture, one key: a preset and a record of the same model agree whatever their names
    // and sequence lengths; a different shape differs.
    void architectureKeyIgnoresNameAndSequence()
    {
        model::ModelDescription preset = model::modelPreset("llama3-70b");
        model::ModelDescription record = recordModel("mbridge260401-llama3-70b-64");
        record.name = "my-llama";
        record.seq_length = 4096;
        QCOMPARE(architectureKey(preset), architectureKey(record));
        model::ModelDescription deeper = preset;
        deeper.num_layers = 81;
        QVERIFY(architectureKey(deeper) != architectureKey(preset));
        model::ModelDescription moe = recordModel("mbridge260401-qwen3-30b-a3b-16");
        model::ModelDescription moreExperts = moe;
        moreExperts.moe->top_k = 4;
        QVERIFY(architectureKey(moreExperts) != architectureKey(moe));
    }

    void evidenceOfTheModel_data()
    {
        QTest::addColumn<QString>("record"); // a record whose model is looked up ("" : an unmeasured shape)
        QTest::addColumn<bool>("measured");
        QTest::addColumn<bool>("off");
        QTest::addColumn<QString>("noteHas");
        // gpt-oss-120b: H100 +17.6 %, B200 +37.5 %, GB200 +48.9 % (docs/moe.md, "gpt-oss on Blackwell").
        QTest::newRow("gpt-oss-120b: optimistic")
            << "mbridge260401-gpt-oss-120b-64" << true << true << "this plan's time is likely optimistic too";
        QTest::newRow("qwen3-30b-a3b: within the bar") << "mbridge260401-qwen3-30b-a3b-16" << true << false
                                                       << "measured runs of this model (qwen3-30b-a3b) were predicted";
        QTest::newRow("an unmeasured shape") << "" << false << false << "no reference run measured this model";
    }

    void evidenceOfTheModel()
    {
        QFETCH(QString, record);
        QFETCH(bool, measured);
        QFETCH(bool, off);
        QFETCH(QString, noteHas);
        model::ModelDescription m
            = record.isEmpty() ? model::modelPreset("llama3-8b") : recordModel(record.toStdString());
        if (record.isEmpty())
            m.num_layers = 33; // no record has this shape
        const ModelTimeEvidence e = modelTimeEvidence(m);
        QCOMPARE(e.runs > 0, measured);
        QCOMPARE(e.off, off);
        QVERIFY2(QString::fromStdString(e.note).contains(noteHas), e.note.c_str());
        if (measured)
            QVERIFY(e.lowest <= e.mean && e.mean <= e.highest);
    }
};

QTEST_GUILESS_MAIN(TestModelTimeEvidence)
#include "tst_model_time_evidence.moc"
