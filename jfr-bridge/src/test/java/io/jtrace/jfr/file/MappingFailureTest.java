package io.jtrace.jfr.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An exception in jtrace's own mapping of an event the parser read whole is an internal error of
 * jtrace naming the event, never "damaged recording"; with {@code --keep-going} that event is skipped
 * and counted. Damage found by the parser is still reported as damage, beside mapping failures.
 */
class MappingFailureTest {
    private static final String MARKER = "jtrace.test.Marker";

    @TempDir
    static Path dir;
    static Path recording;
    static GroundTruth truth;

    @BeforeAll
    static void record() throws Exception {
        recording = TestRecordings.record(dir.resolve("rec.jfr"), 2, 20);
        truth = GroundTruth.of(recording);
    }

    /** A mapper that throws, before writing anything, on the markers whose value is {@code value}. */
    private static EventMapping failingOnMarker(long value) {
        return (mapper, event) -> {
            if (event.getEventType().getName().equals(MARKER) && event.getLong("value") == value) {
                throw new IllegalStateException("injected mapper bug");
            }
            mapper.write(event);
        };
    }

    @Test
    void aMappingFailureIsAnInternalErrorNamingTheEventsTypePositionAndTimeAndWritesNothing() throws Exception {
        Path out = dir.resolve("failed.pftrace");
        JfrInternalError e = assertThrows(JfrInternalError.class,
                () -> new JfrToTrace(false, null, JfrToTrace.MAX_INTERNED, failingOnMarker(7)).convert(recording, out));
        int position = 0;
        RecordedEvent failed = null;
        for (RecordedEvent r : truth.events) {
            position++;
            if (r.getEventType().getName().equals(MARKER) && r.getLong("value") == 7) {
                failed = r;
                break;
            }
        }
        String message = e.getMessage();
        assertTrue(message.startsWith("internal error of jtrace, not damage in the recording: mapping event #"
                + position + " (" + MARKER + " at " + failed.getStartTime() + ") of " + recording
                + ": IllegalStateException injected mapper bug"), message);
        assertFalse(message.contains("parsing stopped") || message.contains("truncated"), message);
        assertEquals("injected mapper bug", e.getCause().getMessage());
        assertFalse(Files.exists(out), "nothing written");
    }

    @Test
    void keepGoingSkipsAndCountsTheEventsTheMappingFailsOnAndWritesEveryOther() throws Exception {
        Path out = dir.resolve("skipped.pftrace");
        ConversionReport report = new JfrToTrace(true, null, JfrToTrace.MAX_INTERNED, failingOnMarker(3)).convert(recording, out);
        assertEquals(Map.of(MARKER, 2L), report.failedPerType(), "one marker of value 3 per worker thread");
        assertEquals(2, report.eventsFailed());
        assertTrue(report.lostSomething());
        assertTrue(report.firstFailure().contains(MARKER) && report.firstFailure().contains("injected mapper bug"),
                report.firstFailure());
        assertEquals(null, report.loss(), "the recording is not damaged");
        Map<String, Long> expected = new TreeMap<>(truth.countPerType);
        expected.merge(MARKER, -2L, Long::sum);
        assertEquals(expected, report.eventsPerType());
        assertEquals(List.of(), DecodedTrace.read(out).problems);
    }

    @Test
    void damageAndMappingFailuresInOneFileAreReportedApartWithKeepGoing() throws Exception {
        Path second = TestRecordings.record(dir.resolve("second.jfr"), 1, 5);
        Path cut = dir.resolve("cut.jfr");
        try (OutputStream o = Files.newOutputStream(cut)) {
            Files.copy(recording, o);
            Files.copy(second, o);
        }
        try (FileChannel ch = FileChannel.open(cut, StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() - Files.size(second) / 2);
        }
        Path out = dir.resolve("cut.pftrace");
        EventMapping failing = failingOnMarker(3);
        JfrInputException damaged = assertThrows(JfrInputException.class,
                () -> new JfrToTrace(false, null, JfrToTrace.MAX_INTERNED, failing).convert(cut, out));
        assertTrue(damaged.getMessage().startsWith(cut + ": chunk 2 at byte " + Files.size(recording) + " is truncated"),
                damaged.getMessage());

        ConversionReport report = new JfrToTrace(true, null, JfrToTrace.MAX_INTERNED, failing).convert(cut, out);
        assertTrue(report.loss().contains("is truncated"), report.loss());
        assertEquals(Map.of(MARKER, 2L), report.failedPerType());
        assertEquals(truth.countPerType.get(MARKER) - 2, report.eventsPerType().get(MARKER));
    }
}
