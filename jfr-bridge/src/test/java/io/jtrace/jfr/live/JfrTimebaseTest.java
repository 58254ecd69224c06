package io.jtrace.jfr.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link JfrTimebase} against a simulated JFR whose wall clock is stepped: JFR stamps an event with its
 * chunk's offset (REALTIME − MONOTONIC when the chunk started), markers report that offset with their
 * measuring error, and the mapped times must be the events' true MONOTONIC times, in order per thread.
 */
class JfrTimebaseTest {
    private static final long SYSTEM_OFFSET = 1_763_900_000_000_000_000L;
    private static final long STEP = 5_000_000_000L;

    /** A simulated JFR chunk: every time it stamps is {@code monotonic + chunkOffset}. */
    private static Instant jfr(long monotonic, long chunkOffset) {
        long epoch = monotonic + chunkOffset;
        return Instant.ofEpochSecond(epoch / 1_000_000_000L, epoch % 1_000_000_000L);
    }

    /** A marker begun at {@code ticks}, bracketed by reads {@code before} ns earlier and {@code after} ns later. */
    private static void marker(JfrTimebase t, long ticks, long chunkOffset, long before, long after) {
        t.marker(jfr(ticks, chunkOffset), ticks - before, ticks + after);
    }

    @Test
    void aChunkStartedAfterAWallClockStepIsMappedWithItsOwnOffsetFromItsFirstMarkerOn() {
        JfrTimebase t = new JfrTimebase(SYSTEM_OFFSET);
        marker(t, 1_000_000, SYSTEM_OFFSET, 300, 200);
        assertEquals(SYSTEM_OFFSET + 300, t.offset(), "the upper bound: the read before JFR's ticks");
        assertEquals(2_000_000, t.toTrace(jfr(2_000_000, SYSTEM_OFFSET)) + 300);

        // The wall clock is stepped forward; JFR's current chunk keeps its offset: so does the mapping.
        marker(t, 3_000_000_000L, SYSTEM_OFFSET, 150, 100);
        assertEquals(SYSTEM_OFFSET + 150, t.offset(), "a tighter marker of the same timebase");
        assertEquals(1, t.timebases());

        // The next chunk starts with the stepped clock: its beginChunk marker brings the new offset.
        long stepped = SYSTEM_OFFSET + STEP;
        marker(t, 4_000_000_000L, stepped, 200, 100);
        assertEquals(2, t.timebases());
        assertEquals(4_100_000_000L, t.toTrace(jfr(4_100_000_000L, stepped)) + 200);

        // Stepped back by 2 s: JFR never starts a chunk before the last one, so the new chunk's offset is
        // neither the old nor the system's; the marker measures what JFR applies.
        long clampedChunk = stepped - 1_234_567_890L;
        marker(t, 6_000_000_000L, clampedChunk, 100, 100);
        assertEquals(3, t.timebases());
        assertEquals(6_500_000_000L, t.toTrace(jfr(6_500_000_000L, clampedChunk)) + 100);
    }

    @Test
    void aMarkerWhoseBracketWasInterruptedIsIgnored() {
        JfrTimebase t = new JfrTimebase(SYSTEM_OFFSET);
        marker(t, 1_000_000, SYSTEM_OFFSET, 100, 100);
        marker(t, 2_000_000, SYSTEM_OFFSET + STEP, 10_000_000, 10_000);
        assertEquals(SYSTEM_OFFSET + 100, t.offset(), "a 10 ms bracket says nothing of the offset");
        assertEquals(1, t.timebases());
    }

    @Test
    void aThreadsEventsStayInOrderAndWithinTheMarkersErrorOfTheirTrueTimesAcrossSteps() {
        Random random = new Random(11);
        JfrTimebase t = new JfrTimebase(SYSTEM_OFFSET - 40_000); // a poor first reading
        long chunkOffset = SYSTEM_OFFSET;
        long ticks = 0;
        long lastMapped = Long.MIN_VALUE;
        for (int chunk = 0; chunk < 20; chunk++) {
            if (chunk > 0) {
                chunkOffset += (random.nextBoolean() ? 1 : -1) * (random.nextInt(3_000) + 2) * 1_000_000L; // a step
            }
            for (int i = 0; i < 2_000; i++) {
                ticks += random.nextInt(50_000);
                if (i % 100 == 0) { // beginChunk's marker first, then one per flush
                    marker(t, ticks, chunkOffset, random.nextInt((int) ClockMarker.MAX_BRACKET_NANOS / 2),
                            random.nextInt((int) ClockMarker.MAX_BRACKET_NANOS / 2));
                    continue;
                }
                long mapped = t.toTrace(jfr(ticks, chunkOffset));
                assertTrue(mapped >= lastMapped, "event " + i + " of chunk " + chunk + " went back in time");
                assertTrue(mapped <= ticks && ticks - mapped <= ClockMarker.MAX_BRACKET_NANOS,
                        "within a marker's error of the truth: " + (ticks - mapped) + " ns");
                lastMapped = mapped;
            }
        }
        assertEquals(20, t.timebases());
    }
}
