package io.cronoq.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The figures of one bench run, each next to its ratio to the Kafka Streams baseline of the same run,
 * and the throughput and latency targets with whether they were met (reported, never asserted). Printed as text
 * or as one JSON line.
 *
 * @param settings        what was run
 * @param where           which process the memory figures describe
 * @param recordSize      bytes of a task submission's value, and so of each baseline record
 * @param loadBefore      the machine's load averages (1, 5, 15 min) at the start
 * @param loadAfter       and at the end
 * @param drain           the drain phase, or null
 * @param baselineDrain   the baseline's drain, or null
 * @param rate            the rate phase (empty scheduler), or null
 * @param baselineRate    the baseline at the same rate, or null
 * @param backlogRate     the rate phase again with the backlog waiting, or null
 * @param memoryEmpty     memory after the rate phase (or the drain when there is none)
 * @param memoryBacklog   memory with the backlog waiting, or null
 * @param threadMetrics   per phase, the scheduler's stream-thread metrics at its end (in-JVM scheduler only)
 * @param logEntries      per drain, log entries written per task (or baseline record) by topic, markers included
 * @param logBytes        per drain, bytes written per task (or baseline record) by topic: the topics' log sizes on
 *                        disk at the end of the drain (one replica), batch headers and markers included
 */
public record BenchReport(BenchSettings settings, String where, int recordSize, double[] loadBefore, double[] loadAfter,
                          Drain drain, Baseline.DrainResult baselineDrain, Rate rate, Baseline.RateResult baselineRate,
                          Rate backlogRate, Memory memoryEmpty, Memory memoryBacklog,
                          Map<String, Map<String, Double>> threadMetrics, Map<String, Map<String, Double>> logEntries,
                          Map<String, Map<String, Double>> logBytes) {

    /** The key of the scheduler's drain in {@link #logEntries} and {@link #logBytes}. */
    public static final String DRAIN_PER_TASK = "drain, per task";
    /** The key of the baseline's drain in {@link #logEntries} and {@link #logBytes}. */
    public static final String BASELINE_PER_RECORD = "baseline drain, per record";
    /** A drain above this share of what the slots allow may be capped by the fleet rather than the scheduler. */
    public static final double SLOT_CAP_WARNING = 0.8;

    /** The lifecycle target: tasks/s at least this share of the baseline's records/s. */
    public static final double LIFECYCLE_TARGET = 0.30;
    /** The latency target: p99 at most this multiple of the baseline's p99 at the same rate (stated at 5,000/s). */
    public static final double P99_TARGET = 2.0;
    /** The backlog target: p99 with the backlog at most this multiple of the p99 without. */
    public static final double BACKLOG_P99_TARGET = 1.5;
    /** "Heap bounded": the heap grows by at most this many bytes per waiting task (1 M waiting: 16 MB). */
    public static final double HEAP_BYTES_PER_WAITING_TARGET = 16;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A drain: {@code tasks} pre-submitted, then placed and completed, timed from the moment the
     * scheduler ran to the last finish; CPU ms of the bench JVM per task over that time, whole and by
     * {@link CpuSampler.Part} (null when the scheduler ran in a child JVM); the finish rate of the first and
     * the last tenth of the tasks.
     */
    public record Drain(long tasks, double placementsPerSecond, double lifecyclePerSecond, double seconds,
                        Double cpuMsPerTask, Map<String, Double> cpuMsPerTaskByPart, double firstTenthPerSecond,
                        double lastTenthPerSecond) {}

    /**
     * A steady rate: submission→assignment latency, achieved placement and lifecycle rates, how far the load
     * generator fell behind at the end ({@code behindMs}) and at worst in the measured seconds ({@code
     * worstLateMs}, {@code worstLateAtS} seconds into them; -1 when nothing was due in them), the cores the
     * bench JVM kept busy over the measured seconds (null when the scheduler ran in a child JVM or CPU was not
     * sampled), the bench JVM's GC pauses in them (null when the scheduler ran in a child JVM), and where each
     * measured task's time went ({@link Hops}; null when the workers were agents).
     */
    public record Rate(int rate, Latency.Summary latency, double placementsPerSecond, double lifecyclePerSecond,
                       double behindMs, double worstLateMs, double worstLateAtS, Double coresBusy,
                       GcPauses.Summary gcPauses, Hops.Summary hops) {}

    /** Memory with {@code waiting} tasks waiting: heap used after a full GC, resident set size (-1 if unknown). */
    public record Memory(long waiting, long heapUsedAfterGc, long rss) {}

    /**
     * One measure of what a drain wrote (log entries or bytes), all topics together: per task of the scheduler's
     * drain and per record of the baseline's, each null when not measured.
     */
    public record Written(Double perTask, Double perBaselineRecord) {

        /** Per task over per baseline record, or null. */
        public Double ratio() {
            return ratioOf(perTask, perBaselineRecord);
        }
    }

    /** The log entries written, markers included. */
    public Written logEntriesWritten() {
        return written(logEntries);
    }

    /** The bytes written: the topics' log sizes. */
    public Written bytesWritten() {
        return written(logBytes);
    }

    private static Written written(Map<String, Map<String, Double>> byDrain) {
        return new Written(total(byDrain.get(DRAIN_PER_TASK)), total(byDrain.get(BASELINE_PER_RECORD)));
    }

    /** The drain's tasks/s as a share of what the slots allow ({@link BenchSettings#slotCapPerSecond()}), or null. */
    public Double slotCapShare() {
        return drain == null ? null : ratio(drain.lifecyclePerSecond(), settings.slotCapPerSecond());
    }

    public Double lifecycleRatio() {
        return drain == null || baselineDrain == null ? null : ratio(drain.lifecyclePerSecond(), baselineDrain.perSecond());
    }

    public Double placementRatio() {
        return drain == null || baselineDrain == null ? null : ratio(drain.placementsPerSecond(), baselineDrain.perSecond());
    }

    /** CPU per task over CPU per baseline record (whole JVM), or null. */
    public Double cpuRatio() {
        if (drain == null || baselineDrain == null || drain.cpuMsPerTask() == null || baselineDrain.cpuMsPerRecord() == null) {
            return null;
        }
        return ratio(drain.cpuMsPerTask(), baselineDrain.cpuMsPerRecord());
    }

    public Double p99Ratio() {
        return rate == null || baselineRate == null ? null : ratio(rate.latency().p99(), baselineRate.latency().p99());
    }

    public Double p50Ratio() {
        return rate == null || baselineRate == null ? null : ratio(rate.latency().p50(), baselineRate.latency().p50());
    }

    public Double backlogP99Ratio() {
        return rate == null || backlogRate == null ? null : ratio(backlogRate.latency().p99(), rate.latency().p99());
    }

    /** Heap growth per waiting backlog task, in bytes. */
    public Double heapBytesPerWaiting() {
        if (memoryEmpty == null || memoryBacklog == null || memoryBacklog.waiting() == 0) {
            return null;
        }
        return (double) (memoryBacklog.heapUsedAfterGc() - memoryEmpty.heapUsedAfterGc()) / memoryBacklog.waiting();
    }

    private static Double ratio(double a, double b) {
        return b <= 0 ? null : a / b;
    }

    private static Double ratioOf(Double a, Double b) {
        return a == null || b == null ? null : ratio(a, b);
    }

    private static Double total(Map<String, Double> byTopic) {
        return byTopic == null || byTopic.isEmpty() ? null
                : byTopic.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Everything as one JSON object on one line. */
    public String toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("settings", settings);
        json.put("memory_of", where);
        json.put("record_size_bytes", recordSize);
        json.put("fleet", fleet());
        json.put("tenants", settings.tenants());
        json.put("slots", settings.totalSlots());
        json.put("slot_cycle_ms", settings.cycleMs());
        json.put("slot_cap_tasks_per_second", settings.slotCapPerSecond());
        json.put("slot_cap_share", slotCapShare());
        json.put("load_average_before", loadBefore);
        json.put("load_average_after", loadAfter);
        json.put("drain", drain);
        json.put("drain_stored", settings.stored());
        json.put("drain_fan_in", settings.fanIn());
        json.put("baseline_drain", baselineDrain);
        json.put("rate", rate);
        json.put("baseline_rate", baselineRate);
        json.put("backlog_rate", backlogRate);
        json.put("memory_empty", memoryEmpty);
        json.put("memory_backlog", memoryBacklog);
        json.put("lifecycle_ratio", lifecycleRatio());
        json.put("placement_ratio", placementRatio());
        json.put("cpu_per_task_ratio", cpuRatio());
        Written bytes = bytesWritten();
        json.put("bytes_per_task", bytes.perTask());
        json.put("bytes_per_baseline_record", bytes.perBaselineRecord());
        json.put("bytes_ratio", bytes.ratio());
        Written entries = logEntriesWritten();
        json.put("log_entries_per_task", entries.perTask());
        json.put("log_entries_per_baseline_record", entries.perBaselineRecord());
        json.put("log_entries_ratio", entries.ratio());
        json.put("p50_ratio", p50Ratio());
        json.put("p99_ratio", p99Ratio());
        json.put("backlog_p99_ratio", backlogP99Ratio());
        json.put("heap_bytes_per_waiting_task", heapBytesPerWaiting());
        Map<String, Object> targets = new LinkedHashMap<>();
        targets.put("lifecycle_ratio_at_least_0_30", met(lifecycleRatio(), LIFECYCLE_TARGET, true));
        targets.put("p99_ratio_at_most_2", met(p99Ratio(), P99_TARGET, false));
        targets.put("backlog_p99_ratio_at_most_1_5", met(backlogP99Ratio(), BACKLOG_P99_TARGET, false));
        targets.put("heap_bytes_per_waiting_at_most_16", met(heapBytesPerWaiting(), HEAP_BYTES_PER_WAITING_TARGET, false));
        json.put("targets_met", targets);
        json.put("scheduler_thread_metrics", threadMetrics);
        json.put("log_entries", logEntries);
        json.put("bytes_written", logBytes);
        try {
            return JSON.writeValueAsString(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON", e);
        }
    }

    private static Boolean met(Double value, double target, boolean atLeast) {
        if (value == null) {
            return null;
        }
        return atLeast ? value >= target : value <= target;
    }

    /** Who answered the assignments, as the header and the JSON name it. */
    public String fleet() {
        if (settings.agents()) {
            return "worker agents (CronoqWorker, in the bench JVM)";
        }
        return settings.startReportDelayMs() == 0 ? "simulated workers (AttemptStarted at once)"
                : "simulated workers (AttemptStarted held back " + settings.startReportDelayMs() + " ms)";
    }

    /** How many tenants the tasks ran for and, with more than one, the sharing policy of the first pool, in words. */
    public String tenants() {
        BenchTenants tenants = new BenchTenants(settings.tenants());
        if (!tenants.shared()) {
            return "1 tenant: the tasks name none and no sharing policy is set";
        }
        long slots = settings.poolSlots(0);
        return String.format(Locale.ROOT, "%,d tenants share each pool (task k runs for %s<k mod %d>), their sharing "
                        + "policy taken in before the measured part: weights 1 to 4; in the first pool (%,d slots) %,d "
                        + "guaranteed %,d slot(s) each, %,d bounded by twice their weighted fair share",
                tenants.count(), BenchTenants.STEM, tenants.count(), slots, tenants.guaranteedIn(slots),
                tenants.guaranteeIn(slots), tenants.boundedCount());
    }

    /** The report for a person. */
    public void print(PrintWriter out) {
        BenchSettings s = settings;
        out.printf(Locale.ROOT, "cronoq bench: %d pool(s) x %d group(s), %d %s x %d slots, %s; "
                        + "%d partitions; exactly_once_v2, commit every %d ms; record %d bytes%n",
                s.pools(), s.groups(), s.workers(), fleet(), s.slots(),
                s.runMs() == 0 ? "instant completion" : "attempts run " + s.runMs() + " ms", s.partitions(),
                s.commitMs(), recordSize);
        out.printf(Locale.ROOT, "%,d slots: at about %d ms per task and slot (run time + commit interval + %d ms) "
                        + "they allow about %,.0f tasks/s%n", s.totalSlots(), s.cycleMs(),
                BenchSettings.CYCLE_OVERHEAD_MS, s.slotCapPerSecond());
        out.println(tenants());
        if (s.retentionMs() != null) {
            out.printf(Locale.ROOT, "finished tasks forgotten %s%n", s.retentionMs() == 0 ? "never (retention 0)"
                    : String.format(Locale.ROOT, "%,d ms after they finish", s.retentionMs()));
        }
        if (!s.scheduler().isEmpty()) {
            out.printf(Locale.ROOT, "scheduler settings: %s%n", new java.util.TreeMap<>(s.scheduler()));
        }
        if (s.warmsUp()) {
            List<String> warmups = new ArrayList<>();
            if (s.warmupDrain() > 0) {
                warmups.add(s.warmupRounds() == 1
                        ? String.format(Locale.ROOT, "a drain of %,d tasks", s.warmupDrainEach())
                        : String.format(Locale.ROOT, "%d drains of %,d tasks", s.warmupRounds(), s.warmupDrainEach()));
            }
            if (s.warmsUpAtRate()) {
                warmups.add(String.format(Locale.ROOT, "%d s at %,d tasks/s", s.warmupAtRateS(), s.rate()));
            }
            out.printf(Locale.ROOT, "JVM warmed up first, unmeasured and on topics of their own, by %s%n",
                    String.join(", then ", warmups));
        }
        if (s.jitWaitS() > 0) {
            out.printf(Locale.ROOT, "before each measured part, up to %d s of waiting for the JIT to go quiet%n",
                    s.jitWaitS());
        }
        if (s.bootstrap() == null) {
            out.printf(Locale.ROOT, "the embedded broker's logs and the state stores under %s%n", s.dataPlace());
        }
        out.printf(Locale.ROOT, "load average at start %s, at end %s (2-core figures are noisy: compare the ratios)%n",
                load(loadBefore), load(loadAfter));
        if (drain != null) {
            out.printf(Locale.ROOT, s.stored()
                    ? "%nDrain of %,d stored tasks" + (s.fanIn() ? " (one fan-out and fan-in)" : "")
                            + ", timed from the workers' joining (%.1f s)%n"
                    : "%nDrain of %,d pre-submitted tasks" + (s.fanIn() ? " (one fan-out and fan-in)" : "")
                            + ", taking them in included (%.1f s)%n", drain.tasks(), drain.seconds());
            line(out, "placements", drain.placementsPerSecond(), "/s", placementRatio());
            line(out, "full lifecycle", drain.lifecyclePerSecond(), "tasks/s", lifecycleRatio());
            if (drain.firstTenthPerSecond() > 0 && drain.lastTenthPerSecond() > 0) {
                out.printf(Locale.ROOT, "  %-28s %,12.0f tasks/s in the first tenth, %,.0f in the last%n", "",
                        drain.firstTenthPerSecond(), drain.lastTenthPerSecond());
            }
            slotCap(out);
            retention(out);
            if (baselineDrain != null) {
                out.printf(Locale.ROOT, "  %-28s %,12.0f records/s (a drain of %,d records, %.1f s)%n",
                        "baseline (get+put passthrough)", baselineDrain.perSecond(), baselineDrain.records(),
                        baselineDrain.seconds());
                if (baselineDrain.firstTenthPerSecond() > 0 && baselineDrain.lastTenthPerSecond() > 0) {
                    out.printf(Locale.ROOT, "  %-28s %,12.0f records/s in the first tenth, %,.0f in the last%n", "",
                            baselineDrain.firstTenthPerSecond(), baselineDrain.lastTenthPerSecond());
                }
            }
            if (drain.cpuMsPerTask() != null) {
                if (baselineDrain != null && baselineDrain.cpuMsPerRecord() != null) {
                    out.printf(Locale.ROOT, "  %-28s %.3f ms per task, %.3f ms per baseline record (%.1f x)%n",
                            "CPU of the whole JVM", drain.cpuMsPerTask(), baselineDrain.cpuMsPerRecord(),
                            drain.cpuMsPerTask() / baselineDrain.cpuMsPerRecord());
                    cpuParts(out, drain.cpuMsPerTaskByPart(), baselineDrain.cpuMsPerRecordByPart());
                } else {
                    out.printf(Locale.ROOT, "  %-28s %.3f ms per task%n", "CPU of the whole JVM", drain.cpuMsPerTask());
                    cpuParts(out, drain.cpuMsPerTaskByPart(), null);
                }
            }
            perTask(out, "log entries written", logEntriesWritten(), "%.1f");
            perTask(out, "bytes written", bytesWritten(), "%,.0f");
            if (baselineDrain != null) {
                target(out, "lifecycle >= 0.30 x baseline", lifecycleRatio(), LIFECYCLE_TARGET, true);
            }
        }
        if (rate != null) {
            out.printf(Locale.ROOT, "%nSteady %,d tasks/s for %d s (after %d s warm-up)%n", rate.rate(), s.durationS(), s.warmupS());
            latency(out, "submission->assignment", rate.latency());
            if (baselineRate != null) {
                latency(out, "baseline record->output", baselineRate.latency());
                out.printf(Locale.ROOT, "  %-28s p50 %.2f x, p99 %.2f x%n", "ratio to baseline", nz(p50Ratio()), nz(p99Ratio()));
                target(out, "p99 <= 2 x baseline" + (rate.rate() == 5000 ? "" : " (target stated at 5,000/s)"),
                        p99Ratio(), P99_TARGET, false);
            }
            out.printf(Locale.ROOT, "  %-28s %,12.0f /s placed, %,.0f /s completed%s%n", "achieved", rate.placementsPerSecond(),
                    rate.lifecyclePerSecond(), rate.behindMs() > 100 ? String.format(Locale.ROOT,
                            " (the load generator fell %.0f ms behind)", rate.behindMs()) : "");
            if (rate.coresBusy() != null) {
                out.printf(Locale.ROOT, "  %-28s %.2f of %d cores over the measured seconds%s%n", "the JVM's CPU",
                        rate.coresBusy(), Runtime.getRuntime().availableProcessors(),
                        baselineRate == null || baselineRate.coresBusy() == null ? ""
                                : String.format(Locale.ROOT, " (the baseline's: %.2f)", baselineRate.coresBusy()));
            }
            if (rate.worstLateAtS() >= 0) {
                out.printf(Locale.ROOT, "  %-28s at most %.1f ms late sending a task (%.0f s into the measured seconds)%n",
                        "the load generator", rate.worstLateMs(), rate.worstLateAtS());
            }
            if (rate.gcPauses() != null) {
                out.printf(Locale.ROOT, "  %-28s %s%s%n", "GC pauses", pauses(rate.gcPauses()),
                        baselineRate == null || baselineRate.gcPauses() == null ? ""
                                : " (the baseline's: " + pauses(baselineRate.gcPauses()) + ")");
            }
            if (rate.hops() != null && rate.hops().tasks() > 0) {
                hops(out, rate.hops());
            }
        }
        if (backlogRate != null) {
            out.printf(Locale.ROOT, "%nThe same rate with %,d tasks waiting for a saturated group of the first pool%n",
                    memoryBacklog.waiting());
            latency(out, "submission->assignment", backlogRate.latency());
            target(out, "p99 <= 1.5 x empty case", backlogP99Ratio(), BACKLOG_P99_TARGET, false);
        }
        out.printf("%nMemory of %s%n", where);
        memory(out, memoryEmpty);
        memory(out, memoryBacklog);
        if (heapBytesPerWaiting() != null) {
            out.printf(Locale.ROOT, "  heap growth %.1f bytes per waiting task%n", heapBytesPerWaiting());
            target(out, "heap bounded (<= 16 B per waiting task)", heapBytesPerWaiting(), HEAP_BYTES_PER_WAITING_TARGET, false);
        }
        logEntries.forEach((phase, entries) -> {
            out.printf(Locale.ROOT, "%nLog entries written (%s; transaction markers included), total %.1f:%n", phase,
                    total(entries));
            entries.forEach((topic, value) -> out.printf(Locale.ROOT, "  %-40s %,.2f%n", topic, value));
        });
        logBytes.forEach((phase, bytes) -> {
            out.printf(Locale.ROOT, "%nBytes written (%s; the logs' size on disk, one replica), total %,.0f:%n", phase,
                    total(bytes));
            bytes.forEach((topic, value) -> out.printf(Locale.ROOT, "  %-40s %,.1f%n", topic, value));
        });
        threadMetrics.forEach((phase, metrics) -> metrics(out, "Scheduler stream thread, end of the " + phase + " phase", metrics));
        if (baselineDrain != null) {
            metrics(out, "Baseline stream thread, end of its drain", baselineDrain.threadMetrics());
        }
        if (baselineRate != null) {
            metrics(out, "Baseline stream thread, end of its rate phase", baselineRate.threadMetrics());
        }
    }

    /** What the drain reached of the slots' allowance, and a warning when the fleet may have been its limit. */
    private void slotCap(PrintWriter out) {
        Double share = slotCapShare();
        if (share == null) {
            return;
        }
        out.printf(Locale.ROOT, "  %-28s %11.1f %% of the %,.0f tasks/s the %,d slots allow%s%n", "slots in use",
                share * 100, settings.slotCapPerSecond(), settings.totalSlots(),
                share >= SLOT_CAP_WARNING ? ": the fleet may be the limit; give more --workers or --slots" : "");
    }

    /** Whether the drain lasted long enough for finished tasks to be forgotten in it. */
    private void retention(PrintWriter out) {
        Long ms = settings.retentionMs();
        if (ms == null || ms == 0) {
            return;
        }
        boolean longer = drain.seconds() * 1000 > ms;
        out.printf(Locale.ROOT, "  %-28s %s%n", "retention " + String.format(Locale.ROOT, "%,d ms", ms), longer
                ? "shorter than the drain: it includes forgetting the tasks it finished first"
                : "longer than the drain: no task was forgotten in it");
    }

    /** A figure per task next to the same per baseline record, and their ratio. */
    private static void perTask(PrintWriter out, String what, Written written, String format) {
        Double task = written.perTask();
        Double record = written.perBaselineRecord();
        if (task == null) {
            return;
        }
        String perTask = String.format(Locale.ROOT, format, task);
        if (record == null || record <= 0) {
            out.printf(Locale.ROOT, "  %-28s %s per task%n", what, perTask);
            return;
        }
        out.printf(Locale.ROOT, "  %-28s %s per task, %s per baseline record (%.1f x)%n", what, perTask,
                String.format(Locale.ROOT, format, record), task / record);
    }

    /** The whole-JVM CPU figure split by threads: per task, per baseline record, and their ratio. */
    private static void cpuParts(PrintWriter out, Map<String, Double> task, Map<String, Double> record) {
        if (task == null || task.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "  %-28s %s%n", "", record == null ? "of which (ms per task):"
                : "of which (ms per task, per baseline record):");
        task.forEach((part, ms) -> {
            Double base = record == null ? null : record.get(part);
            out.printf(Locale.ROOT, "    %-58s %7.3f %7s %s%n", part, ms,
                    base == null ? "" : String.format(Locale.ROOT, "%.3f", base),
                    base == null || base <= 0 ? "" : String.format(Locale.ROOT, "(%.1f x)", ms / base));
        });
    }

    private static void metrics(PrintWriter out, String title, Map<String, Double> metrics) {
        if (metrics == null || metrics.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "%n%s:%n", title);
        metrics.forEach((name, value) -> out.printf(Locale.ROOT, "  %-40s %,.2f%n", name, value));
    }

    private static void line(PrintWriter out, String what, double value, String unit, Double ratio) {
        out.printf(Locale.ROOT, "  %-28s %,12.0f %-8s %s%n", what, value, unit,
                ratio == null ? "" : String.format(Locale.ROOT, "(%.2f x baseline)", ratio));
    }

    /** A measured part's GC pauses: "12 in the measured seconds, 290 ms in all, the longest 51 ms, 4 over 20 ms". */
    private static String pauses(GcPauses.Summary gc) {
        return String.format(Locale.ROOT, "%d in the measured seconds, %.0f ms in all, the longest %.0f ms, %d over %.0f ms",
                gc.count(), gc.totalMs(), gc.longestMs(), gc.overGoal(), GcPauses.GOAL_MS);
    }

    /** Each hop's p50, p99 and longest; the average hops of the slowest 1%; the slowest task's hops. */
    private static void hops(PrintWriter out, Hops.Summary h) {
        String title = "where the time went";
        for (var e : h.percentiles().entrySet()) {
            String label = e.getKey() == Hops.Hop.COMMITTED_AND_READ && !h.split() ? "out, committed and read"
                    : e.getKey().label();
            out.printf(Locale.ROOT, "  %-28s %-24s p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", title, label,
                    e.getValue().p50(), e.getValue().p99(), e.getValue().max());
            title = "";
        }
        out.printf(Locale.ROOT, "  %-28s %s%n", String.format(Locale.ROOT, "the slowest 1%% (>= %.0f ms)", h.tailFromMs()),
                "on average " + hopList(h.tailMeanMs()));
        out.printf(Locale.ROOT, "  %-28s %.1f ms, due %s: %s%n", "the slowest task", h.slowestMs(), h.slowestDue(),
                hopList(h.slowestHopsMs()));
    }

    private static String hopList(Map<Hops.Hop, Double> ms) {
        return ms.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey().label(), e.getValue()))
                .collect(Collectors.joining(", ")) + " ms";
    }

    private static void latency(PrintWriter out, String what, Latency.Summary l) {
        out.printf(Locale.ROOT, "  %-28s p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (%,d samples)%n",
                what, l.p50(), l.p90(), l.p99(), l.max(), l.count());
        out.printf(Locale.ROOT, "  %-28s %d of %d seconds had a latency over 250 ms; the max came %d s in%n",
                "", l.slowSeconds(), l.seconds(), l.worstAtSecond());
        if (l.p99ByWindow().size() > 1) {
            out.printf(Locale.ROOT, "  %-28s p99 of each %d s from %s: %s ms%n", "", Latency.WINDOW_S, l.firstSecond(),
                    l.p99ByWindow().stream().map(p -> String.format(Locale.ROOT, "%.0f", p))
                            .collect(Collectors.joining(", ")));
        }
        if (!l.slowAt().isEmpty()) {
            String seconds = l.slowAt().entrySet().stream()
                    .map(e -> String.format(Locale.ROOT, "%d s (%.0f ms)", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", "));
            out.printf(Locale.ROOT, "  %-28s slow seconds after %s, with their worst: %s%n", "", l.firstSecond(),
                    seconds);
        }
    }

    private static void memory(PrintWriter out, Memory m) {
        if (m == null) {
            return;
        }
        out.printf(Locale.ROOT, "  %,d waiting: heap used after GC %,.0f MB, RSS %s%n", m.waiting(),
                m.heapUsedAfterGc() / 1048576.0, m.rss() < 0 ? "unknown" : String.format(Locale.ROOT, "%,.0f MB",
                        m.rss() / 1048576.0));
    }

    private static void target(PrintWriter out, String what, Double value, double target, boolean atLeast) {
        if (value == null) {
            return;
        }
        boolean met = atLeast ? value >= target : value <= target;
        String by = met ? "met" : String.format(Locale.ROOT, "MISSED (%.2f against %.2f)", value, target);
        out.printf(Locale.ROOT, "  target: %-40s %s%n", what, by);
    }

    private static double nz(Double d) {
        return d == null ? Double.NaN : d;
    }

    private static String load(double[] load) {
        if (load.length == 0) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.2f %.2f %.2f", load[0], load[1], load[2]);
    }
}
