package io.jtrace.benchmarks;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.jtrace.agent.gc.GcRecorderHarness;
import io.jtrace.producer.tracks.ProcessTrack;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What jvm.gc writes for one collection: a real GC notification (from a {@code System.gc()} in the
 * setup) handed to the recorder again and again, each time decoded and written as the collection's
 * slice (cause, id, heap and every pool before and after as annotations) and two heap counter values,
 * into a real SMB (chunks freed at once).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class JvmGcBenchmark {
    private FreedSmb smb;
    private GcRecorderHarness recorder;
    private Notification notification;

    @Setup(Level.Trial)
    public void start() throws Exception {
        notification = oneGcNotification();
        smb = new FreedSmb(PolledSource.SMB_SIZE);
        recorder = new GcRecorderHarness(ProcessTrack.forCurrentJvm(), smb);
    }

    @TearDown(Level.Trial)
    public void stop() {
        recorder.close();
        smb.close();
    }

    @Benchmark
    public void gcNotification() {
        recorder.handle(notification);
    }

    private static Notification oneGcNotification() throws Exception {
        CompletableFuture<Notification> first = new CompletableFuture<>();
        NotificationListener listener = (n, handback) -> {
            if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
                first.complete(n);
            }
        };
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener(listener, null, null);
        }
        try {
            System.gc();
            return first.get(60, TimeUnit.SECONDS);
        } finally {
            for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                ((NotificationEmitter) gc).removeNotificationListener(listener);
            }
        }
    }
}
