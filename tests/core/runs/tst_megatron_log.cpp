// SPDX-License-Identifier: GPL-3.0-or-later
// Megatron-LM training logs (tests/data/measured/README.md: the formats of NVIDIA/Megatron-LM
// megatron/training/training.py training_log, arguments.py _print_args, utils report_memory and
// megatron/core/timers.py @ d98e8a64ddf3) read into a measured run: the model and strategy from
// the argument dump, the iteration time after warm-up, memory per rank, the timers; broken lines
// named by line number, a missing dump answered with the list of arguments to give.
#include <QtTest>

#include "core/common/error.h"
#include "core/runs/run_arguments.h"
#include "core/runs/megatron_log.h"
#include "core/runs/run_comparison.h"

#include "support/test_paths.h"

using namespace stratex;
using namespace stratex::megatron;
using namespace stratex::runs;
using namespace stratex::hardware;
using namespace stratex::runs;

namespace {

const QString kLog = QStringLiteral("measured/megatron-llama2-7b-tp2-pp2-dp4.log");

QStringList sampleLines()
{
    QFile file(test::fixture(kLog));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QString text = QString::fromUtf8(file.readAll());
    if (text.endsWith(QLatin1Char('\n')))
        text.chop(1);
    return text.split(QLatin1Char('\n'));
}

MeasuredRun parseLines(const QStringList& lines, int warmup = 2)
{
    LogOptions options;
    options.warmup_iterations = warmup;
    return parseMegatronLog(lines.join(QLatin1Char('\n')).toStdString(), "train.log", options);
}

// The 1-based number of the first line containing `text`.
int lineOf(const QStringList& lines, const QString& text)
{
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].contains(text))
            return i + 1;
    }
    return -1;
}

// The sample log with arguments of its dump set, "name=value;..." (a line replaced, or added before
// the end of the dump).
QStringList withArguments(QStringList lines, const QString& items)
{
    for (const QString& item : items.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString name = item.section(QLatin1Char('='), 0, 0);
        const QString line = QStringLiteral("  ") + name + QLatin1Char(' ')
            + QString(std::max<qsizetype>(48 - name.size(), 0), QLatin1Char('.')) + QLatin1Char(' ')
            + item.section(QLatin1Char('='), 1);
        const int at = lineOf(lines, QStringLiteral("  ") + name + QStringLiteral(" .")) - 1;
        if (at >= 0)
            lines[at] = line;
        else
            lines.insert(lineOf(lines, QStringLiteral("end of arguments")) - 1, line);
    }
    return lines;
}

// The fields of a read run that a row names, as "key=value" items in the row's order.
QString fieldsOf(const MeasuredRun& run, const QString& keys)
{
    const ParallelStrategy& s = *run.strategy;
    QStringList out;
    for (const QString& item : keys.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString key = item.section(QLatin1Char('='), 0, 0);
        QString value;
        if (key == "tp")
            value = QString::number(s.tp);
        else if (key == "pp")
            value = QString::number(s.pp);
        else if (key == "dp")
            value = QString::number(s.dp);
        else if (key == "vpp")
            value = QString::number(s.vpp);
        else if (key == "first")
            value = QString::number(s.first_stage_layers);
        else if (key == "last")
            value = QString::number(s.last_stage_layers);
        else if (key == "schedule")
            value = QString::fromStdString(std::string(pipelineScheduleName(s.schedule)));
        else if (key == "zero")
            value = QString::number(s.zero);
        else if (key == "recompute")
            value = QString::fromStdString(std::string(recomputeName(s.recompute)));
        else if (key == "groups")
            value = QString::number(s.recompute_num_layers);
        else if (key == "precision")
            value = QString::fromStdString(std::string(precisionName(s.precision)));
        else if (key == "flash")
            value = QString::number(int(s.flash_attention));
        else if (key == "qkvbias")
            value = QString::number(int(run.model->qkv_bias));
        else if (key == "dropout") // model.hidden_dropout, -1 when not kept (the MLP's default)
            value = QString::number(run.model->hidden_dropout.value_or(-1));
        else if (key == "fusion")
            value = QString::number(int(s.gradient_accumulation_fusion));
        else
            qFatal("unknown key %s", qPrintable(key));
        out << key + QLatin1Char('=') + value;
    }
    return out.join(QLatin1Char(' '));
}

QString errorOf(const QStringList& lines)
{
    try {
        parseLines(lines);
    } catch (const InputError& error) {
        return QString::fromStdString(error.what());
    }
    return QString();
}

} // namespace

class TestMegatronLog : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsTheArgumentDump()
    {
        const MeasuredRun run = readMegatronLog(test::fixture(kLog).toStdString());
        QVERIFY(run.model && run.strategy);
        const model::ModelDescription& m = *run.model;
        QCOMPARE(m.num_layers, 32);
        QCOMPARE(m.hidden_size, 4096);
        QCOMPARE(m.ffn_hidden_size, 11008);
        QCOMPARE(m.num_heads, 32);
        QCOMPARE(m.num_kv_heads, 32); // group_query_attention False: num_query_groups is not used
        QCOMPARE(m.seq_length, 4096);
        QCOMPARE(m.vocab_size, 32000);
        QVERIFY(m.mlp == model::MlpKind::Gated);
        QVERIFY(m.norm == model::NormKind::RmsNorm);
        QVERIFY(m.position == model::PositionEmbedding::Rope);
        QVERIFY(!m.tied_embeddings);
        QVERIFY(!m.moe);
        const ParallelStrategy& s = *run.strategy;
        QCOMPARE(s.tp, 2);
        QCOMPARE(s.pp, 2);
        QCOMPARE(s.dp, 4);
        QCOMPARE(s.cp, 1);
        QCOMPARE(s.vpp, 1);
        QVERIFY(s.sequence_parallel);
        QCOMPARE(s.zero, 1);
        QVERIFY(s.recompute == Recompute::Selective);
        QCOMPARE(s.micro_batch_size, 1);
        QCOMPARE(s.global_batch_size, 64);
        QVERIFY(s.precision == Precision::Bf16);
        QVERIFY(s.overlap_grad_reduce);
        QCOMPARE(run.world_size.value_or(0), 16);
        QCOMPARE(run.rank_order, std::string("tp-cp-ep-dp-pp"));
        QVERIFY(run.missing.empty());
    }

    // Megatron prints --cp-comm-type as the list it parsed; each of the four types is costed as
    // such (docs/context-parallel.md), a per-layer mix as the ring with a note.
    void readsTheContextParallelExchange_data()
    {
        QTest::addColumn<QString>("dumped");
        QTest::addColumn<QString>("type"); // cpCommTypeName of what is costed
        QTest::addColumn<QString>("note"); // part of a note, or "" for none
        QTest::newRow("ring") << "['p2p']" << "p2p" << "";
        QTest::newRow("ulysses") << "['a2a']" << "a2a" << "";
        QTest::newRow("ulysses, one entry per layer") << "['a2a', 'a2a', 'a2a']" << "a2a" << "";
        QTest::newRow("all-gather") << "['all_gather']" << "all_gather" << "";
        QTest::newRow("all-gather, --help spelling") << "['allgather']" << "all_gather" << "";
        QTest::newRow("hierarchical") << "['a2a+p2p']" << "a2a+p2p" << "";
        QTest::newRow("mixed per layer") << "['a2a', 'p2p']" << "p2p" << "costed as ring attention";
    }
    void readsTheContextParallelExchange()
    {
        QFETCH(QString, dumped);
        QFETCH(QString, type);
        QFETCH(QString, note);
        QStringList lines = sampleLines();
        const int cp = lineOf(lines, QStringLiteral("  context_parallel_size ...")) - 1;
        const int dp = lineOf(lines, QStringLiteral("  data_parallel_size ...")) - 1;
        QVERIFY(cp >= 0 && dp == cp + 1);
        lines[cp].replace(QStringLiteral(" 1"), QStringLiteral(" 2"));
        lines[dp].replace(QStringLiteral(" 4"), QStringLiteral(" 2"));
        lines.insert(cp + 1, QStringLiteral("  cp_comm_type .................................... ") + dumped);
        const MeasuredRun run = parseLines(lines);
        QVERIFY(run.strategy);
        QCOMPARE(run.strategy->cp, 2);
        QCOMPARE(run.strategy->dp, 2);
        QCOMPARE(QString::fromStdString(std::string(cpCommTypeName(run.strategy->cp_comm_type))), type);
        QString notes;
        for (const std::string& text : run.notes)
            notes += QString::fromStdString(text) + QLatin1Char(';');
        QCOMPARE(notes.contains(QStringLiteral("cp_comm_type")), !note.isEmpty());
        if (!note.isEmpty())
            QVERIFY2(notes.contains(note), qPrintable(notes));
    }

    // Megatron-LM's meaning of the arguments (megatron/training/arguments.py, transformer_config.py)
    // as the product reads them; what a strategy cannot express is costed as the nearest one it
    // can, with a note naming the argument.
    void readsTheStrategyArguments_data()
    {
        QTest::addColumn<QString>("arguments"); // "name=value;..." set in the sample dump
        QTest::addColumn<QString>("expect"); // "key=value ..." fields of the run read
        QTest::addColumn<QString>("note"); // part of the one note expected, or "" for none
        QTest::newRow("the sample: bf16, selective, distributed optimizer")
            << ""
            << "tp=2 pp=2 dp=4 vpp=1 precision=bf16 recompute=selective zero=1 flash=1 qkvbias=0"
            << "";
        QTest::newRow("fp16") << "bf16=False;fp16=True"
                              << "precision=fp16"
                              << "";
        QTest::newRow("fp8 over bf16") << "fp8=hybrid"
                                       << "precision=fp8"
                                       << "";
        // arguments.py: params_dtype is torch.float unless --fp16 or --bf16.
        QTest::newRow("fp32: neither bf16 nor fp16") << "bf16=False;fp16=False"
                                                     << "precision=bf16"
                                                     << "(fp32 training): costed as bf16";
        QTest::newRow("full recompute, uniform")
            << "recompute_granularity=full;recompute_method=uniform;recompute_num_layers=2"
            << "recompute=full groups=2"
            << "";
        // transformer_block.py _checkpointed_forward: block recomputes the first n layers of each
        // stage, which no strategy holds.
        QTest::newRow("full recompute, block")
            << "recompute_granularity=full;recompute_method=block;recompute_num_layers=4"
            << "recompute=full groups=4"
            << "recompute_method block: costed as uniform";
        QTest::newRow("no recompute") << "recompute_granularity=None"
                                      << "recompute=none"
                                      << "";
        QTest::newRow("virtual stages") << "virtual_pipeline_model_parallel_size=4"
                                        << "vpp=4 schedule=interleaved first=0 last=0"
                                        << "";
        QTest::newRow("layers per virtual stage (a dump without the vpp size)")
            << "num_layers_per_virtual_pipeline_stage=8"
            << "vpp=2 schedule=interleaved"
            << "";
        QTest::newRow("uneven first stage") << "decoder_first_pipeline_num_layers=15"
                                            << "first=15 last=0"
                                            << "";
        // validate_args sets the vpp size from a layout; its __repr__ prints the string given.
        QTest::newRow("layout: uneven ends") << "pipeline_model_parallel_layout=Et*15|t*17L"
                                             << "vpp=1 first=15 last=0"
                                             << "";
        QTest::newRow("layout: virtual stages, a repeated group")
            << "virtual_pipeline_model_parallel_size=2;pipeline_model_parallel_layout=E(t*8|)*3t*8L"
            << "vpp=2 first=0 last=0 schedule=interleaved"
            << "";
        QTest::newRow("layout: uneven ends with virtual stages")
            << "virtual_pipeline_model_parallel_size=2;pipeline_model_parallel_layout=Et*7|t*9|t*7|t*9L"
            << "vpp=2 first=14 last=0"
            << "";
        QTest::newRow("layout: uneven chunks a strategy cannot hold")
            << "virtual_pipeline_model_parallel_size=2;pipeline_model_parallel_layout=Et*4|t*12|t*12|t*4L"
            << "vpp=2 first=0 last=0"
            << "costed as the even division";
        QTest::newRow("layout: not read") << "pipeline_model_parallel_layout=Ex*32L"
                                          << "vpp=1 first=0"
                                          << "pipeline_model_parallel_layout Ex*32L: not read";
        QTest::newRow("DDP") << "use_distributed_optimizer=False"
                             << "zero=0"
                             << "";
        QTest::newRow("Megatron-FSDP optim_grads")
            << "use_megatron_fsdp=True;data_parallel_sharding_strategy=optim_grads"
            << "zero=2"
            << "";
        QTest::newRow("Megatron-FSDP default sharding") << "use_megatron_fsdp=True"
                                                        << "zero=3"
                                                        << "";
        QTest::newRow("torch FSDP2") << "use_torch_fsdp2=True"
                                     << "zero=3"
                                     << "";
        QTest::newRow("unfused attention") << "attention_backend=AttnBackend.unfused"
                                           << "flash=0"
                                           << "";
        QTest::newRow("local transformer") << "transformer_impl=local"
                                           << "flash=0"
                                           << "";
        QTest::newRow("Qwen 2.5: QKV bias without linear biases") << "add_qkv_bias=True;add_bias_linear=False"
                                                                  << "qkvbias=1"
                                                                  << "";
        // --hidden-dropout, kept where it differs from the layer model's default for the MLP: a
        // gated model with Megatron's default 0.1 keeps its masks (layer_cost.cpp).
        QTest::newRow("gated with Megatron's default dropout") << "swiglu=True;hidden_dropout=0.1"
                                                               << "dropout=0.1"
                                                               << "";
        QTest::newRow("gated without dropout") << "swiglu=True;hidden_dropout=0.0"
                                               << "dropout=-1"
                                               << "";
        QTest::newRow("plain with dropout 0") << "swiglu=False;hidden_dropout=0.0"
                                              << "dropout=0"
                                              << "";
        QTest::newRow("no gradient-accumulation fusion") << "gradient_accumulation_fusion=False"
                                                         << "fusion=0"
                                                         << "";
        QTest::newRow("linear biases everywhere (add_qkv_bias follows)") << "add_qkv_bias=True;add_bias_linear=True"
                                                                         << "qkvbias=0"
                                                                         << "";
    }
    void readsTheStrategyArguments()
    {
        QFETCH(QString, arguments);
        QFETCH(QString, expect);
        QFETCH(QString, note);
        const MeasuredRun run = parseLines(withArguments(sampleLines(), arguments));
        QVERIFY(run.model && run.strategy);
        QVERIFY(run.missing.empty());
        QCOMPARE(fieldsOf(run, expect), expect);
        QStringList notes;
        for (const std::string& text : run.notes)
            notes << QString::fromStdString(text);
        if (note.isEmpty()) {
            QVERIFY2(notes.isEmpty(), qPrintable(notes.join(';')));
        } else {
            QCOMPARE(notes.size(), 1);
            QVERIFY2(notes.front().contains(note), qPrintable(notes.front()));
        }
    }

    void readsTheRecomputeModules()
    {
        QStringList lines = sampleLines();
        const int granularity = lineOf(lines, QStringLiteral("  recompute_granularity ...")) - 1;
        QVERIFY(granularity >= 0);
        lines.insert(granularity + 1,
            QStringLiteral("  recompute_modules ............................... ['layernorm', 'mlp', 'mhc']"));
        const MeasuredRun run = parseLines(lines);
        QVERIFY(run.strategy);
        QCOMPARE(run.strategy->recompute_modules,
            RecomputeModules::of({ RecomputeModule::Layernorm, RecomputeModule::Mlp }));
        bool noted = false;
        for (const std::string& note : run.notes)
            noted = noted || note.find("recompute module mhc") != std::string::npos;
        QVERIFY(noted);
    }

    void averagesIterationsAfterWarmup_data()
    {
        QTest::addColumn<int>("warmup");
        QTest::addColumn<int>("used");
        QTest::addColumn<double>("iterationMs");
        // The first logged line holds the start-up and is never averaged.
        QTest::newRow("default: 1 and 2 skipped") << 2 << 6 << 5469.083333333333;
        QTest::newRow("warmup 0: the first line only") << 0 << 7 << (6021.7 + 6 * 5469.083333333333) / 7;
        QTest::newRow("warmup 5") << 5 << 3 << 5470.7;
    }

    void averagesIterationsAfterWarmup()
    {
        QFETCH(int, warmup);
        QFETCH(int, used);
        QFETCH(double, iterationMs);
        const MeasuredRun run = parseLines(sampleLines(), warmup);
        QCOMPARE(int(run.iterations_used.size()), used);
        QCOMPARE(int(run.iterations_used.size() + run.iterations_skipped.size()), 8);
        QCOMPARE(run.iterations_skipped.front(), 1);
        QVERIFY(run.iteration_ms);
        QVERIFY(qAbs(*run.iteration_ms - iterationMs) < 1e-9);
    }

    void readsMemoryAndTimers()
    {
        const MeasuredRun run = parseLines(sampleLines());
        QCOMPARE(int(run.memory.size()), 4); // data-parallel rank 0 of each (tp, pp): ranks 0, 1, 8, 9
        QCOMPARE(run.memory[0].rank, 0);
        QCOMPARE(run.memory[2].rank, 8);
        QCOMPARE(run.memory[0].max_allocated_mib, 27902.64); // the larger of the two reports
        QCOMPARE(run.memory[2].max_reserved_mib, 26690.00);
        QCOMPARE(run.memory[2].after_iterations, 2);
        QVERIFY(run.logged_tflops_per_gpu && qAbs(*run.logged_tflops_per_gpu - 150.6) < 1e-9);
        // Timers of iterations 3 to 8 (the set-up timers before the first iteration are not kept).
        const auto forward = std::ranges::find(run.timers, std::string("forward-compute"), &TimerValue::name);
        QVERIFY(forward != run.timers.end());
        QVERIFY(qAbs(forward->min_ms - 1693.75) < 1e-9);
        QVERIFY(qAbs(forward->max_ms - 1935.16) < 1e-9);
        QVERIFY(std::ranges::find(run.timers, std::string("model-and-optimizer-setup"), &TimerValue::name)
            == run.timers.end());
        QCOMPARE(int(run.timers.size()), 18);
    }

    // srun --label and torchrun --tee put a prefix before every line.
    void launcherPrefixesAreSkipped()
    {
        QStringList lines = sampleLines();
        for (QString& line : lines)
            line.prepend(QStringLiteral("15: "));
        const MeasuredRun run = parseLines(lines);
        QVERIFY(run.model && run.strategy);
        QCOMPARE(run.strategy->tp, 2);
        QCOMPARE(int(run.iterations_used.size()), 6);
        QCOMPARE(int(run.memory.size()), 4);
        QCOMPARE(int(run.timers.size()), 18);
    }

    void perRankTimers()
    {
        QStringList lines = sampleLines();
        const int at = lineOf(lines, QStringLiteral("iteration        8/"));
        QVERIFY(at > 0);
        // --timing-log-option all (timers.py _get_all_ranks_time_string) after the last iteration.
        const QStringList all { QStringLiteral("times across ranks (ms):"), QStringLiteral("  forward-compute:"),
            QStringLiteral("     rank  0: 1700.50"), QStringLiteral("     rank  8: 1930.25"),
            QStringLiteral("  backward-compute:"), QStringLiteral("     rank  0: 3200.00"),
            QStringLiteral("     rank  8: 3560.00") };
        // Replace the minmax block after iteration 8 by the per-rank one.
        lines = lines.mid(0, at);
        lines << all << QStringLiteral("[after training is done] datetime: 2025-03-11 10:03:54 ");
        const MeasuredRun run = parseLines(lines, 7);
        const auto forward = std::ranges::find(run.timers, std::string("forward-compute"), &TimerValue::name);
        QVERIFY(forward != run.timers.end());
        QCOMPARE(int(forward->rank_ms.size()), 2);
        QCOMPARE(forward->rank_ms[1].first, 8);
        QCOMPARE(forward->rank_ms[1].second, 1930.25);
        QCOMPARE(forward->min_ms, 1700.50);
        QCOMPARE(forward->max_ms, 1930.25);
    }

    void brokenLinesAreNamed_data()
    {
        QTest::addColumn<QString>("find");
        QTest::addColumn<QString>("replace");
        QTest::addColumn<QString>("expected");
        QTest::newRow("iteration line cut off")
            << QStringLiteral("iteration        3/")
            << QStringLiteral(" [2025-03-11 10:03:26.613417] iteration        3/       8 | consumed samples:          "
                              "192 | elapsed time per iter")
            << QStringLiteral("elapsed time per iteration (ms): <number>");
        QTest::newRow("elapsed not a number") << QStringLiteral("iteration        4/")
                                              << QStringLiteral(" iteration        4/       8 | consumed samples:      "
                                                                "    256 | elapsed time per iteration (ms): nan |")
                                              << QStringLiteral("a positive number");
        QTest::newRow("memory line cut off")
            << QStringLiteral("[Rank 8] (after 1 iterations)")
            << QStringLiteral(
                   "[Rank 8] (after 1 iterations) memory (MB) | allocated: 16912.55 | max allocated: 24168.02")
            << QStringLiteral("\"reserved: <MB>\"");
        QTest::newRow("rank not a number")
            << QStringLiteral("[Rank 9] (after 2 iterations)")
            << QStringLiteral("[Rank nine] (after 2 iterations) memory (MB) | allocated: 1 | max allocated: 1 | "
                              "reserved: 1 | max reserved: 1")
            << QStringLiteral("a rank from 0");
        QTest::newRow("timer not a pair")
            << QStringLiteral("    forward-compute .......")
            << QStringLiteral("    forward-compute ................................: (1689.25, oops)")
            << QStringLiteral("\"(min, max)\" times");
        QTest::newRow("layers not a number")
            << QStringLiteral("  num_layers ....")
            << QStringLiteral("  num_layers ...................................... thirty-two")
            << QStringLiteral("a whole number from 1");
        QTest::newRow("world not the product of the degrees")
            << QStringLiteral("  world_size ....")
            << QStringLiteral("  world_size ...................................... 12")
            << QStringLiteral("data parallel size (16), found \"12\"");
        QTest::newRow("batch not divisible") << QStringLiteral("  global_batch_size ....")
                                             << QStringLiteral("  global_batch_size ............................... 66")
                                             << QStringLiteral("micro_batch_size x data-parallel size (4)");
        QTest::newRow("unknown recompute") << QStringLiteral("  recompute_granularity ....")
                                           << QStringLiteral("  recompute_granularity ........................... some")
                                           << QStringLiteral("full, selective or None");
    }

    void brokenLinesAreNamed()
    {
        QFETCH(QString, find);
        QFETCH(QString, replace);
        QFETCH(QString, expected);
        QStringList lines = sampleLines();
        const int line = lineOf(lines, find);
        QVERIFY(line > 0);
        lines[line - 1] = replace;
        const QString message = errorOf(lines);
        QVERIFY2(message.contains(QStringLiteral("train.log: line %1: expected").arg(line)), qPrintable(message));
        QVERIFY2(message.contains(expected), qPrintable(message));
    }

    void unterminatedDumpNamesItsStart()
    {
        QStringList lines = sampleLines();
        const int end = lineOf(lines, QStringLiteral("end of arguments"));
        lines = lines.mid(0, end - 1);
        const QString message = errorOf(lines);
        QVERIFY2(message.contains(QStringLiteral("train.log: line 5: expected the argument dump to end")),
            qPrintable(message));
    }

    // No dump: nothing is guessed; the run lists what to give.
    void missingDumpListsTheArguments()
    {
        QStringList lines = sampleLines();
        const int start = lineOf(lines, QStringLiteral("------------------------ arguments"));
        const int end = lineOf(lines, QStringLiteral("end of arguments"));
        lines = lines.mid(0, start - 1) + lines.mid(end);
        const MeasuredRun run = parseLines(lines);
        QVERIFY(!run.model && !run.strategy);
        QVERIFY(run.iteration_ms); // the measurements are still read
        QCOMPARE(int(run.memory.size()), 4);
        QCOMPARE(run.missing.size(), requiredArguments().size());
        try {
            requireCostable(run);
            QFAIL("a run without model and strategy was accepted");
        } catch (const Error& error) {
            const QString message = QString::fromStdString(error.what());
            for (const char* name : { "num_layers", "hidden_size", "seq_length", "tensor_model_parallel_size",
                     "global_batch_size", "world_size" })
                QVERIFY2(message.contains(QLatin1String(name)), qPrintable(message));
        }
    }

    void partialDumpListsOnlyWhatIsMissing()
    {
        QStringList lines = sampleLines();
        lines.removeAt(lineOf(lines, QStringLiteral("  hidden_size ....")) - 1);
        lines.removeAt(lineOf(lines, QStringLiteral("  world_size ....")) - 1);
        const MeasuredRun run = parseLines(lines);
        QVERIFY(!run.model);
        QCOMPARE(run.missing, (std::vector<std::string> { "hidden_size", "world_size" }));
    }

    void costsTheLoggedRun()
    {
        const MeasuredRun run = readMegatronLog(test::fixture(kLog).toStdString());
        // Logs do not name the GPU or the node size: refused without them, naming both.
        try {
            resolveCluster(run, {});
            QFAIL("a cluster was guessed");
        } catch (const Error& error) {
            const QString message = QString::fromStdString(error.what());
            QVERIFY2(message.contains(QStringLiteral("--gpu")) && message.contains(QStringLiteral("--gpus-per-node")),
                qPrintable(message));
        }
        const hardware::ClusterDescription cluster = resolveCluster(run, { std::string("a100-80gb"), 8 });
        QCOMPARE(cluster.num_nodes, 2);
        const RunComparison c = compareRun(run, cluster, efficiencyFor(cluster.gpu));
        QVERIFY(c.estimate.problems.empty());
        QCOMPARE(int(c.stages.size()), 2);
        QCOMPARE(c.stages[0].memory_ranks, (std::vector<int> { 0, 1 }));
        QCOMPARE(c.stages[1].memory_ranks, (std::vector<int> { 8, 9 }));
        QVERIFY(qAbs(*c.stages[0].memory_mb.measured - 30402.00 * 1.048576) < 1e-6);
        QVERIFY(c.iteration_ms.error());
        QVERIFY(qAbs(*c.tokens_per_s_per_gpu.measured - 64.0 * 4096 / (5469.083333333333e-3 * 16)) < 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestMegatronLog)
#include "tst_megatron_log.moc"
