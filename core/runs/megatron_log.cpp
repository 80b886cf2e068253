// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/megatron_log.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/common/bounded_read.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"
#include "core/runs/log_text.h"
#include "core/runs/run_arguments.h"

namespace stratex::runs {

namespace {

constexpr std::string_view kArgsHeader = "------------------------ arguments ------------------------";
constexpr std::string_view kArgsEnd = "-------------------- end of arguments ---------------------";
constexpr std::string_view kIterationMarker = "| consumed samples:";
constexpr std::string_view kMemoryMarker = "memory (MB) | allocated:";
constexpr std::string_view kMinMaxHeader = "(min, max) time across ranks (ms):";
constexpr std::string_view kMaxHeader = "max time across ranks (ms):";
constexpr std::string_view kAllHeader = "times across ranks (ms):";

struct IterationLine {
    int iteration = 0;
    int line = 0;
    double elapsed_ms = 0;
    std::optional<double> tflops;
};

struct TimerSample {
    double min_ms = 0;
    double max_ms = 0;
    std::map<int, double> rank_ms;
};

// Timers of one logged iteration, by name in the order they appeared.
struct TimerBlock {
    int iteration = 0;
    std::vector<std::pair<std::string, TimerSample>> timers;
    std::map<std::string, std::size_t, std::less<>> index;

    TimerSample& get(const std::string& name)
    {
        const auto [it, inserted] = index.try_emplace(name, timers.size());
        if (inserted)
            timers.emplace_back(name, TimerSample {});
        return timers[it->second].second;
    }
};

class LogParser {
public:
    LogParser(std::string_view text, std::string name, const LogOptions& options)
        : m_lines(splitLines(text))
        , m_cutOff(!text.empty() && text.back() != '\n')
        , m_file(std::move(name))
        , m_options(options)
    {
        m_dump.file = m_file;
    }

    MeasuredRun run()
    {
        for (m_index = 0; m_index < m_lines.size(); ++m_index) {
            const std::string_view line = m_lines[m_index];
            if (const std::size_t at = line.find(kArgsHeader); at != std::string_view::npos)
                readArguments(line.substr(0, at));
            else if (line.find(kIterationMarker) != std::string_view::npos)
                readIteration(line);
            else if (line.find(kMemoryMarker) != std::string_view::npos)
                readMemory(requireWhole(line));
            else if (const std::size_t minmax = line.find(kMinMaxHeader); minmax != std::string_view::npos)
                readTimers(line.substr(0, minmax), TimerFormat::MinMax);
            else if (const std::size_t max = line.find(kMaxHeader); max != std::string_view::npos)
                readTimers(line.substr(0, max), TimerFormat::Max);
            else if (const std::size_t all = line.find(kAllHeader); all != std::string_view::npos)
                readTimers(line.substr(0, all), TimerFormat::All);
        }
        return finish();
    }

private:
    enum class TimerFormat { MinMax, Max, All };

    int lineNumber() const { return int(m_index) + 1; }

    // Megatron ends every line it prints with a newline: a last line without one is where a killed
    // job's log was cut, and its numbers may be cut too ("max reserved: 12" of 12345). A memory or
    // timer line read as complete was issue 26; the README says a cut line is an error.
    std::string_view requireWhole(std::string_view line) const
    {
        if (m_cutOff && m_index + 1 == m_lines.size())
            fail("a whole line; the log ends inside this one (cut off?)", line);
        return line;
    }

    [[noreturn]] void fail(const std::string& expected, std::string_view found) const
    {
        throw InputError(m_file, "line " + std::to_string(lineNumber()), expected, excerpt(found));
    }

    // The line without the prefix its block's header had, when it has it.
    static std::string_view unprefixed(std::string_view line, std::string_view prefix)
    {
        if (!prefix.empty() && line.starts_with(prefix))
            line.remove_prefix(prefix.size());
        return line;
    }

    void readArguments(std::string_view prefix)
    {
        if (m_dump.present())
            fail("one argument dump per log (the first is at line " + std::to_string(m_dump.first_line) + ")",
                m_lines[m_index]);
        m_dump.first_line = lineNumber();
        for (++m_index; m_index < m_lines.size(); ++m_index) {
            const std::string_view line = unprefixed(m_lines[m_index], prefix);
            if (line.find(kArgsEnd) != std::string_view::npos)
                return;
            // "  name ........ value": other processes' output interleaved in the dump is skipped.
            if (!line.starts_with("  ") || line.size() < 3 || line[2] == ' ')
                continue;
            const std::string_view rest = line.substr(2);
            const std::size_t nameEnd = rest.find(' ');
            if (nameEnd == std::string_view::npos)
                continue;
            const std::string_view name = rest.substr(0, nameEnd);
            if (!std::ranges::all_of(name, [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
                continue;
            std::string_view value = rest.substr(nameEnd + 1);
            while (!value.empty() && value.front() == '.')
                value.remove_prefix(1);
            if (!value.starts_with(' ') && !value.empty())
                continue;
            m_dump.values.insert_or_assign(std::string(name), ArgumentValue { std::string(trimmed(value)), lineNumber() });
        }
        m_index = std::size_t(m_dump.first_line - 1);
        fail("the argument dump to end with \"" + std::string(kArgsEnd) + "\"",
            "the end of the file after " + std::to_string(m_dump.values.size()) + " arguments");
    }

    // "key: value" fields of a "|"-separated line, trimmed.
    static std::vector<std::pair<std::string_view, std::string_view>> fields(std::string_view line)
    {
        std::vector<std::pair<std::string_view, std::string_view>> out;
        std::size_t start = 0;
        while (start <= line.size()) {
            std::size_t end = line.find('|', start);
            if (end == std::string_view::npos)
                end = line.size();
            const std::string_view field = line.substr(start, end - start);
            if (const std::size_t colon = field.rfind(':'); colon != std::string_view::npos)
                out.emplace_back(trimmed(field.substr(0, colon)), trimmed(field.substr(colon + 1)));
            start = end + 1;
        }
        return out;
    }

    void readIteration(std::string_view line)
    {
        const std::string_view head = line.substr(0, line.find(kIterationMarker));
        const std::size_t at = head.rfind("iteration ");
        const std::size_t slash = head.find('/', at == std::string_view::npos ? 0 : at);
        if (at == std::string_view::npos || slash == std::string_view::npos)
            fail("\"iteration N/ M | consumed samples: ...\" (Megatron's training_log line)", line);
        const std::optional<long long> iteration = parseWholeNumber(head.substr(at + 10, slash - at - 10));
        if (!iteration || *iteration < 0 || *iteration > (1LL << 40))
            fail("an iteration number before \"/\"", head.substr(at));
        IterationLine record;
        record.iteration = int(std::min<long long>(*iteration, 1LL << 30));
        record.line = lineNumber();
        bool haveElapsed = false;
        for (const auto& [key, value] : fields(line.substr(head.size()))) {
            if (key == "elapsed time per iteration (ms)") {
                const std::optional<double> ms = parseNumber(value);
                // Within a physical range (reader_limits.h): 1e308 ms was read and calibrated (issue 26).
                if (!ms || !(*ms > 0 && *ms <= limits::kMaxMeasuredIterationS * 1000))
                    fail("a positive number of at most " + std::to_string(long(limits::kMaxMeasuredIterationS * 1000))
                            + " after \"elapsed time per iteration (ms):\"",
                        value);
                record.elapsed_ms = *ms;
                haveElapsed = true;
            } else if (key == "throughput per GPU (TFLOP/s/GPU)") {
                const std::optional<double> tflops = parseNumber(value);
                if (!tflops || !(*tflops >= 0 && *tflops <= limits::kMaxGpuTflops))
                    fail("a number from 0 to " + std::to_string(long(limits::kMaxGpuTflops))
                            + " after \"throughput per GPU (TFLOP/s/GPU):\"",
                        value);
                record.tflops = *tflops;
            }
        }
        if (!haveElapsed)
            fail("\"elapsed time per iteration (ms): <number>\" in the iteration line (is it cut off?)", line);
        if (!m_iterations.empty() && record.iteration <= m_iterations.back().iteration)
            m_notes.push_back("line " + std::to_string(record.line) + ": iteration " + std::to_string(record.iteration)
                + " follows iteration " + std::to_string(m_iterations.back().iteration) + " (a restart)");
        m_iterations.push_back(record);
        m_currentBlock.reset();
    }

    void readMemory(std::string_view line)
    {
        const std::size_t rankAt = line.find("[Rank ");
        const std::size_t close = rankAt == std::string_view::npos ? rankAt : line.find(']', rankAt);
        if (close == std::string_view::npos)
            fail("\"[Rank r] (after N iterations) memory (MB) | allocated: ...\" (Megatron's report_memory)", line);
        const std::optional<long long> rank = parseWholeNumber(line.substr(rankAt + 6, close - rankAt - 6));
        if (!rank || *rank < 0 || *rank >= limits::kMaxWorld)
            fail("a rank from 0 to " + std::to_string(limits::kMaxWorld - 1) + " after \"[Rank \"", line.substr(rankAt));
        int after = 0;
        if (const std::size_t a = line.find("(after ", close); a != std::string_view::npos) {
            const std::size_t space = line.find(' ', a + 7);
            if (space != std::string_view::npos)
                after = int(std::clamp<long long>(parseWholeNumber(line.substr(a + 7, space - a - 7)).value_or(0), 0, 1 << 30));
        }
        std::optional<double> values[4];
        constexpr std::string_view keys[4] = { "allocated", "max allocated", "reserved", "max reserved" };
        for (const auto& [key, value] : fields(line.substr(line.find(kMemoryMarker) + 11))) {
            for (int k = 0; k < 4; ++k) {
                if (key == keys[k]) {
                    values[k] = parseNumber(value);
                    if (!values[k] || *values[k] < 0)
                        fail("a memory size in MB after \"" + std::string(keys[k]) + ":\"", value);
                }
            }
        }
        for (int k = 0; k < 4; ++k) {
            if (!values[k])
                fail("\"" + std::string(keys[k]) + ": <MB>\" in the memory line (is it cut off?)", line);
        }
        RankMemory& memory = m_memory[int(*rank)];
        memory.rank = int(*rank);
        memory.after_iterations = after;
        memory.allocated_mib = *values[0];
        memory.max_allocated_mib = std::max(memory.max_allocated_mib, *values[1]);
        memory.reserved_mib = *values[2];
        memory.max_reserved_mib = std::max(memory.max_reserved_mib, *values[3]);
    }

    // "    name ......: (a, b)" (minmax), "    name ......: a" (max); returns false at a line
    // that is not a timer line (the block ended).
    bool readTimerLine(std::string_view line, TimerFormat format, TimerBlock* block)
    {
        if (!line.starts_with("    ") || line.size() < 5 || line[4] == ' ')
            return false;
        const std::size_t nameEnd = line.find(' ', 4);
        const std::size_t colon = line.find(':', 4);
        if (nameEnd == std::string_view::npos || colon == std::string_view::npos || colon < nameEnd)
            return false;
        const std::string name(line.substr(4, nameEnd - 4));
        const std::string_view value = trimmed(line.substr(colon + 1));
        double minMs = 0;
        double maxMs = 0;
        if (format == TimerFormat::MinMax) {
            const std::size_t comma = value.find(',');
            if (!value.starts_with('(') || !value.ends_with(')') || comma == std::string_view::npos)
                fail("\"(min, max)\" after the timer name", value);
            const std::optional<double> a = parseNumber(value.substr(1, comma - 1));
            const std::optional<double> b = parseNumber(value.substr(comma + 1, value.size() - comma - 2));
            if (!a || !b || *a < 0 || *b < *a)
                fail("\"(min, max)\" times in ms, min <= max", value);
            minMs = *a;
            maxMs = *b;
        } else {
            const std::optional<double> a = parseNumber(value);
            if (!a || *a < 0)
                fail("a time in ms after the timer name", value);
            minMs = maxMs = *a;
        }
        if (block) {
            TimerSample& sample = block->get(name);
            sample.min_ms = minMs;
            sample.max_ms = maxMs;
        }
        return true;
    }

    void readTimers(std::string_view prefix, TimerFormat format)
    {
        // Timers logged before the first iteration are set-up times, not per iteration.
        TimerBlock* block = nullptr;
        if (!m_iterations.empty()) {
            if (!m_currentBlock) {
                m_blocks.push_back(TimerBlock { m_iterations.back().iteration, {}, {} });
                m_currentBlock = m_blocks.size() - 1;
            }
            block = &m_blocks[*m_currentBlock];
        }
        std::string current; // --timing-log-option all: the timer whose rank lines follow
        while (m_index + 1 < m_lines.size()) {
            const std::string_view line = unprefixed(m_lines[m_index + 1], prefix);
            if (format != TimerFormat::All) {
                ++m_index; // errors name the line being read
                if (!readTimerLine(line, format, block)) {
                    --m_index;
                    return;
                }
                requireWhole(line);
                continue;
            } else if (line.starts_with("     rank ") && !current.empty()) {
                const std::size_t colon = line.find(':');
                // -1 for a missing or unreadable field (not a std::optional built from a ?: with
                // nullopt, which GCC 12 reports as -Wmaybe-uninitialized, a false positive).
                long long rankValue = -1;
                double msValue = -1.0;
                if (colon != std::string_view::npos) {
                    rankValue = parseWholeNumber(line.substr(10, colon - 10)).value_or(-1);
                    msValue = parseNumber(line.substr(colon + 1)).value_or(-1.0);
                }
                ++m_index;
                requireWhole(line);
                if (rankValue < 0 || rankValue >= limits::kMaxWorld || msValue < 0)
                    fail("\"rank r: <ms>\" (a timer's time on one rank)", line);
                if (block) {
                    TimerSample& sample = block->get(current);
                    sample.rank_ms[int(rankValue)] = msValue;
                    sample.min_ms = sample.rank_ms.size() == 1 ? msValue : std::min(sample.min_ms, msValue);
                    sample.max_ms = std::max(sample.max_ms, msValue);
                }
                continue;
            } else if (line.starts_with("  ") && line.size() > 3 && line[2] != ' ' && line.ends_with(':')) {
                current = std::string(trimmed(line.substr(0, line.size() - 1)));
            } else {
                return;
            }
            ++m_index;
        }
    }

    MeasuredRun finish()
    {
        MeasuredRun run;
        run.sources.push_back({ SourceKind::MegatronLog, m_file });
        RunArguments args = runArguments(m_dump);
        if (!m_dump.present())
            run.notes.push_back("no argument dump (\"" + std::string(kArgsHeader)
                + "\"): the model and strategy must come from elsewhere");
        run.model = args.model;
        run.strategy = args.strategy;
        run.world_size = args.world_size;
        run.rank_order = args.rank_order;
        run.missing = args.missing;
        for (std::string& note : args.notes)
            run.notes.push_back(std::move(note));

        double weightedMs = 0;
        double weightedTflops = 0;
        double weights = 0;
        double tflopsWeights = 0;
        std::vector<int> kept;
        int previous = -1;
        for (std::size_t i = 0; i < m_iterations.size(); ++i) {
            const IterationLine& line = m_iterations[i];
            // A line reports the mean over the iterations since the previous line.
            const int interval = previous >= 0 && line.iteration > previous ? line.iteration - previous : 1;
            previous = line.iteration;
            if (i == 0 || line.iteration <= m_options.warmup_iterations) {
                run.iterations_skipped.push_back(line.iteration);
                continue;
            }
            kept.push_back(line.iteration);
            weightedMs += line.elapsed_ms * interval;
            weights += interval;
            if (line.tflops) {
                weightedTflops += *line.tflops * interval;
                tflopsWeights += interval;
            }
        }
        run.iterations_used = kept;
        if (!kept.empty()) {
            run.iteration_ms = weightedMs / weights;
            run.iteration_from = "megatron-log: mean of " + std::to_string(kept.size()) + " iteration lines ("
                + std::to_string(kept.front()) + " to " + std::to_string(kept.back()) + "), "
                + std::to_string(run.iterations_skipped.size()) + " skipped as warm-up";
            if (tflopsWeights > 0)
                run.logged_tflops_per_gpu = weightedTflops / tflopsWeights;
        } else if (!m_iterations.empty()) {
            run.notes.push_back("all " + std::to_string(m_iterations.size())
                + " iteration lines are warm-up (the first line, iterations <= "
                + std::to_string(m_options.warmup_iterations) + "); --warmup 0 keeps them");
        }
        for (const auto& [rank, memory] : m_memory)
            run.memory.push_back(memory);
        averageTimers(run, kept);
        for (std::string& note : m_notes)
            run.notes.push_back(std::move(note));
        return run;
    }

    void averageTimers(MeasuredRun& run, const std::vector<int>& kept) const
    {
        struct Sum {
            double min_ms = 0;
            double max_ms = 0;
            int blocks = 0;
            std::map<int, std::pair<double, int>> ranks; // rank -> (sum, count)
        };
        std::vector<std::string> order;
        std::map<std::string, Sum> sums;
        const std::set<int> keptSet(kept.begin(), kept.end());
        for (const TimerBlock& block : m_blocks) {
            if (!keptSet.contains(block.iteration))
                continue;
            for (const auto& [name, sample] : block.timers) {
                auto [it, inserted] = sums.try_emplace(name);
                if (inserted)
                    order.push_back(name);
                Sum& sum = it->second;
                sum.min_ms += sample.min_ms;
                sum.max_ms += sample.max_ms;
                ++sum.blocks;
                for (const auto& [rank, ms] : sample.rank_ms) {
                    sum.ranks[rank].first += ms;
                    ++sum.ranks[rank].second;
                }
            }
        }
        for (const std::string& name : order) {
            const Sum& sum = sums.at(name);
            TimerValue timer { name, sum.min_ms / sum.blocks, sum.max_ms / sum.blocks, {} };
            for (const auto& [rank, total] : sum.ranks)
                timer.rank_ms.emplace_back(rank, total.first / total.second);
            run.timers.push_back(std::move(timer));
        }
    }

    std::vector<std::string_view> m_lines;
    bool m_cutOff = false; // the text does not end with a newline
    std::string m_file;
    LogOptions m_options;
    std::size_t m_index = 0;
    ArgumentDump m_dump;
    std::vector<IterationLine> m_iterations;
    std::map<int, RankMemory> m_memory;
    std::vector<TimerBlock> m_blocks;
    std::optional<std::size_t> m_currentBlock;
    std::vector<std::string> m_notes;
};

} // namespace

MeasuredRun parseMegatronLog(std::string_view text, const std::string& name, const LogOptions& options)
{
    return LogParser(text, name, options).run();
}

MeasuredRun readMegatronLog(const std::filesystem::path& file, const LogOptions& options)
{
    const std::string text = readTextFile(file);
    return parseMegatronLog(text, file.string(), options);
}

bool looksLikeMegatronLog(std::string_view text)
{
    return text.find(kArgsHeader) != std::string_view::npos || text.find(kIterationMarker) != std::string_view::npos
        || text.find(kMemoryMarker) != std::string_view::npos;
}

} // namespace stratex::runs
