package io.jtrace.jfr.format;

import java.time.Instant;

/**
 * How a JFR time becomes a trace timestamp. JFR gives event times as {@link Instant}s: the chunk's
 * wall-clock start (epoch nanoseconds) plus the ticks elapsed since, so they are wall-clock (REALTIME)
 * times with a monotonic tick source's resolution.
 */
public interface TimeMapping {
    /** The Perfetto clock id the mapped timestamps are on (a {@code BuiltinClock} value). */
    int clockId();

    long toTrace(Instant time);

    /** Epoch nanoseconds of {@code time}: REALTIME, Perfetto's builtin clock 1. */
    static long epochNanos(Instant time) {
        return time.getEpochSecond() * 1_000_000_000L + time.getNano();
    }

    /** Timestamps stay REALTIME (a converted file declares REALTIME its trace clock). */
    static TimeMapping realtime() {
        return new TimeMapping() {
            @Override
            public int clockId() {
                return 1;
            }

            @Override
            public long toTrace(Instant time) {
                return epochNanos(time);
            }
        };
    }

    /**
     * Timestamps on CLOCK_MONOTONIC (builtin clock 3, {@code System.nanoTime()} on Linux), the clock
     * jtrace's own events use: {@code monotonic = realtime - realtimeMinusMonotonic}, the offset read
     * from a clock snapshot that has both clocks.
     */
    static TimeMapping monotonic(long realtimeMinusMonotonic) {
        return new TimeMapping() {
            @Override
            public int clockId() {
                return 3;
            }

            @Override
            public long toTrace(Instant time) {
                return epochNanos(time) - realtimeMinusMonotonic;
            }
        };
    }
}
