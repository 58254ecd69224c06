package io.jtrace.benchmarks.agent.flood;

import java.io.IOException;
import java.nio.file.Path;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** What a JFR recording holds: the flood's events, and the bytes JFR itself reports lost (jdk.DataLoss). */
record JfrRecordingCount(long events, long lostBytes) {
    static JfrRecordingCount of(Path file) throws IOException {
        long events = 0;
        long lostBytes = 0;
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent e = recording.readEvent();
                String type = e.getEventType().getName();
                if (type.equals(JfrFlood.EVENT_NAME)) {
                    events++;
                } else if (type.equals("jdk.DataLoss")) {
                    lostBytes += e.getLong("amount");
                }
            }
        }
        return new JfrRecordingCount(events, lostBytes);
    }
}
