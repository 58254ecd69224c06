package io.jtrace.service.clock;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * Reads the clocks jtrace timestamps relate to. Trace timestamps are {@code System.nanoTime()}, which
 * on Linux is CLOCK_MONOTONIC (Perfetto's builtin clock 3). Perfetto's trace_processor converts every
 * timestamp to BOOTTIME and drops packets whose clock it cannot relate to it, so every snapshot holds
 * MONOTONIC, BOOTTIME and REALTIME read as close together as Java allows.
 */
public final class ClockReader {
    /** BOOTTIME − MONOTONIC smaller than this is /proc/uptime's 10 ms rounding, not suspend time. */
    private static final long UPTIME_RESOLUTION_NANOS = 20_000_000L;
    private static final Path PROC_UPTIME = Path.of("/proc/uptime");
    /** REALTIME reads per {@link #realtimeMinusMonotonic()}: enough that one is not slowed down. */
    private static final int OFFSET_ROUNDS = 16;

    private ClockReader() {}

    /**
     * A snapshot of MONOTONIC, BOOTTIME and REALTIME. BOOTTIME is MONOTONIC plus the time the machine
     * spent suspended, which Java cannot read directly: it is derived from /proc/uptime (BOOTTIME in
     * centiseconds) and taken as 0 when within that file's rounding, as on any server that never sleeps.
     */
    public static ClockSnapshot snapshot() {
        long offset = realtimeMinusMonotonic();
        long monotonic = System.nanoTime();
        long realtime = monotonic + offset;
        long boottime = monotonic + suspendedNanos(monotonic);
        return ClockSnapshot.newBuilder()
                .addClocks(clock(BuiltinClock.BUILTIN_CLOCK_BOOTTIME, boottime))
                .addClocks(clock(BuiltinClock.BUILTIN_CLOCK_MONOTONIC, monotonic))
                .addClocks(clock(BuiltinClock.BUILTIN_CLOCK_REALTIME, realtime))
                .setPrimaryTraceClock(BuiltinClock.BUILTIN_CLOCK_BOOTTIME)
                .build();
    }

    /**
     * REALTIME − MONOTONIC of this JVM, which puts wall-clock times (JFR's, {@link Instant}s) on the
     * {@code System.nanoTime()} timeline of trace timestamps. Read several times, each REALTIME read
     * bracketed by two MONOTONIC reads; the tightest bracket's midpoint wins, so a slow read (the first
     * {@code Instant.now()} of a JVM can take tens of microseconds) cannot skew it.
     */
    public static long realtimeMinusMonotonic() {
        long best = 0;
        long bestSpan = Long.MAX_VALUE;
        for (int i = 0; i < OFFSET_ROUNDS; i++) {
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

    private static ClockSnapshot.Clock clock(BuiltinClock id, long timestamp) {
        return ClockSnapshot.Clock.newBuilder().setClockId(id.getNumber()).setTimestamp(timestamp).build();
    }

    static long suspendedNanos(long monotonic) {
        try {
            String text = Files.readString(PROC_UPTIME).trim();
            int space = text.indexOf(' ');
            double uptimeSeconds = Double.parseDouble(space > 0 ? text.substring(0, space) : text);
            long boottime = (long) (uptimeSeconds * 1e9);
            long suspended = boottime - monotonic;
            return suspended > UPTIME_RESOLUTION_NANOS ? suspended : 0;
        } catch (IOException | RuntimeException e) {
            return 0; // no /proc (not Linux): BOOTTIME = MONOTONIC is the best available answer
        }
    }
}
