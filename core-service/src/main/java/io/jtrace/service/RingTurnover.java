package io.jtrace.service;

import io.jtrace.service.buffer.TraceBuffer;
import java.util.Map;

/**
 * Decides when a session kept in ring buffers (not streamed into a file) must ask its data sources to
 * clear their incremental state, by how far its rings have turned rather than by the clock.
 *
 * <p>A ring keeps the last {@code capacity} bytes. A sequence's packets in it decode only after a packet
 * of that sequence that cleared its incremental state (its interned names, clock base and defaults);
 * the read-out leaves out and counts those before it (see the buffer's SequenceFlags). With a clear every
 * {@code 1 / CLEARS_PER_TURN} of the smallest ring, at most that share of what the ring holds is left
 * out, however fast the ring turns: a fixed clear period would lose all of it once the ring turns faster
 * than the period. The clear costs each active sequence one header and its names again, a few dozen bytes,
 * and {@link #MIN_INTERVAL_NANOS} bounds how often a ring far too small for its rate asks for one.
 * Service thread only.
 */
final class RingTurnover {
    static final int CLEARS_PER_TURN = 8;
    static final long MIN_INTERVAL_NANOS = 5_000_000L;

    private final long bytesPerClear;
    private long bytesSinceClear;
    private long lastClearNanos;

    private RingTurnover(long bytesPerClear) {
        this.bytesPerClear = bytesPerClear;
        this.lastClearNanos = System.nanoTime();
    }

    /**
     * The turnover of {@code session}, whose buffers are in {@code buffers}, or null when it needs none:
     * none of its buffers overwrites chunks nobody read ({@link TracingSession#overwritingBuffers}: it
     * streams into a file, whose rings are read before they overwrite anything, or it has no ring).
     */
    static RingTurnover of(TracingSession session, Map<Integer, TraceBuffer> buffers) {
        long smallestRing = Long.MAX_VALUE;
        for (int id : session.overwritingBuffers) {
            smallestRing = Math.min(smallestRing, buffers.get(id).capacity());
        }
        return smallestRing == Long.MAX_VALUE ? null : new RingTurnover(Math.max(1, smallestRing / CLEARS_PER_TURN));
    }

    /** {@code bytes} went into one of the session's buffers; returns whether a clear is due now. */
    boolean stored(long bytes) {
        bytesSinceClear += bytes;
        if (bytesSinceClear < bytesPerClear) {
            return false;
        }
        return System.nanoTime() - lastClearNanos >= MIN_INTERVAL_NANOS;
    }

    /** The session's data sources were asked to clear their incremental state (by this or by the clock). */
    void cleared() {
        bytesSinceClear = 0;
        lastClearNanos = System.nanoTime();
    }
}
