package io.jtrace.benchmarks.agent.flood;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The flood workload: {@code threads} threads each emit slices back to back for {@code warmupMillis}
 * and then {@code millis} more, and the process prints how many it emitted in all, what one cost its
 * thread after the warm-up (so the JIT has compiled both the workload and the tracer), and how much
 * CPU the JIT's compiler threads and the tracer's own threads used during the measured window
 * ({@link ThreadCpu}). The tracer is whatever the
 * JVM was started with; {@link JtraceFlood} and {@link JfrFlood} say how one slice is emitted.
 *
 * <p>With a fifth argument, a rate in slices per second per thread, each thread is paced instead: a
 * batch starts no earlier than its share of the rate allows (sleeping meanwhile, as an application
 * thread with time to spare would), so the tracer is fed a sustained rate below its maximum and what it
 * loses there shows. A thread that falls behind (in its first tenths of a second the JIT has not
 * compiled the loop yet) goes on at the rate from where it is: catching up would mean a burst at full
 * speed, which is a flood, not the rate.
 */
final class Flood {
    private static final int BATCH = 256;
    /** A paced thread this far ahead of its rate sleeps (the timer's slack is about 50 us), then spins. */
    private static final long PARK_ABOVE_NANOS = 200_000;

    /** Longs per thread in the progress array: a thread's count and time, alone on their cache lines. */
    private static final int STRIDE = 16;
    private static final VarHandle PROGRESS = MethodHandles.arrayElementVarHandle(long[].class);

    private Flood() {}

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait = nanoTime - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
        }
    }

    /** Epoch ns minus System.nanoTime(), from the pair of reads closest together of a few. */
    private static long monotonicToEpoch() {
        long best = Long.MAX_VALUE;
        long offset = 0;
        for (int i = 0; i < 16; i++) {
            long before = System.nanoTime();
            Instant now = Instant.now();
            long after = System.nanoTime();
            if (after - before < best) {
                best = after - before;
                offset = now.getEpochSecond() * 1_000_000_000L + now.getNano() - (before + (after - before) / 2);
            }
        }
        return offset;
    }

    static void run(String[] args, Runnable slice) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        long millis = Long.parseLong(args[1]);
        long warmupMillis = Long.parseLong(args[2]);
        double ratePerThread = args.length > 3 ? Double.parseDouble(args[3]) : 0;
        double nanosPerBatch = ratePerThread > 0 ? BATCH * 1e9 / ratePerThread : 0;
        long[] emitted = new long[threads];
        long[] endedAt = new long[threads];
        long[] progress = new long[threads * STRIDE];
        Thread[] workers = new Thread[threads];
        long monotonicToEpoch = monotonicToEpoch();
        long start = System.nanoTime();
        long warmupEnd = start + warmupMillis * 1_000_000L;
        long deadline = warmupEnd + millis * 1_000_000L;
        for (int i = 0; i < threads; i++) {
            int index = i;
            workers[i] = new Thread(() -> {
                long n = 0;
                long now = System.nanoTime();
                long paceFrom = now;
                int at = index * STRIDE;
                while (now < deadline) {
                    if (nanosPerBatch > 0) {
                        long due = paceFrom + (long) (n / BATCH * nanosPerBatch);
                        long ahead = due - System.nanoTime();
                        if (ahead < -nanosPerBatch) {
                            // Fell behind (the JIT had not compiled the loop yet, the thread was not
                            // scheduled): go on at the rate from here instead of catching up in a burst
                            // faster than the rate.
                            paceFrom -= ahead;
                            ahead = 0;
                        }
                        if (ahead > PARK_ABOVE_NANOS) {
                            LockSupport.parkNanos(ahead - PARK_ABOVE_NANOS / 2);
                        }
                        while (System.nanoTime() < due) {
                            Thread.onSpinWait();
                        }
                    }
                    for (int k = 0; k < BATCH; k++) {
                        slice.run();
                    }
                    n += BATCH;
                    now = System.nanoTime();
                    // Published for the main thread to read at the warm-up's end. A test of the warm-up's end
                    // here would be a branch never taken while the JIT compiles the loop: every thread would
                    // leave the compiled loop at once when it is (an uncommon trap), and run interpreted into
                    // the measured window until the JIT compiled it again, seconds later among many threads.
                    PROGRESS.setOpaque(progress, at, n);
                    PROGRESS.setOpaque(progress, at + 1, now);
                }
                emitted[index] = n;
                endedAt[index] = now;
            }, "flood-" + i);
        }
        for (Thread t : workers) {
            t.start();
        }
        sleepUntil(warmupEnd);
        long[] slicesAtWarmupEnd = new long[threads];
        long[] timeAtWarmupEnd = new long[threads];
        for (int i = 0; i < threads; i++) {
            // The time first: the count read after it is of that batch or a later one (at most one batch
            // off, against millions in the window).
            long time = (long) PROGRESS.getOpaque(progress, i * STRIDE + 1);
            slicesAtWarmupEnd[i] = (long) PROGRESS.getOpaque(progress, i * STRIDE);
            timeAtWarmupEnd[i] = time == 0 ? warmupEnd : time;
        }
        Map<String, Long> jitAtWarmupEnd = ThreadCpu.COMPILER.snapshot();
        Map<String, Long> tracerAtWarmupEnd = ThreadCpu.TRACER.snapshot();
        sleepUntil(deadline);
        Map<String, Long> jitAtDeadline = ThreadCpu.COMPILER.snapshot();
        Map<String, Long> tracerAtDeadline = ThreadCpu.TRACER.snapshot();
        long total = 0;
        long measuredSlices = 0;
        long measuredNanos = 0;
        for (int i = 0; i < threads; i++) {
            workers[i].join();
            total += emitted[i];
            measuredSlices += emitted[i] - slicesAtWarmupEnd[i];
            measuredNanos += endedAt[i] - timeAtWarmupEnd[i];
        }
        // Every thread's time over every thread's slices: a thread the scheduler starved weighs by what it
        // emitted, where an average of per-thread ratios would let it dominate.
        double nanosPerSlice = (double) measuredNanos / measuredSlices;
        System.out.println("EMITTED=" + total);
        System.out.printf("NS_PER_SLICE=%.1f%n", nanosPerSlice);
        System.out.printf("ELAPSED_MS=%d%n", (System.nanoTime() - start) / 1_000_000L);
        System.out.println("JIT_CPU_MS_IN_WINDOW=" + ThreadCpu.millisBetween(jitAtWarmupEnd, jitAtDeadline));
        System.out.println("TRACER_CPU_MS_IN_WINDOW=" + ThreadCpu.millisBetween(tracerAtWarmupEnd, tracerAtDeadline));
        // The measured window, on the clock each tracer's file uses: jtrace's CLOCK_MONOTONIC
        // (System.nanoTime()) and JFR's wall-clock dates.
        System.out.println("WINDOW_MONOTONIC_FROM=" + warmupEnd);
        System.out.println("WINDOW_MONOTONIC_TO=" + deadline);
        System.out.println("WINDOW_EPOCH_FROM=" + (warmupEnd + monotonicToEpoch));
        System.out.println("WINDOW_EPOCH_TO=" + (deadline + monotonicToEpoch));
    }
}
