package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Thread shapes of real services, for the scale tests; only the public jtrace API. Every thread emits
 * its slices {@code work-0} … {@code work-<SLICES-1>} (category {@code scale}), one after the other, on
 * its own track: the names are the few an application has, not one per thread, so the agent's memory
 * reflects the threads and not an ever-growing set of names. Which thread a slice belongs to is what
 * its track's descriptor says (the thread names below). Modes:
 * <ul>
 *   <li>{@code churn N CONCURRENT SLICES}: N short-lived platform threads {@code churn-<i>}, at most
 *       CONCURRENT alive at a time (thread i is started once thread i - CONCURRENT has ended): a pool
 *       that keeps replacing its workers, or a thread per request.
 *   <li>{@code live N SLICES}: N platform threads {@code live-<i>} alive at once: all started, then all
 *       emit, then all wait until every one has emitted, then all end. A thread per connection.
 *   <li>{@code virtual N SLICES}: N virtual threads (JDK 21+; created through method handles because
 *       this module compiles for 17), at most 10,000 alive at a time. Every tenth is named
 *       {@code vt-<i>}, the others have no name (as an executor's). Each parks for 50 µs inside each of
 *       its slices, as a request waits for I/O: it unmounts, and most slices end on another carrier
 *       (and so, often, on another of the agent's pooled sequences) than they began on.
 * </ul>
 * Report on stdout, {@code KEY=value} per line: {@code SLICES} emitted, {@code THREADS} started,
 * {@code SMB_BYTES} (size of the shared memory buffers mapped into this JVM, from
 * {@code /proc/self/maps}), {@code HEAP_BEFORE_KB} and {@code HEAP_AFTER_KB} (heap used after a full
 * GC, before the first workload thread started and after the last one ended), {@code HEAP_PEAK_KB}
 * (sum of the heap pools' peaks: an upper bound of the peak), and for {@code virtual}
 * {@code CARRIER_MOVES} (slices that ended on another carrier than they began on).
 */
public final class ScaleWorkload {
    private static final Category SCALE = Category.of("scale");
    private static final int VIRTUAL_ALIVE = 10_000;
    /** Longer than the agent's reaper period (100 ms): writers of ended threads are closed before the heap is measured. */
    private static final long SETTLE_MILLIS = 300;

    private ScaleWorkload() {}

    public static void main(String[] args) throws Throwable {
        String mode = args[0];
        int n = Integer.parseInt(args[1]);
        int perThread = Integer.parseInt(args[args.length - 1]);
        String[] names = sliceNames(perThread);
        long heapBefore = retainedHeap();
        Long carrierMoves = null;
        switch (mode) {
            case "churn" -> churn(n, Integer.parseInt(args[2]), names);
            case "live" -> live(n, names);
            case "virtual" -> carrierMoves = virtual(n, names);
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        Thread.sleep(SETTLE_MILLIS);
        long heapAfter = retainedHeap();
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.out.println("SLICES=" + (long) n * perThread);
        System.out.println("THREADS=" + n);
        System.out.println("SMB_BYTES=" + mappedSmbBytes());
        System.out.println("HEAP_BEFORE_KB=" + (heapBefore >> 10));
        System.out.println("HEAP_AFTER_KB=" + (heapAfter >> 10));
        System.out.println("HEAP_PEAK_KB=" + (peak >> 10));
        if (carrierMoves != null) {
            System.out.println("CARRIER_MOVES=" + carrierMoves);
        }
    }

    private static String[] sliceNames(int perThread) {
        String[] names = new String[perThread];
        for (int j = 0; j < perThread; j++) {
            names[j] = "work-" + j;
        }
        return names;
    }

    private static void emit(String[] names) {
        for (String name : names) {
            TrackEvent.begin(SCALE, name);
            TrackEvent.end(SCALE);
        }
    }

    private static void churn(int n, int concurrent, String[] names) throws InterruptedException {
        Thread[] alive = new Thread[concurrent];
        for (int i = 0; i < n; i++) {
            int slot = i % concurrent;
            if (alive[slot] != null) {
                alive[slot].join();
            }
            alive[slot] = new Thread(() -> emit(names), "churn-" + i);
            alive[slot].start();
        }
        for (Thread t : alive) {
            if (t != null) {
                t.join();
            }
        }
    }

    private static void live(int n, String[] names) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch traced = new CountDownLatch(n);
        Thread[] all = new Thread[n];
        for (int i = 0; i < n; i++) {
            all[i] = new Thread(() -> {
                started.countDown();
                awaitUninterruptibly(started);
                emit(names);
                traced.countDown();
                awaitUninterruptibly(traced);
            }, "live-" + i);
            all[i].start();
        }
        for (Thread t : all) {
            t.join();
        }
    }

    private static long virtual(int n, String[] names) throws Throwable {
        AtomicLong moves = new AtomicLong();
        Thread[] alive = new Thread[VIRTUAL_ALIVE];
        for (int i = 0; i < n; i++) {
            int slot = i % VIRTUAL_ALIVE;
            if (alive[slot] != null) {
                alive[slot].join();
            }
            alive[slot] = VirtualThreads.unstarted(i % 10 == 0 ? "vt-" + i : null, () -> virtualBody(names, moves));
            alive[slot].start();
        }
        for (Thread t : alive) {
            if (t != null) {
                t.join();
            }
        }
        return moves.get();
    }

    private static void virtualBody(String[] names, AtomicLong moves) {
        for (String sliceName : names) {
            TrackEvent.begin(SCALE, sliceName);
            String before = carrier();
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
            if (!before.equals(carrier())) {
                moves.incrementAndGet();
            }
            TrackEvent.end(SCALE);
        }
    }

    /** The carrier a virtual thread runs on: its toString ends with {@code @<carrier name>} while mounted. */
    private static String carrier() {
        String s = Thread.currentThread().toString();
        int at = s.lastIndexOf('@');
        return at < 0 ? "" : s.substring(at + 1);
    }

    private static long retainedHeap() throws InterruptedException {
        ExplicitGc.collect();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /**
     * Bytes of the SMB files mapped into this process (each counted once, though the service and the
     * producer each map it): lines of /proc/self/maps naming {@code jtrace-smb-*}, the file's mapped
     * size being the highest offset + length of its mappings. 0 where /proc is not there.
     */
    private static long mappedSmbBytes() throws IOException {
        Path maps = Path.of("/proc/self/maps");
        if (!Files.isReadable(maps)) {
            return 0;
        }
        Map<String, Long> sizes = new HashMap<>();
        List<String> lines = Files.readAllLines(maps);
        for (String line : lines) {
            // address perms offset dev inode pathname, e.g. "7f..-7f.. rw-s 00000000 00:19 42 /dev/shm/jtrace-smb-ab (deleted)"
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length < 6 || !fields[5].contains("jtrace-smb-")) {
                continue;
            }
            String file = fields[5].replace(" (deleted)", "");
            int dash = fields[0].indexOf('-');
            long length = Long.parseUnsignedLong(fields[0].substring(dash + 1), 16)
                    - Long.parseUnsignedLong(fields[0].substring(0, dash), 16);
            long end = Long.parseUnsignedLong(fields[2], 16) + length;
            sizes.merge(file, end, Math::max);
        }
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // Nobody interrupts these threads; keep waiting so they all stay alive together.
            }
        }
    }
}
