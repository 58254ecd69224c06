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
    /** Full passes over the pool before an event gives up (a holder descheduled mid-event is rare). */
    private static final int MAX_PASSES = 64;

    private final Sequence[] slots;
    /** Set by the producer thread at stop; claimers that find no free slot then stop trying. */
    private volatile boolean closed;

    SequencePool(Sequence[] slots) {
        this.slots = slots;
    }

    static int defaultSize() {
        return Math.min(32, Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));
    }

    int size() {
        return slots.length;
    }

    /**
     * Claims a sequence, trying slot {@code hint} first, and returns its slot ({@link #get}); or -1
     * when every sequence stayed busy for {@link #MAX_PASSES} passes or the pool was closed (the caller
     * counts the event as lost).
     */
    int claim(int hint) {
        int n = slots.length;
        int start = Math.floorMod(hint, n);
        for (int pass = 0; pass < MAX_PASSES; pass++) {
            for (int i = 0; i < n; i++) {
                int index = start + i < n ? start + i : start + i - n;
                if (slots[index].tryClaim()) {
                    return index;
                }
            }
            if (closed) {
                return -1;
            }
            if (pass < 8) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return -1;
    }

    Sequence get(int slot) {
        return slots[slot];
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
                session.writerClosed(s.writer.droppedPackets());
            } else {
                stuck++;
            }
        }
        return stuck;
    }
}
