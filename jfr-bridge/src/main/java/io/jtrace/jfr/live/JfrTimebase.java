package io.jtrace.jfr.live;

import io.jtrace.jfr.format.TimeMapping;
import java.time.Instant;
import jdk.jfr.consumer.RecordedEvent;

/**
 * JFR's wall-clock event times on the trace's CLOCK_MONOTONIC timeline, following JFR's own timebase:
 * {@code trace = epochNanos(jfr) − offset}, the offset being JFR's REALTIME − MONOTONIC measured by
 * {@link ClockMarker}s (until the first arrives, the one read when the source started). Reading
 * REALTIME − MONOTONIC from the system instead would be wrong after a wall-clock step: JFR keeps
 * stamping with its chunk's offset until its next chunk starts (and never lets a chunk start before
 * the previous one), so only what JFR stamped tells its offset.
 *
 * <p>A marker gives an upper bound of the offset: its start minus the {@code System.nanoTime()} read
 * just before JFR read its ticks (exact but for the few hundred ns between the two reads). Within one
 * timebase the smallest upper bound is kept: the offset only shrinks, so mapped times only move later
 * and a thread's later event never lands before its earlier one. A marker off by more than
 * {@link #NEW_TIMEBASE_NANOS} from the current offset is a new timebase (a chunk started after a step)
 * and replaces it; a step smaller than that which makes the offset larger is not followed, so such
 * events land up to that much later than they happened.
 *
 * <p>Used on the stream's dispatch thread only.
 */
final class JfrTimebase implements TimeMapping {
    /** Far above any marker's error (its bracket, at most {@link ClockMarker#MAX_BRACKET_NANOS}). */
    static final long NEW_TIMEBASE_NANOS = 1_000_000;

    private long offset;
    private boolean measured;
    private long timebases;

    /** {@code initialOffset}: REALTIME − MONOTONIC read when the source starts, until a marker arrives. */
    JfrTimebase(long initialOffset) {
        this.offset = initialOffset;
    }

    @Override
    public int clockId() {
        return 3;
    }

    @Override
    public long toTrace(Instant time) {
        return TimeMapping.epochNanos(time) - offset;
    }

    /**
     * A marker JFR stamped {@code jfrStart} (epoch ns), begun between {@code monotonicBefore} and
     * {@code monotonicAfter}. Ignores a marker whose bracket is not tight.
     */
    void marker(Instant jfrStart, long monotonicBefore, long monotonicAfter) {
        long bracket = monotonicAfter - monotonicBefore;
        if (bracket < 0 || bracket > ClockMarker.MAX_BRACKET_NANOS) {
            return;
        }
        long upperBound = TimeMapping.epochNanos(jfrStart) - monotonicBefore;
        if (!measured || Math.abs(upperBound - offset) > NEW_TIMEBASE_NANOS) {
            offset = upperBound;
            measured = true;
            timebases++;
        } else if (upperBound < offset) {
            offset = upperBound;
        }
    }

    /** A {@link ClockMarker} the stream delivered. */
    void marker(RecordedEvent marker) {
        marker(marker.getStartTime(), marker.getLong("monotonicBefore"), marker.getLong("monotonicAfter"));
    }

    long offset() {
        return offset;
    }

    /** Timebases seen: 1 for a session without a step, more after each chunk that started after a step. */
    long timebases() {
        return timebases;
    }
}
