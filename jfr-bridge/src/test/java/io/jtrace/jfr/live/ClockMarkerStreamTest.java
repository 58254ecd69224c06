package io.jtrace.jfr.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.service.clock.ClockReader;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

/**
 * {@link ClockMarker}s in a real {@link RecordingStream}, set up as {@code jvm.jfr} sets up its own:
 * the beginChunk marker arrives with the stream's first chunk and a periodic one every second, they measure
 * JFR's offset to within a millisecond of the system's, and a marker from a clock that jumped moves
 * the mapping of every later event by the jump.
 */
class ClockMarkerStreamTest {
    private static final long JUMP = 5_000_000_000L;

    @Name("jtrace.test.Probe")
    static final class Probe extends Event {
        long monotonic;
        boolean afterJump;
    }

    /** A marker of the test's own, from a clock 5 s behind. */
    @Name("jtrace.test.Jumped")
    static final class Jumped extends Event implements ClockMarker.Bracketed {
        long monotonicBefore;
        long monotonicAfter;

        @Override
        public void bracket(long before, long after) {
            monotonicBefore = before;
            monotonicAfter = after;
        }
    }

    @Test
    void markersMeasureJfrsOffsetAndAJumpedClockMovesLaterEventsByTheJump() throws Exception {
        JfrTimebase timebase = new JfrTimebase(0); // far off: only markers can put it right
        AtomicLong beforeJump = new AtomicLong(Long.MIN_VALUE);
        AtomicLong afterJump = new AtomicLong(Long.MIN_VALUE);
        CountDownLatch probed = new CountDownLatch(2);
        AtomicBoolean usePeriodic = new AtomicBoolean(true);
        AtomicInteger chunkMarkers = new AtomicInteger();
        AtomicInteger periodicMarkers = new AtomicInteger();
        try (RecordingStream rs = new RecordingStream()) {
            ClockMarker.registerPeriodic();
            rs.enable(ClockMarker.ChunkStart.class).with("period", "beginChunk");
            rs.enable(ClockMarker.Periodic.class).withPeriod(Duration.ofSeconds(1));
            rs.enable(Probe.class);
            rs.enable(Jumped.class);
            rs.setMaxAge(Duration.ofSeconds(10));
            rs.onEvent(ClockMarker.CHUNK_START, e -> {
                timebase.marker(e);
                chunkMarkers.incrementAndGet();
            });
            rs.onEvent(ClockMarker.PERIODIC, e -> {
                if (usePeriodic.get()) {
                    timebase.marker(e);
                    periodicMarkers.incrementAndGet();
                }
            });
            rs.onEvent("jtrace.test.Jumped", timebase::marker);
            rs.onEvent("jtrace.test.Probe", e -> {
                long error = timebase.toTrace(e.getStartTime()) - e.getLong("monotonic");
                (e.getBoolean("afterJump") ? afterJump : beforeJump).set(error);
                probed.countDown();
            });
            rs.startAsync();
            awaitMarkers(chunkMarkers, 1);
            awaitMarkers(periodicMarkers, 2);
            // The periodic markers would put the mapping right again: none between the jumped one and the probe.
            usePeriodic.set(false);
            long measured = timebase.offset(); // a marker is read on the stream's thread; a long read once here is fine
            long system = ClockReader.realtimeMinusMonotonic();
            assertTrue(Math.abs(measured - system) < 1_000_000, "JFR's offset " + measured + " against the system's " + system);
            probe(false);

            // As if JFR's timebase had moved 5 s ahead of the system's: later events map 5 s earlier.
            ClockMarker.commitOne(Jumped::new, () -> System.nanoTime() - JUMP);
            probe(true);
            assertTrue(probed.await(20, TimeUnit.SECONDS), "both probes delivered");
        }
        assertTrue(Math.abs(beforeJump.get()) < 1_000_000, "mapped to its own nanoTime: " + beforeJump.get() + " ns off");
        assertTrue(Math.abs(afterJump.get() + JUMP) < 1_000_000, "moved by the jump: " + afterJump.get() + " ns off");
        assertEquals(2, timebase.timebases(), "the markers' timebase and the jumped one");
    }

    private static void awaitMarkers(AtomicInteger markers, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (markers.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(markers.get() >= n, markers.get() + " markers, not " + n);
    }

    private static void probe(boolean afterJump) {
        Probe p = new Probe();
        p.monotonic = System.nanoTime();
        p.afterJump = afterJump;
        p.commit();
    }
}
