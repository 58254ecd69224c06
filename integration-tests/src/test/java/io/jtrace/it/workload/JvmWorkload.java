package io.jtrace.it.workload;

import io.jtrace.api.Category;
import io.jtrace.api.TrackEvent;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A JVM the jvm.* data sources must describe, mostly without the tracing API: busy named workers, a
 * thread kept BLOCKED on a monitor for a known stretch, a thread renamed while it runs, a direct buffer
 * of a known size. It prints the ground truth on stdout, each thread's OS tid as the thread itself reads
 * it: {@code TID_<name>=<tid>}, {@code BLOCKED_FROM=}, then {@code BLOCKED_RELEASING=} and
 * {@code BLOCKED_TO=} just before and after the release (System.nanoTime), {@code DIRECT_BYTES=},
 * {@code RENAMED_TID=}, and each busy worker's CPU time when it stops spinning, {@code CPU_<name>=} (ns).
 */
public final class JvmWorkload {
    static final int WORKERS = 3;
    static final int DIRECT_BYTES = 8 * 1024 * 1024;
    private static final Object MONITOR = new Object();
    /** Kept reachable until the end, so the direct pool holds it at every sample. */
    private static ByteBuffer direct;

    private JvmWorkload() {}

    public static void main(String[] args) throws Exception {
        direct = ByteBuffer.allocateDirect(DIRECT_BYTES);
        System.out.println("DIRECT_BYTES=" + DIRECT_BYTES);
        Thread[] workers = new Thread[WORKERS];
        long[] cpuWhenStopped = new long[WORKERS];
        for (int i = 0; i < WORKERS; i++) {
            String name = "busy-worker-" + i;
            int index = i;
            workers[i] = new Thread(() -> {
                report(name);
                if (name.endsWith("-0")) {
                    TrackEvent.instant(Category.of("jvm-it"), "from the API");
                }
                spin(400);
                // Idle long enough for a sample to see the final CPU time before the thread ends. Printed by
                // main: a print here, its first string concatenation linked on the spot, would spend CPU
                // time after the reading.
                cpuWhenStopped[index] = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
                sleep(300);
            }, name);
            workers[i].start();
        }

        CountDownLatch waiting = new CountDownLatch(1);
        Thread blocked;
        long from;
        long releasing;
        synchronized (MONITOR) {
            blocked = new Thread(() -> {
                report("blocked-waiter");
                waiting.countDown();
                synchronized (MONITOR) {
                    spin(1);
                }
            }, "blocked-waiter");
            blocked.start();
            waiting.await();
            from = System.nanoTime();
            Thread.sleep(500);
            // The waiter is BLOCKED from shortly after the latch until the monitor is released here: after
            // this reading, and before the one below the block, however late this thread runs again.
            releasing = System.nanoTime();
        }
        long to = System.nanoTime();
        blocked.join();
        System.out.println("BLOCKED_FROM=" + from);
        System.out.println("BLOCKED_RELEASING=" + releasing);
        System.out.println("BLOCKED_TO=" + to);

        CountDownLatch renamed = new CountDownLatch(1);
        Thread renaming = new Thread(() -> {
            System.out.println("RENAMED_TID=" + tid());
            sleep(300);
            Thread.currentThread().setName("after-rename");
            renamed.countDown();
            sleep(300);
        }, "before-rename");
        renaming.start();
        renamed.await();
        renaming.join();
        for (int i = 0; i < WORKERS; i++) {
            workers[i].join();
            // join() makes the worker's store visible here.
            System.out.println("CPU_" + workers[i].getName() + "=" + cpuWhenStopped[i]);
        }
        Thread.sleep(200);
        System.out.println("DIRECT_CAPACITY=" + direct.capacity());
    }

    private static synchronized void report(String name) {
        System.out.println("TID_" + name + "=" + tid());
    }

    private static long tid() {
        try {
            String link = Files.readSymbolicLink(Path.of("/proc/thread-self")).toString();
            return Long.parseLong(link.substring(link.lastIndexOf('/') + 1));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void spin(long millis) {
        long end = System.nanoTime() + millis * 1_000_000L;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
