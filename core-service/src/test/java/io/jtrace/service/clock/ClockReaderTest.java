package io.jtrace.service.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.protos.BuiltinClock;
import io.jtrace.protos.ClockSnapshot;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClockReaderTest {

    private static Map<Integer, Long> byId(ClockSnapshot snapshot) {
        Map<Integer, Long> clocks = new HashMap<>();
        for (ClockSnapshot.Clock clock : snapshot.getClocksList()) {
            Long previous = clocks.put(clock.getClockId(), clock.getTimestamp());
            assertEquals(null, previous, "clock " + clock.getClockId() + " appears twice");
        }
        return clocks;
    }

    @Test
    void snapshotHoldsBoottimeMonotonicAndRealtime() {
        Map<Integer, Long> clocks = byId(ClockReader.snapshot());

        assertEquals(3, clocks.size(), "exactly BOOTTIME, MONOTONIC and REALTIME: " + clocks);
        assertTrue(clocks.containsKey(BuiltinClock.BUILTIN_CLOCK_BOOTTIME_VALUE));
        assertTrue(clocks.containsKey(BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE));
        assertTrue(clocks.containsKey(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE));
    }

    @Test
    void boottimeIsNeverBehindMonotonic() {
        Map<Integer, Long> clocks = byId(ClockReader.snapshot());

        assertTrue(clocks.get(BuiltinClock.BUILTIN_CLOCK_BOOTTIME_VALUE)
                >= clocks.get(BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE), clocks.toString());
    }

    @Test
    void primaryTraceClockIsBoottime() {
        assertEquals(BuiltinClock.BUILTIN_CLOCK_BOOTTIME, ClockReader.snapshot().getPrimaryTraceClock());
    }

    @Test
    void monotonicIsSystemNanoTimeAndRealtimeIsWallClockNanos() {
        long nanoBefore = System.nanoTime();
        long wallBeforeMillis = System.currentTimeMillis();
        Map<Integer, Long> clocks = byId(ClockReader.snapshot());
        long nanoAfter = System.nanoTime();
        long wallAfterMillis = System.currentTimeMillis();

        long monotonic = clocks.get(BuiltinClock.BUILTIN_CLOCK_MONOTONIC_VALUE);
        assertTrue(monotonic >= nanoBefore && monotonic <= nanoAfter, "MONOTONIC is read from System.nanoTime()");
        long realtimeMillis = clocks.get(BuiltinClock.BUILTIN_CLOCK_REALTIME_VALUE) / 1_000_000L;
        // Wall clock readings are only ordered up to the clock's granularity; 1 s of slack covers any jump.
        assertTrue(realtimeMillis >= wallBeforeMillis - 1000 && realtimeMillis <= wallAfterMillis + 1000,
                "REALTIME is nanoseconds since the epoch: " + realtimeMillis + " vs " + wallBeforeMillis);
    }

    @Test
    void realtimeMinusMonotonicPutsNanoTimeOnTheWallClock() {
        long wallBefore = epochNanos(Instant.now());
        long offset = ClockReader.realtimeMinusMonotonic();
        long realtime = System.nanoTime() + offset;
        long wallAfter = epochNanos(Instant.now());

        // The bracket is microseconds wide; 50 ms of slack covers a descheduled test thread, not a wrong sign or unit.
        long slack = 50_000_000L;
        assertTrue(realtime >= wallBefore - slack && realtime <= wallAfter + slack,
                "nanoTime + offset = " + realtime + ", wall clock " + wallBefore + ".." + wallAfter);
    }

    private static long epochNanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    @Test
    void suspendedTimeIsNeverNegative() {
        assertTrue(ClockReader.suspendedNanos(System.nanoTime()) >= 0);
        assertTrue(ClockReader.suspendedNanos(Long.MAX_VALUE) >= 0, "a monotonic clock ahead of uptime is not negative suspend time");
    }
}
