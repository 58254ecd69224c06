package io.jtrace.benchmarks.agent.flood;

import io.jtrace.benchmarks.agent.child.ChildRuns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * Floods jtrace and JFR side by side, each as users run it (the shaded agent with default options and
 * a trace file; {@code -XX:StartFlightRecording} to a file), and reports for each: slices emitted, what
 * reached the file, what the tracer says it lost, what is unaccounted for, the cost per slice on the
 * emitting thread, the rate into the file over the whole run and after the warm-up (the slices that
 * began in the measured window, dated by the tracer's own timestamps) and the bytes per slice in the file.
 *
 * <pre>java -cp benchmarks-agent/target/agent-benchmarks.jar io.jtrace.benchmarks.agent.flood.FloodHarness
 *     [--threads 1,2,4] [--seconds 5] [--warmup 2] [--rate 3m] [--agent agent/target/jtrace.jar] [--config trace.pbtxt]
 *     [--java path/to/bin/java] [--dir target] [--keep true] [--runs 1]</pre>
 *
 * Both tracers write into {@code --dir}: jtrace its trace file, JFR its recording and its disk
 * repository (which JFR would otherwise keep under java.io.tmpdir). Each file is deleted once counted
 * ({@code --keep true} keeps them): the writeback of one run's gigabytes of dirty page cache would slow
 * the next.
 *
 * <p>{@code --runs} repeats each pair of runs (jtrace first, then JFR first, in turn) and ends with the
 * median and range of the per-pair ratios: on a small shared machine one pair's ratio can be off by a third.
 *
 * <p>{@code --config} gives jtrace a text TraceConfig besides the file (the agent's {@code config=}
 * option), e.g. one with {@code buffer_exhausted_policy: BUFFER_EXHAUSTED_STALL_THEN_DROP} to compare
 * stalling with JFR; without it jtrace runs with its defaults.
 *
 * <p>{@code --rate} paces each thread at that many slices per second ({@code k} and {@code m} suffixes)
 * instead of flat out: below the rate a tracer sustains, it should lose nothing.
 */
public final class FloodHarness {
    /** Both JVMs keep their compiler threads to the end, so {@link ThreadCpu} sees all their time. */
    private static final String FIXED_COMPILER_THREADS = "-XX:-UseDynamicNumberOfCompilerThreads";

    private FloodHarness() {}

    public static void main(String[] args) throws Exception {
        String usage = "[--threads 1,2,4] [--seconds 5] [--warmup 2] [--rate 3m] [--agent jar] [--config trace.pbtxt] [--java bin/java] [--dir dir] [--keep true] [--runs 1]";
        Map<String, String> options = ChildRuns.options(args, usage);
        for (String key : options.keySet()) {
            if (!List.of("threads", "seconds", "warmup", "rate", "agent", "config", "java", "dir", "keep", "runs").contains(key)) {
                throw new IllegalArgumentException("unknown option --" + key + "; usage: " + usage);
            }
        }
        String rate = String.valueOf(rate(options.getOrDefault("rate", "0")));
        List<Integer> threadCounts = new ArrayList<>();
        for (String t : options.getOrDefault("threads", "1,2,4").split(",")) {
            threadCounts.add(Integer.parseInt(t.trim()));
        }
        long millis = (long) (Double.parseDouble(options.getOrDefault("seconds", "5")) * 1000);
        long warmupMillis = (long) (Double.parseDouble(options.getOrDefault("warmup", "2")) * 1000);
        Path agent = Path.of(options.getOrDefault("agent", "agent/target/jtrace.jar")).toAbsolutePath();
        if (!Files.isRegularFile(agent)) {
            throw new IllegalArgumentException("no agent jar at " + agent + ": build it (mvn package) or pass --agent");
        }
        String config = configOption(options);
        String java = options.getOrDefault("java", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path dir = Files.createDirectories(Path.of(options.getOrDefault("dir", "benchmarks-agent/target")));
        String classpath = ChildRuns.ownJar(FloodHarness.class);
        boolean keep = Boolean.parseBoolean(options.getOrDefault("keep", "false"));
        int runs = Integer.parseInt(options.getOrDefault("runs", "1"));
        if (runs < 1) {
            throw new IllegalArgumentException("--runs must be at least 1, got " + runs);
        }

        System.out.printf("%-7s %7s %12s %12s %10s %11s %11s %9s %12s %12s %9s %9s %10s %12s%n", "tracer", "threads", "emitted",
                "in file", "lost", "unaccounted", "undecodable", "ns/slice", "slices/s", "after w-up", "B/slice", "process s", "JIT cpu ms",
                "tracer ns/sl");
        List<String> summaries = new ArrayList<>();
        for (int threads : threadCounts) {
            List<Double> rateRatios = new ArrayList<>();
            List<Double> sustainedRatios = new ArrayList<>();
            List<Double> costRatios = new ArrayList<>();
            for (int run = 0; run < runs; run++) {
                // Odd runs put JFR first: whatever the run before leaves the machine (page cache, the JIT of
                // the harness itself, the host's other tenants) falls on each tracer half of the time.
                Callable<Row> jtrace = () -> floodJtrace(java, agent, config, classpath, dir, threads, millis, warmupMillis, rate, keep);
                Callable<Row> jfr = () -> floodJfr(java, classpath, dir, threads, millis, warmupMillis, rate, keep);
                Row jtraceRow;
                Row jfrRow;
                if (run % 2 == 0) {
                    jtraceRow = jtrace.call();
                    jfrRow = jfr.call();
                } else {
                    jfrRow = jfr.call();
                    jtraceRow = jtrace.call();
                }
                rateRatios.add((double) jtraceRow.slicesPerSecond() / jfrRow.slicesPerSecond());
                sustainedRatios.add((double) jtraceRow.sustainedPerSecond() / jfrRow.sustainedPerSecond());
                costRatios.add(jtraceRow.nanosPerSlice() / jfrRow.nanosPerSlice());
            }
            summaries.add(String.format("%d thread(s), %d run(s): slices/s into the file, jtrace/JFR %s; after the warm-up %s;"
                    + " ns/slice, jtrace/JFR %s", threads, runs, spread(rateRatios), spread(sustainedRatios), spread(costRatios)));
        }
        summaries.forEach(System.out::println);
        System.out.println("jtrace counts events (a slice is a begin and an end), JFR counts events (one per slice);"
                + " ns/slice is per emitting thread, after the warm-up (all threads' time over all their slices); slices/s reached the file, over the whole run (warm-up included);"
                + " after w-up: slices/s in the file that began after the warm-up and before the end (dated by each tracer's own timestamps)."
                + " JFR's lost column, when negative, is bytes it reported lost"
                + " (jdk.DataLoss), not events. process s: the JVM's wall time from launch to exit, its shutdown included"
                + " (JFR copies its disk repository into the recording's file at exit). JIT cpu ms: CPU the JIT's compiler"
                + " threads used during the measured window (out of the window's length times the cores): the part of"
                + " the window the JIT took from the flood and the tracer, and a sign the warm-up did not reach a steady state."
                + " tracer ns/sl: CPU the tracer's own threads used during the measured window (every jtrace-"
                + " thread: the service, commit and sampler threads among them; every JFR thread) over the slices in the file that began in it: what getting a"
                + " slice into the file costs beyond the emitting thread.");
    }

    /** The agent's {@code config=} option for {@code --config}, or "" without one. */
    private static String configOption(Map<String, String> options) {
        if (!options.containsKey("config")) {
            return "";
        }
        Path configFile = Path.of(options.get("config")).toAbsolutePath();
        if (!Files.isRegularFile(configFile)) {
            throw new IllegalArgumentException("no trace config at " + configFile);
        }
        return ",config=" + configFile;
    }

    /** One flood under the jtrace agent, counted in its trace file: its row of the table. */
    private static Row floodJtrace(String java, Path agent, String config, String classpath, Path dir, int threads, long millis,
            long warmupMillis, String rate, boolean keep) throws Exception {
        Path trace = dir.resolve("flood-jtrace-" + threads + ".pftrace");
        Files.deleteIfExists(trace);
        long start = System.nanoTime();
        Map<String, String> jtrace = ChildRuns.run(List.of(java, FIXED_COMPILER_THREADS, "-javaagent:" + agent + "=start,file=" + trace + config,
                "-cp", classpath, JtraceFlood.class.getName(), String.valueOf(threads), String.valueOf(millis), String.valueOf(warmupMillis), rate));
        long wall = System.nanoTime() - start;
        Window window = Window.of(jtrace, "MONOTONIC");
        PerfettoTraceCount count = PerfettoTraceCount.of(trace, JtraceFlood.CATEGORY_NAME, window.from(), window.to());
        long emitted = 2 * Long.parseLong(jtrace.get("EMITTED"));
        long inFile = count.begins() + count.ends();
        Row row = print("jtrace", threads, emitted, inFile, count.lostCounter(), emitted - inFile - Math.max(0, count.lostCounter()),
                count.undecodable(), jtrace.get("NS_PER_SLICE"), Long.parseLong(jtrace.get("ELAPSED_MS")), Files.size(trace), inFile / 2,
                count.beginsInWindow(), window, wall, jtrace);
        discard(trace, keep);
        return row;
    }

    /** One flood under JFR, counted in its recording: its row of the table. */
    private static Row floodJfr(String java, String classpath, Path dir, int threads, long millis, long warmupMillis, String rate,
            boolean keep) throws Exception {
        Path recording = dir.resolve("flood-jfr-" + threads + ".jfr");
        Files.deleteIfExists(recording);
        Path repository = dir.resolve("flood-jfr-repository");
        deleteTree(repository);
        long start = System.nanoTime();
        Map<String, String> jfr = ChildRuns.run(List.of(java, FIXED_COMPILER_THREADS, "-XX:FlightRecorderOptions:repository=" + repository,
                "-XX:StartFlightRecording:filename=" + recording + ",maxsize=0",
                "-cp", classpath, JfrFlood.class.getName(), String.valueOf(threads), String.valueOf(millis), String.valueOf(warmupMillis), rate));
        long wall = System.nanoTime() - start;
        Window window = Window.of(jfr, "EPOCH");
        JfrRecordingCount events = JfrRecordingCount.of(recording, window.from(), window.to());
        long emitted = Long.parseLong(jfr.get("EMITTED"));
        Row row = print("JFR", threads, emitted, events.events(), events.lostBytes() > 0 ? -events.lostBytes() : 0,
                emitted - events.events(), 0, jfr.get("NS_PER_SLICE"), Long.parseLong(jfr.get("ELAPSED_MS")), Files.size(recording), events.events(),
                events.eventsInWindow(), window, wall, jfr);
        discard(recording, keep);
        deleteTree(repository);
        return row;
    }

    /**
     * Deletes a counted file unless asked to keep it: a flood leaves gigabytes of dirty page cache, and
     * their writeback would slow whichever tracer runs next.
     */
    private static void discard(Path file, boolean keep) throws IOException {
        if (!keep) {
            Files.delete(file);
        }
    }

    /** What JFR left of its repository (it deletes its chunks at exit, not the folder it was given). */
    private static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            try (var paths = Files.walk(root)) {
                for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** Slices per second per thread: a number with an optional k or m suffix; 0 for flat out. */
    private static double rate(String text) {
        String t = text.trim().toLowerCase();
        double scale = t.endsWith("m") ? 1e6 : t.endsWith("k") ? 1e3 : 1;
        double value = Double.parseDouble(scale == 1 ? t : t.substring(0, t.length() - 1)) * scale;
        if (value < 0) {
            throw new IllegalArgumentException("--rate must not be negative: " + text);
        }
        return value;
    }

    /** One run's figures that runs are compared by. */
    private record Row(double nanosPerSlice, long slicesPerSecond, long sustainedPerSecond) {}

    /** The flood's measured window (after its warm-up), as the child printed it on one clock. */
    private record Window(long from, long to) {
        static Window of(Map<String, String> child, String clock) {
            return new Window(Long.parseLong(child.get("WINDOW_" + clock + "_FROM")), Long.parseLong(child.get("WINDOW_" + clock + "_TO")));
        }

        long perSecond(long slices) {
            return (long) (slices * 1e9 / (to - from));
        }
    }

    private static Row print(String tracer, int threads, long emitted, long inFile, long lost, long unaccounted,
                             long undecodable, String nanosPerSlice, long elapsedMillis, long fileBytes, long slicesInFile,
                             long slicesInWindow, Window window, long processNanos, Map<String, String> child) {
        long slicesPerSecond = slicesInFile * 1000 / elapsedMillis;
        long sustainedPerSecond = window.perSecond(slicesInWindow);
        long tracerMillis = Long.parseLong(child.get("TRACER_CPU_MS_IN_WINDOW"));
        String tracerNanosPerSlice = tracerMillis < 0 || slicesInWindow == 0 ? "-"
                : String.format(Locale.ROOT, "%.1f", tracerMillis * 1e6 / slicesInWindow);
        System.out.printf("%-7s %7d %12d %12d %10d %11d %11d %9s %12d %12d %9.1f %9.1f %10s %12s%n", tracer, threads, emitted, inFile, lost,
                unaccounted, undecodable, nanosPerSlice, slicesPerSecond, sustainedPerSecond,
                slicesInFile == 0 ? 0.0 : (double) fileBytes / slicesInFile, processNanos / 1e9, child.get("JIT_CPU_MS_IN_WINDOW"),
                tracerNanosPerSlice);
        return new Row(Double.parseDouble(nanosPerSlice), slicesPerSecond, sustainedPerSecond);
    }

    /**
     * The median of per-run ratios and their range. Each ratio pairs a jtrace run with the JFR run right
     * before or after it, so drift in the machine's speed (2 shared cores) cancels out of each pair.
     */
    static String spread(List<Double> ratios) {
        List<Double> sorted = new ArrayList<>(ratios);
        sorted.sort(null);
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return n == 1 ? String.format(Locale.ROOT, "%.2f", median)
                : String.format(Locale.ROOT, "median %.2f (%.2f-%.2f)", median, sorted.get(0), sorted.get(n - 1));
    }

}
