package io.jtrace.agent.gc;

import io.jtrace.producer.tracks.ProcessTrack;
import io.jtrace.producer.DataSourceContext;
import java.util.List;
import javax.management.Notification;

/**
 * For the benchmarks (in the agent's package, to reach its package-private recorder): jvm.gc's
 * recorder subscribed to no collector, into which the benchmark hands GC notifications itself, so one
 * operation is exactly what the JVM's notification thread does for one collection.
 */
public final class GcRecorderHarness implements AutoCloseable {
    private final GcRecorder recorder;

    public GcRecorderHarness(ProcessTrack process, DataSourceContext context) {
        recorder = new GcRecorder(process, context, List.of());
        recorder.start();
    }

    /** What the recorder does for one GC notification. */
    public void handle(Notification notification) {
        recorder.handleNotification(notification, null);
    }

    @Override
    public void close() {
        recorder.stop();
    }
}
