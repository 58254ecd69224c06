package io.jtrace.benchmarks.agent.flood;

import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The flood with JFR's equivalent of a slice: one duration event with a String field, no stack trace. */
public final class JfrFlood {
    static final String EVENT_NAME = "jtrace.flood.Slice";

    @Name(EVENT_NAME)
    @StackTrace(false)
    static final class SliceEvent extends Event {
        String name;
    }

    private JfrFlood() {}

    public static void main(String[] args) throws InterruptedException {
        if (FlightRecorder.getFlightRecorder().getRecordings().isEmpty()) {
            throw new IllegalStateException("no JFR recording: start the JVM with -XX:StartFlightRecording:filename=...");
        }
        Flood.run(args, () -> {
            SliceEvent e = new SliceEvent();
            e.begin();
            e.name = "slice";
            e.commit();
        });
    }
}
