package io.jtrace.benchmarks.agent.flood;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time a group of this JVM's threads has used so far, from Linux's {@code /proc/self/task/<tid>/stat},
 * the threads told apart by their names. CPU, not elapsed time: among many busy threads a compile task or
 * a tracer's write waits for a core far longer than it computes. A thread that exits takes its time with
 * it, so the flood's JVMs run with {@code -XX:-UseDynamicNumberOfCompilerThreads} and the groups below
 * are threads that live as long as the recording.
 */
enum ThreadCpu {
    /** The JIT's compiler threads. */
    COMPILER(List.of("C1 CompilerThre", "C2 CompilerThre")),
    /**
     * The tracer's own threads: every {@code jtrace-} thread (service, commit, sampler and the rest) or every
     * {@code JFR } thread (recorder, periodic tasks and the rest). Linux keeps the first 15 bytes of a
     * name, which these prefixes fit in.
     */
    TRACER(List.of("jtrace-", "JFR "));

    /** Clock ticks per second of the stat file's times (USER_HZ: 100 on every Linux this runs on). */
    private static final long TICKS_PER_SECOND = 100;

    private final List<String> namePrefixes;

    ThreadCpu(List<String> namePrefixes) {
        this.namePrefixes = namePrefixes;
    }

    /**
     * The group's threads now: CPU ticks by thread id, or null where {@code /proc} cannot tell. Per thread,
     * so a window's CPU ({@link #millisBetween}) is not thrown off by a thread of the group that ends in it.
     */
    Map<String, Long> snapshot() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return null;
        }
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                try {
                    String stat = Files.readString(thread.resolve("stat"));
                    if (inGroup(stat)) {
                        ticks.put(thread.getFileName().toString(), cpuTicks(stat));
                    }
                } catch (IOException ended) {
                    // The thread ended between the listing and the read: it has no CPU to add from now on.
                }
            }
        } catch (IOException | UncheckedIOException e) {
            return null;
        }
        return ticks;
    }

    /**
     * Milliseconds of CPU the group used between two snapshots: each thread's growth, all of it for a
     * thread that started in between; a thread that ended in between counts nothing (its time went with
     * it). -1 when either snapshot is missing.
     */
    static long millisBetween(Map<String, Long> from, Map<String, Long> to) {
        if (from == null || to == null) {
            return -1;
        }
        long ticks = 0;
        for (Map.Entry<String, Long> thread : to.entrySet()) {
            ticks += thread.getValue() - from.getOrDefault(thread.getKey(), 0L);
        }
        return ticks * 1000 / TICKS_PER_SECOND;
    }

    private boolean inGroup(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            return false;
        }
        String name = stat.substring(open + 1, close);
        return namePrefixes.stream().anyMatch(name::startsWith);
    }

    /**
     * utime + stime of one {@code stat} line if its thread is in the group, else 0. The name sits in
     * parentheses and may itself hold spaces and parentheses, so the fields are counted from the last ')'.
     */
    long ticks(String stat) {
        return inGroup(stat) ? cpuTicks(stat) : 0;
    }

    private static long cpuTicks(String stat) {
        // After the name: state is field 3 of the line, utime field 14 and stime field 15.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
