package io.jtrace.benchmarks.jfrparse;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One parser over one recording in this JVM, for {@link ParseComparison}: prints {@code EVENTS},
 * {@code WALL_MS} and {@code CPU_MS} of the parse (JVM start-up excluded), {@code PEAK_HEAP_MB} (the sum
 * of the heap pools' peaks: an upper bound, as pools peak at different moments), {@code RETAINED_MB} (heap
 * in use after a full GC while what the parser returned is still held, less the same before the parse)
 * and {@code MAX_RSS_MB} (the process's resident set high-water mark, {@code VmHWM}).
 *
 * <p>Arguments: {@code convert|recordingfile|jmc}, the recording, a scratch directory.
 */
public final class ParseOnce {
    private ParseOnce() {}

    public static void main(String[] args) throws Exception {
        Parser parser = Parser.valueOf(args[0].toUpperCase(Locale.ROOT));
        Path recording = Path.of(args[1]);
        Path scratch = Path.of(args.length > 2 ? args[2] : System.getProperty("java.io.tmpdir"));
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long heapBefore = usedHeapAfterGc();
        ManagementFactory.getMemoryPoolMXBeans().forEach(MemoryPoolMXBean::resetPeakUsage);
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        long events = parser.run(recording, scratch);
        long wall = System.nanoTime() - start;
        cpu = os.getProcessCpuTime() - cpu;
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        long retained = usedHeapAfterGc() - heapBefore;
        Parser.held = null;
        System.out.printf(Locale.ROOT, "EVENTS=%d%nWALL_MS=%d%nCPU_MS=%d%nPEAK_HEAP_MB=%d%nRETAINED_MB=%d%nMAX_RSS_MB=%d%n",
                events, wall / 1_000_000, cpu / 1_000_000, peak >> 20, Math.max(0, retained) >> 20, maxRssKb() >> 10);
    }

    private static long usedHeapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long maxRssKb() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
