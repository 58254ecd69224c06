package io.jtrace.benchmarks.agent.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Instant;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JfrRecordingCountTest {
    @TempDir
    Path dir;

    @Test
    void countsTheFloodsEventsAndThoseThatStartedWithinTheWindow() throws Exception {
        Path file = dir.resolve("r.jfr");
        long windowFrom;
        long windowTo;
        try (Recording recording = new Recording()) {
            recording.enable(JfrFlood.EVENT_NAME);
            recording.start();
            slice();
            Thread.sleep(20);
            // Events 10 ms from the window's edges: JFR dates an event from its own tick counter, which
            // has been seen up to 0.1 ms off the wall clock.
            windowFrom = epochNanos();
            Thread.sleep(10);
            slice();
            slice();
            Thread.sleep(10);
            windowTo = epochNanos();
            Thread.sleep(20);
            slice();
            recording.stop();
            recording.dump(file);
        }

        JfrRecordingCount count = JfrRecordingCount.of(file, windowFrom, windowTo);

        assertEquals(4, count.events());
        assertEquals(2, count.eventsInWindow());
    }

    private static void slice() {
        JfrFlood.SliceEvent e = new JfrFlood.SliceEvent();
        e.begin();
        e.name = "slice";
        e.commit();
    }

    private static long epochNanos() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }
}
