package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Thread shapes of real services, for the scale tests; only the public jtrace API. Modes:
 * <ul>
 *   <li>{@code churn N BATCH SLICES}: N short-lived platform threads in waves of BATCH. Every thread of
 *       a wave emits its SLICES slices {@code s-<i>-<j>} and then waits for the whole wave, so the
 *       threads of a wave are provably alive at the same time (the test may require distinct tracks
 *       for them); then they end and the next wave starts. A thread pool that keeps replacing its
 *       workers, or a thread per request.
 *   <li>{@code live N SLICES}: N platform threads alive at once: all started, then all emit, then all
 *       wait until every one has emitted, then all end. A server with a thread per connection.
 *   <li>{@code virtual N SLICES}: N virtual threads (JDK 21+, created reflectively because this module
 *       compiles for 17) emitting {@code v-<i>-<j>}. Every 10th yields and every 100th parks between
 *       begin and end, so a slice can begin on one carrier and end on another. Every 1000th has the
 *       name {@code vt-<i>}, the rest none.
 * </ul>
 * Report on stdout: {@code SLICES=}, {@code THREADS=}, {@code HEAP_USED_MB=} (after a GC at the end),
 * {@code HEAP_PEAK_MB=} (sum of heap pools' peaks), and for virtual {@code CARRIER_MOVES=} (slices whose
 * end ran on another carrier than their begin, seen from the virtual thread's toString).
 */
public final class ScaleWorkload {
    private static final Category SCALE = Category.of("scale");

    private ScaleWorkload() {}

    public static void main(String[] args) throws Throwable {
        String mode = args[0];
        long slices;
        long threads;
        switch (mode) {
            case "churn" -> {
                int n = Integer.parseInt(args[1]);
                int batch = Integer.parseInt(args[2]);
                int perThread = Integer.parseInt(args[3]);
                churn(n, batch, perThread);
                threads = n;
                slices = (long) n * perThread;
            }
            case "live" -> {
                int n = Integer.parseInt(args[1]);
                int perThread = Integer.parseInt(args[2]);
                live(n, perThread);
                threads = n;
                slices = (long) n * perThread;
            }
            case "virtual" -> {
                int n = Integer.parseInt(args[1]);
                int perThread = Integer.parseInt(args[2]);
                System.out.println("CARRIER_MOVES=" + virtual(n, perThread));
                threads = n;
                slices = (long) n * perThread;
            }
            default -> throw new IllegalArgumentException("unknown mode " + mode);
        }
        System.out.println("SLICES=" + slices);
        System.out.println("THREADS=" + threads);
        long peak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
                peak += pool.getPeakUsage().getUsed();
            }
        }
        System.gc();
        long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.println("HEAP_USED_MB=" + (used >> 20));
        System.out.println("HEAP_PEAK_MB=" + (peak >> 20));
    }

    private static void emit(String prefix, int index, int perThread) {
        for (int j = 0; j < perThread; j++) {
            TrackEvent.begin(SCALE, prefix + index + "-" + j);
            TrackEvent.end(SCALE);
        }
    }

    private static void churn(int n, int batch, int perThread) throws InterruptedException {
        Thread[] wave = new Thread[batch];
        for (int first = 0; first < n; first += batch) {
            int size = Math.min(batch, n - first);
            CountDownLatch traced = new CountDownLatch(size);
            for (int k = 0; k < size; k++) {
                int index = first + k;
                wave[k] = new Thread(() -> {
                    emit("s-", index, perThread);
                    traced.countDown();
                    awaitUninterruptibly(traced);
                }, "churn-" + index);
                wave[k].start();
            }
            for (int k = 0; k < size; k++) {
                wave[k].join();
            }
        }
    }

    private static void live(int n, int perThread) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch traced = new CountDownLatch(n);
        Thread[] all = new Thread[n];
        for (int i = 0; i < n; i++) {
            int index = i;
            all[i] = new Thread(() -> {
                started.countDown();
                awaitUninterruptibly(started);
                emit("s-", index, perThread);
                traced.countDown();
                awaitUninterruptibly(traced);
            }, "live-" + i);
            all[i].start();
        }
        for (Thread t : all) {
            t.join();
        }
    }

    private static long virtual(int n, int perThread) throws Throwable {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> builderClass = Class.forName("java.lang.Thread$Builder");
        MethodHandle ofVirtual = lookup.findStatic(Thread.class, "ofVirtual",
                MethodType.methodType(Class.forName("java.lang.Thread$Builder$OfVirtual")));
        MethodHandle name = lookup.findVirtual(builderClass, "name", MethodType.methodType(builderClass, String.class));
        MethodHandle unstarted = lookup.findVirtual(builderClass, "unstarted",
                MethodType.methodType(Thread.class, Runnable.class));
        AtomicLong moves = new AtomicLong();
        // Started in bounded windows (not all N at once) only to keep the Thread objects of a million
        // finished threads collectable; thousands are alive and interleaving at any moment.
        int window = 10_000;
        Thread[] started = new Thread[window];
        for (int first = 0; first < n; first += window) {
            int size = Math.min(window, n - first);
            for (int k = 0; k < size; k++) {
                int index = first + k;
                Runnable body = () -> virtualBody(index, perThread, moves);
                Object builder = ofVirtual.invoke();
                if (index % 1000 == 0) {
                    builder = name.invoke(builder, "vt-" + index);
                }
                Thread t = (Thread) unstarted.invoke(builder, body);
                t.start();
                started[k] = t;
            }
            for (int k = 0; k < size; k++) {
                started[k].join();
            }
        }
        return moves.get();
    }

    private static void virtualBody(int index, int perThread, AtomicLong moves) {
        for (int j = 0; j < perThread; j++) {
            TrackEvent.begin(SCALE, "v-" + index + "-" + j);
            if (index % 10 == 0) {
                String before = carrier();
                if (index % 100 == 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(50));
                } else {
                    Thread.yield();
                }
                if (!before.equals(carrier())) {
                    moves.incrementAndGet();
                }
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

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // Nobody interrupts these threads; keep waiting so the wave stays alive together.
            }
        }
    }
}
