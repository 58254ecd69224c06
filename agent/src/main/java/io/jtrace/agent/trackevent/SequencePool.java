package io.jtrace.agent.trackevent;

import java.util.concurrent.locks.LockSupport;

/**
 * Sequences shared by the threads that do not own one: virtual threads (any number of them), and
 * platform threads beyond the owned-writer budget. A thread claims a sequence for one event and
 * releases it right after, so a pooled sequence never interleaves two threads' packets, and the pool's
 * SMB footprint (one chunk per sequence) does not grow with the number of threads.
 *
 * <p>Each event is written on its thread's own track (the event names it), so a thread's events may
 * spread over several pooled sequences; Perfetto matches begin and end per track, not per sequence.
 *
 * <p>The slots are filled once, before the pool is published (a final array read through the session's
 * volatile field), and never change; only each sequence's claim flag does (see {@link Sequence}).
 */
final class SequencePool {
    /**
     * How long an event waits for a free sequence before it is counted lost. A sequence is held for one
     * event (well under a microsecond) unless its holder's OS thread is descheduled mid-event, which on
     * a machine with more runnable threads than CPUs (more carriers than cores, a loaded host) lasts
     * up to a scheduler time slice: a few milliseconds. Waiting out such a slice loses nothing; waiting
     * longer would stall the application for a tracer that is stuck.
     */
    static final long MAX_WAIT_NANOS = 10_000_000L;
    /** Passes that only spin or yield before the claimer parks between passes. */
    private static final int BUSY_PASSES = 16;
    private static final long PARK_NANOS = 20_000L;

    private final Sequence[] slots;
    private final long maxWaitNanos;
    /** Set by the producer thread at stop; claimers that find no free slot then stop trying. */
    private volatile boolean closed;

    SequencePool(Sequence[] slots) {
        this(slots, MAX_WAIT_NANOS);
    }

    SequencePool(Sequence[] slots, long maxWaitNanos) {
        this.slots = slots;
        this.maxWaitNanos = maxWaitNanos;
    }

    /**
     * Two sequences per thread that can run at once: per CPU, or per carrier of virtual threads when
     * {@code jdk.virtualThreadScheduler.parallelism} asks for more carriers than there are CPUs.
     */
    static int defaultSize() {
        return sizeFor(Runtime.getRuntime().availableProcessors(), Integer.getInteger("jdk.virtualThreadScheduler.parallelism", 0));
    }

    static int sizeFor(int cpus, int carriers) {
        return Math.min(32, Math.max(4, 2 * Math.max(cpus, carriers)));
    }

    int size() {
        return slots.length;
    }

    /**
     * Claims a sequence, trying slot {@code hint} first, and returns its slot ({@link #get}); or -1
     * when every sequence stayed busy for {@link #MAX_WAIT_NANOS} or the pool was closed (the caller
     * counts the event as lost). A virtual thread that parks here gives its carrier to other work.
     */
    int claim(int hint) {
        int n = slots.length;
        int start = Math.floorMod(hint, n);
        long deadline = 0;
        boolean waiting = false;
        for (int pass = 0; ; pass++) {
            // Before any slot is tried: a slot whose holder was still busy when the pool closed, released
            // since, must not go to a late event (its writer is never closed).
            if (closed) {
                return -1;
            }
            for (int i = 0; i < n; i++) {
                int index = start + i < n ? start + i : start + i - n;
                if (slots[index].tryClaim()) {
                    return index;
                }
            }
            if (pass < 8) {
                Thread.onSpinWait();
            } else if (pass < BUSY_PASSES) {
                Thread.yield();
            } else {
                // Only now the clock: the common contended claim succeeds within a few passes.
                long now = System.nanoTime();
                if (!waiting) {
                    waiting = true;
                    deadline = now + maxWaitNanos;
                } else if (now - deadline > 0) {
                    return -1;
                }
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    }

    Sequence get(int slot) {
        return slots[slot];
    }

    /**
     * Any thread: events the pool's writers dropped so far ({@link io.jtrace.shm.writer.TraceWriter#droppedRecords}, a live
     * figure that may trail them by a few); 0 once {@link #close} began, which hands each writer's final
     * count to the session.
     */
    long droppedSoFar() {
        if (closed) {
            return 0;
        }
        long dropped = 0;
        for (Sequence s : slots) {
            dropped += s.writer.droppedRecords();
        }
        return dropped;
    }

    /**
     * Producer thread, at stop: claims every sequence (waiting out events in flight, which never block
     * for long) and closes its writer, so its last chunk is committed and its sequence retired; the
     * sequences stay claimed, so late events find none. Returns how many sequences were still held
     * after {@code timeoutNanos} (a thread stuck mid-event): those are left alone, and the service
     * scrapes their chunks.
     */
    int close(long timeoutNanos, ActiveSession session) {
        closed = true;
        long deadline = System.nanoTime() + timeoutNanos;
        int stuck = 0;
        for (Sequence s : slots) {
            boolean claimed = s.tryClaim();
            while (!claimed && System.nanoTime() < deadline) {
                LockSupport.parkNanos(100_000);
                claimed = s.tryClaim();
            }
            if (claimed) {
                s.writer.close();
            } else {
                // Its holder is still mid-event: its drops so far are counted now (after `closed`, so
                // droppedSoFar no longer counts them), the few it may add later are not.
                stuck++;
            }
            session.writerClosed(s.writer.droppedRecords());
        }
        return stuck;
    }
}
