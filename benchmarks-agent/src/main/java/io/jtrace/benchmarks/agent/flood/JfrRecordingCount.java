package io.jtrace.benchmarks.agent.flood;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * What a JFR recording holds: the flood's events, those that started within a window of wall-clock time,
 * and the bytes JFR itself reports lost (jdk.DataLoss).
 */
record JfrRecordingCount(long events, long eventsInWindow, long lostBytes) {
    /** {@code windowFrom} (inclusive) and {@code windowTo} (exclusive): ns since the epoch. */
    static JfrRecordingCount of(Path file, long windowFrom, long windowTo) throws IOException {
        long events = 0;
        long eventsInWindow = 0;
        long lostBytes = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                String type = e.getEventType().getName();
                if (type.equals(JfrFlood.EVENT_NAME)) {
                    events++;
                    Instant start = e.getStartTime();
                    long epochNanos = start.getEpochSecond() * 1_000_000_000L + start.getNano();
                    if (epochNanos >= windowFrom && epochNanos < windowTo) {
                        eventsInWindow++;
                    }
                } else if (type.equals("jdk.DataLoss")) {
                    lostBytes += e.getLong("amount");
                }
            }
        }
        return new JfrRecordingCount(events, eventsInWindow, lostBytes);
    }
}
