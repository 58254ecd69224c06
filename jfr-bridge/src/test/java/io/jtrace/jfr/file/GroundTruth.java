package io.jtrace.jfr.file;

import io.jtrace.jfr.format.SequenceWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/** What the JDK's own parser reads from a recording: the reference every converted trace is held to. */
final class GroundTruth {
    static final int TOP_FRAMES = 5;

    final List<RecordedEvent> events;
    final Map<String, Long> countPerType = new TreeMap<>();

    private GroundTruth(List<RecordedEvent> events) {
        this.events = events;
        for (RecordedEvent e : events) {
            countPerType.merge(e.getEventType().getName(), 1L, Long::sum);
        }
    }

    static GroundTruth of(Path jfr) throws IOException {
        return new GroundTruth(RecordingFile.readAllEvents(jfr));
    }

    static boolean isSample(RecordedEvent e) {
        String t = e.getEventType().getName();
        return t.equals("jdk.ExecutionSample") || t.equals("jdk.NativeMethodSample");
    }

    static long tid(RecordedThread t) {
        return t == null ? -1 : t.getOSThreadId();
    }

    /**
     * Where a trace should put a JFR time: its epoch nanoseconds (REALTIME, as the JDK's parser gives it)
     * minus {@code realtimeMinusTraceClock} (0 for a REALTIME trace). Computed here, not with the
     * converter's own time mapping, so a bug there fails the tests.
     */
    static long expectedTimestamp(Instant jfrTime, long realtimeMinusTraceClock) {
        return ChronoUnit.NANOS.between(Instant.EPOCH, jfrTime) - realtimeMinusTraceClock;
    }

    /** A sample as "ts|tid|top frames", its time as {@link #expectedTimestamp} puts it. */
    static String sampleKey(RecordedEvent e, long realtimeMinusTraceClock) {
        List<String> top = new ArrayList<>();
        if (e.getStackTrace() != null) {
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                if (top.size() == TOP_FRAMES) {
                    break;
                }
                top.add(SequenceWriter.functionName(f.getMethod()));
            }
        }
        return expectedTimestamp(e.getStartTime(), realtimeMinusTraceClock) + "|" + tid(e.getThread("sampledThread")) + "|" + top;
    }

    static String sampleKey(DecodedTrace.Sample s) {
        List<String> top = s.framesLeafFirst().subList(0, Math.min(TOP_FRAMES, s.framesLeafFirst().size()));
        return s.ts() + "|" + s.tid() + "|" + top;
    }

    static <T> Map<T, Integer> multiset(List<T> items) {
        Map<T, Integer> m = new HashMap<>();
        for (T t : items) {
            m.merge(t, 1, Integer::sum);
        }
        return m;
    }
}
