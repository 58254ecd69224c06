package io.jtrace.benchmarks.agent.flood;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time the JIT's compiler threads have used so far, from Linux's {@code /proc/self/task/<tid>/stat}
 * (threads named {@code C1 CompilerThre…} and {@code C2 CompilerThre…}). CPU, not the compile tasks'
 * elapsed time that {@code CompilationMXBean} sums: among many busy threads a compile task waits for a
 * core far longer than it computes. A compiler thread that exits takes its time with it, so the flood's
 * JVMs run with {@code -XX:-UseDynamicNumberOfCompilerThreads}.
 */
final class CompilerCpu {
    /** Clock ticks per second of the stat file's times (USER_HZ: 100 on every Linux this runs on). */
    private static final long TICKS_PER_SECOND = 100;

    private CompilerCpu() {}

    /** Milliseconds of CPU the compiler threads have used, or -1 where {@code /proc} cannot tell. */
    static long millis() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        long ticks = 0;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                try {
                    ticks += compilerTicks(Files.readString(thread.resolve("stat")));
                } catch (IOException ended) {
                    // The thread ended between the listing and the read: not a compiler thread (see above).
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return ticks * 1000 / TICKS_PER_SECOND;
    }

    /**
     * utime + stime of one {@code stat} line if its thread is a compiler thread, else 0. The name sits in
     * parentheses and may itself hold spaces and parentheses, so the fields are counted from the last ')'.
     */
    static long compilerTicks(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < open) {
            return 0;
        }
        String name = stat.substring(open + 1, close);
        if (!name.startsWith("C1 CompilerThre") && !name.startsWith("C2 CompilerThre")) {
            return 0;
        }
        // After the name: state is field 3 of the line, utime field 14 and stime field 15.
        String[] fields = stat.substring(close + 2).trim().split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }
}
