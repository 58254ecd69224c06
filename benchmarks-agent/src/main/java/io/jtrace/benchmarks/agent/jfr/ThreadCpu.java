package io.jtrace.benchmarks.agent.jfr;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time of every thread of this process, the JVM's own (JIT compilers, GC, JFR) included, from
 * {@code /proc/self/task/<tid>/stat} (Linux): what {@code ThreadMXBean} cannot see. Threads are grouped
 * by name with digits dropped ({@code worker-3} and {@code worker-1} are {@code worker-}), so threads that
 * come and go still add up.
 */
final class ThreadCpu {
    /** Clock ticks per second of {@code /proc}'s utime and stime: 100 on Linux. */
    private static final long TICKS_PER_SECOND = 100;

    private ThreadCpu() {}

    /** CPU ms per thread group, summed over live threads. */
    static Map<String, Long> byName() {
        Map<String, Long> cpu = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(open + 1, close).replaceAll("[0-9]+", "");
                    String[] rest = stat.substring(close + 2).split(" ");
                    long ticks = Long.parseLong(rest[11]) + Long.parseLong(rest[12]); // utime, stime
                    cpu.merge(name, ticks * 1000 / TICKS_PER_SECOND, Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException e) {
            return Map.of();
        }
        return cpu;
    }

    /**
     * Prints {@code THREAD_CPU <name>: <ms> (<% of one core>)} for the groups that used at least 0.5 % of a
     * core, then {@code JIT_PERCENT} (the C1 and C2 compiler threads) and {@code JTRACE_PERCENT} (threads
     * named {@code jtrace-…}), in % of one core.
     */
    static void printDelta(Map<String, Long> before, Map<String, Long> after, long elapsedNanos) {
        List<Map.Entry<String, Long>> delta = new ArrayList<>();
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long ms = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (ms * 1e6 / elapsedNanos >= 0.005) {
                delta.add(Map.entry(e.getKey(), ms));
            }
        }
        delta.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        long jit = 0;
        long jtrace = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long ms = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (e.getKey().startsWith("C CompilerThre")) {
                jit += ms;
            } else if (e.getKey().startsWith("jtrace")) {
                jtrace += ms;
            }
        }
        System.out.printf("JIT_PERCENT=%.1f%nJTRACE_PERCENT=%.1f%n", jit * 1e8 / elapsedNanos, jtrace * 1e8 / elapsedNanos);
        for (Map.Entry<String, Long> e : delta) {
            System.out.printf("THREAD_CPU %s: %d ms (%.1f %% of a core)%n", e.getKey(), e.getValue(), e.getValue() * 1e8 / elapsedNanos);
        }
    }
}
