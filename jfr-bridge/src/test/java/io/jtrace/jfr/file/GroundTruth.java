package io.jtrace.jfr.file;

import io.jtrace.jfr.format.SequenceWriter;
import io.jtrace.jfr.format.TimeMapping;
import java.io.IOException;
import java.nio.file.Path;
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

    /** A sample as "ts|tid|top frames", in the time of {@code time}. */
    static String sampleKey(RecordedEvent e, TimeMapping time) {
        List<String> top = new ArrayList<>();
        if (e.getStackTrace() != null) {
            for (RecordedFrame f : e.getStackTrace().getFrames()) {
                if (top.size() == TOP_FRAMES) {
                    break;
                }
                top.add(SequenceWriter.functionName(f.getMethod()));
            }
        }
        return time.toTrace(e.getStartTime()) + "|" + tid(e.getThread("sampledThread")) + "|" + top;
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
