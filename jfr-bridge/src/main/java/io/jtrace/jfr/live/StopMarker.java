package io.jtrace.jfr.live;

import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Committed at stop on JDKs whose {@code RecordingStream} has no {@code stop()} (before 20): once the
 * stream delivers it, everything recorded before it has been delivered too (the stream dispatches each
 * flush in time order). Disabled by default, so only jtrace's own stream records it, never a recording
 * the user started.
 */
@Name("jtrace.StopMarker")
@Label("jtrace stop marker")
@Enabled(false)
@StackTrace(false)
final class StopMarker extends Event {
    @Label("session")
    long session;
}
