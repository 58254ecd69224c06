package io.jtrace.jfr.live;

import java.time.Instant;

/**
 * REALTIME − MONOTONIC of this JVM, to put JFR's wall-clock event times on the {@code System.nanoTime()}
 * timeline of every other jtrace event. Read several times, each REALTIME read bracketed by two MONOTONIC
 * reads; the tightest bracket's midpoint wins, so a slow read (the first {@code Instant.now()} of a JVM
 * can take tens of microseconds) cannot skew it.
 */
final class ClockOffset {
    private static final int ROUNDS = 16;

    private ClockOffset() {}

    static long realtimeMinusMonotonic() {
        long best = 0;
        long bestSpan = Long.MAX_VALUE;
        for (int i = 0; i < ROUNDS; i++) {
            long before = System.nanoTime();
            Instant now = Instant.now();
            long after = System.nanoTime();
            long span = after - before;
            if (span < bestSpan) {
                bestSpan = span;
                long realtime = now.getEpochSecond() * 1_000_000_000L + now.getNano();
                best = realtime - (before + span / 2);
            }
        }
        return best;
    }
}
