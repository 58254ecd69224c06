package io.jtrace.jfr.file;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Events the JDK's parser read whole but jtrace's mapping threw on: a bug of jtrace. Each is described
 * by its type, its position in the file (the n-th event read) and its start time; the first failure of
 * each type is logged with its stack trace, later ones of that type only counted.
 */
final class MappingFailures {
    private static final Logger LOG = LoggerFactory.getLogger(MappingFailures.class);

    private final Path recording;
    private final Map<String, Long> perType = new TreeMap<>();
    private String first;

    MappingFailures(Path recording) {
        this.recording = recording;
    }

    /** Records and logs the failure; returns its description. */
    String add(long position, RecordedEvent event, RuntimeException e) {
        String type = typeOf(event);
        String what = "event #" + position + " (" + type + " at " + startOf(event) + ") of " + recording
                + ": " + JfrToTrace.describe(e);
        if (perType.merge(type, 1L, Long::sum) == 1) {
            LOG.error("internal error of jtrace converting {}", what, e);
        }
        if (first == null) {
            first = what;
        }
        return what;
    }

    Map<String, Long> perType() {
        return perType;
    }

    String first() {
        return first;
    }

    private static String typeOf(RecordedEvent event) {
        try {
            return event.getEventType().getName();
        } catch (RuntimeException e) {
            return "<unknown type>";
        }
    }

    private static String startOf(RecordedEvent event) {
        try {
            Instant start = event.getStartTime();
            return start.toString();
        } catch (RuntimeException e) {
            return "<unknown time>";
        }
    }
}
